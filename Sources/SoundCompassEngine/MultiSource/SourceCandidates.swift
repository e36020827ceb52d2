#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One direction that stood out in the recent frames.
package struct SourceCandidate: Sendable, Equatable {
    /// Bearing, degrees in [−90, 90].
    package var azimuth: Double
    /// Height of its peak in the averaged correlation (a single source alone in every frame
    /// reaches about 1), ≥ 0.
    package var strength: Double
    /// Its share of the evidence: its strength over the sum of all candidates' (0…1).
    package var share: Double
    /// How much its peak rises and falls with a stronger candidate's, frame by frame: the
    /// largest correlation coefficient (−1…1) of its per-frame correlation values with those
    /// of a stronger candidate over the last ``SourceCandidateFinder/echoWindowSeconds``
    /// (0 for the strongest, or while too few frames are known). Near 1 for a reflection of a
    /// stronger source, near 0 or negative for an independent one.
    package var echo: Double = 0
    /// The index, among the frame's candidates, of the stronger candidate behind ``echo`` (−1
    /// when `echo` is 0).
    package var echoPartner: Int = -1
    /// Whether it is a reflection of another candidate, told by their cross terms (see
    /// `ReflectionImageTest.swift`): the later copy by the channels' level ripples, or the
    /// weaker of two steady candidates when the ripples do not tell. It may feed a source but
    /// starts none.
    package var steadyReflection = false
    /// Whether the channels' level ripples name it the later of two copies of one sound
    /// (``ReflectionImageTest/firstCopy(lagA:lagB:farLag:strict:)``): a ``steadyReflection`` told by
    /// which copy arrived first, not by which peak is higher.
    package var laterCopy = false
    /// Whether it was read from the onset average beside a steady source (see
    /// `ExcessCandidateSearch.swift`): new sound, so never judged against a steady candidate
    /// (only against another copy of new sound).
    package var fromOnsets = false
    /// Whether its sound arrives with onsets of its own (see
    /// ``ExcessCandidateSearch/leadsOnsets(lag:)``): true for a candidate of the onset average
    /// and for a plain one with an onset peak at its lag, false for a plain one without that is
    /// weaker than the strongest candidate with one; nil where it cannot be told: no new sound
    /// arriving, a candidate holding little or clearly less new sound than the others
    /// (``ExcessCandidateSearch/holdsNewSoundLikeTheMost(_:)``), one without onsets as strong as
    /// any that has them, a coincident pair, or no onset averages.
    package var leadsOnsets: Bool?

    /// A candidate with the given fields (see each; `azimuth` in degrees).
    package init(azimuth: Double, strength: Double, share: Double, echo: Double = 0, echoPartner: Int = -1) {
        self.azimuth = azimuth
        self.strength = strength
        self.share = share
        self.echo = echo
        self.echoPartner = echoPartner
    }
}

/// The directions heard in the last fraction of a second: the peaks of the frames' GCC-PHAT
/// correlations averaged over ``SourceCandidateFinder/Configuration/sourceWindowSeconds``.
///
/// **Why this separates talkers.** Speech is sparse in time and frequency: in each bin of a
/// frame one talker mostly dominates (W-disjoint orthogonality; Yilmaz and Rickard, 2004), so
/// the bin's inter-channel phase is that talker's, `−ω·τᵢ`. The phase transform gives every
/// (coherent) bin the same weight, so the frame's correlation `r(τ) = Σₖ Re(Gₖ·e^(iωₖτ))` is a
/// sum of one peak per talker, each as high as the share of the bins the talker dominates:
/// a histogram of the bins' lags with a cosine kernel in phase. That kernel handles spatial
/// aliasing by itself: above `c/(2d)` a bin's phase fits several lags, and it adds a lobe at
/// each of them, which the bins of other frequencies do not reinforce (only the true lag is
/// common to all). Averaging the frames' correlations over the window lets a talker who
/// dominated only some frames keep their peak. (A histogram of per-bin lags from the bins below
/// the aliasing frequency alone, 1.1 kHz for 15 cm, was not tried: there a phase error of
/// 0.1 rad at 300 Hz is already 2.5 samples, about 7° ahead, while the correlation uses every
/// coherent bin.)
///
/// **Precedence.** Each frame enters the average times its tail weight (``TailWeighting``, as
/// for the single bearing): a frame whose level falls holds mostly the room's decay, whose
/// peaks are reflections.
///
/// **Sidelobes.** Each peak of the average comes with sidelobes, the cosine transform of the
/// bins' averaged weights: for speech at 16 kHz they reach a fifth of the peak 4–5 samples
/// away, and read as a second source in free field. A candidate that is mostly the sidelobes
/// of stronger candidates (see ``sidelobeResidual``) is dropped.
///
/// **Reflections.** An early reflection is a copy of its source from another direction, and
/// its peak rises and falls with the source's, frame by frame; two talkers' peaks do not (they
/// share the bins, so one falls when the other rises). ``SourceCandidate/echo`` measures it:
/// the correlation coefficient of a candidate's per-frame values with a stronger candidate's
/// over the last ``echoWindowSeconds``; ``MultiSourceTracker`` does not confirm, or drops, a
/// track whose candidates look like echoes.
///
/// **Peaks.** The average is smoothed by [1 2 1]/4 first: a whitened spectrum up to Nyquist
/// makes a peak at a fractional lag ring at ±1, ±2 … samples, which would read as sources next
/// to every source. A candidate must also stand out from its surroundings by
/// ``relativeProminence`` of its height.
///
/// **Candidates** are the local maxima of the average within the physical lag window, at least
/// ``absoluteFloor`` high and ``relativeFloor`` of the highest, at least
/// ``minimumSeparationSamples`` (or a tenth of the largest lag, if more) from a higher one;
/// refined by a parabola; mapped to an azimuth as the broadband estimate maps its lag (the
/// binaural model at the frame's low-frequency share).
///
/// A coincident pair has no time difference: its candidates are the peaks of a histogram of
/// the bins' principal angles (see `CoincidentAngleSearch.swift`).
///
/// **Parts.** The finder is a coordinator: it keeps the plain average, the frames' history (for
/// the echo) and the candidate list, and hands the rest to parts that own their buffers and
/// state and give back values: ``PointSpread`` (the sidelobes), ``LagPeakSearch`` (the peak
/// search), ``ExcessCandidateSearch`` (the candidates beside a steady source, with
/// ``BesideSteadySearch``), ``ReflectionImageTest`` (steady reflections) and
/// ``CoincidentAngleSearch`` (a coincident pair's candidates). Every stored property is private;
/// ``candidates`` and ``count`` are read, not written, outside.
///
/// Life cycle: `init` allocates; ``update(spectra:levelDBFS:aboveGate:weight:)`` and
/// ``find(lowFrequencyShare:)`` never allocate.
package final class SourceCandidateFinder {
    /// What the candidate search needs of the analysis settings (the analyzer's
    /// `AnalysisConfiguration` gives one).
    package struct Configuration: Sendable, Equatable {
        /// Samples per second, Hz.
        package var sampleRate: Double
        /// Time between frames, seconds.
        package var hopDuration: Double
        /// The correlations' averaging window, seconds.
        package var sourceWindowSeconds: Double
        /// Search for sources beside steady ones (the excess over each bin's steady floor).
        package var hearsBesideSteadySources: Bool
        /// The microphone pair.
        package var array: ArrayModel

        package init(
            sampleRate: Double, hopDuration: Double, sourceWindowSeconds: Double, hearsBesideSteadySources: Bool,
            array: ArrayModel
        ) {
            self.sampleRate = sampleRate
            self.hopDuration = hopDuration
            self.sourceWindowSeconds = sourceWindowSeconds
            self.hearsBesideSteadySources = hearsBesideSteadySources
            self.array = array
        }
    }

    /// Lowest height of a candidate's peak in the averaged correlation.
    package static let absoluteFloor = 0.05
    /// Lowest height of a candidate relative to the highest peak.
    package static let relativeFloor = 0.1
    /// Least prominence of a candidate's peak (see `prominence(at:)`) relative to its height.
    package static let relativeProminence = 0.2
    /// Smallest distance between two candidates, samples.
    package static let minimumSeparationSamples = 2.5
    /// Share of a candidate's height that must remain once the sidelobes of the stronger
    /// candidates are taken off (see `removeSidelobes`).
    package static let sidelobeResidual = 0.5
    /// Two candidates closer than where the point-spread function falls to this share of its
    /// peak share their per-frame values (each sits on the other's main lobe), so their
    /// ``SourceCandidate/echo`` is not measured (it stays 0).
    package static let echoLobeLimit = 0.25
    /// Time over which ``SourceCandidate/echo`` is measured, seconds.
    package static let echoWindowSeconds = 1.0
    /// Fewest frames of ``echoWindowSeconds`` (at long hops the window is longer).
    package static let echoMinimumFrames = 12

    private let configuration: Configuration
    /// The broadband estimator whose frames are averaged (to check that a frame given is its current one).
    private let gccPhat: GCCPHAT
    /// Half-width of the averaged lag window, whole samples (the estimator's ``GCCPHAT/searchLag``).
    private let searchLag: Int
    private let fftSize: Int
    /// Share of the newest frame in the average: hop / window.
    private let smoothing: Float
    /// The averaged correlation at lags `−searchLag…searchLag` (index `lag + searchLag`).
    private let average: AlignedFloats
    /// The average smoothed by [1 2 1]/4, where the peaks are searched.
    private let smoothed: AlignedFloats
    /// Average linear power of the frames (mean of both channels, re full scale).
    private var averagePower = 0.0
    /// The yaw of the frames in the average times their weights, averaged like the
    /// correlation, and the weights alike (see ``averageYaw``); whether the last frame had a yaw.
    private var yawSum = 0.0, yawWeight = 0.0
    private var lastYaw: Double?
    /// The averaged correlation's point-spread function (``PointSpread``): the sidelobes taken
    /// off weaker candidates, and which candidates sit on each other's main lobe.
    private let pointSpread: PointSpread
    /// The peak search of the plain average (and of the excess one): lag window and separation.
    private let peakSearch: LagPeakSearch
    /// Coincident pairs: the search of the bins' principal angles (``CoincidentAngleSearch``),
    /// whose candidates replace the lag search's; nil for the other models.
    private let angles: CoincidentAngleSearch?
    /// The search beside steady sources, from the excess averages (``ExcessCandidateSearch``);
    /// nil unless ``SourceCandidateFinder/Configuration/hearsBesideSteadySources`` (and never for
    /// a coincident pair).
    private let excessSearch: ExcessCandidateSearch?
    /// The index of the first candidate read from the excess average (``count`` when none is):
    /// the candidates before it come from the plain average.
    private var firstExcessCandidate = 0
    /// The last `historyFrames` counted frames' correlations at lags `−searchLag…searchLag`,
    /// one row each (a ring; row `historyNext` is the oldest once full).
    private let history: AlignedFloats
    /// The test of steady reflections by their cross terms far outside the lag window
    /// (``ReflectionImageTest``); nil for a coincident pair.
    private let images: ReflectionImageTest?
    /// The direct sounds heard lately, for the candidates whose source's peak has left.
    private var heard: HeardDirectSounds
    private let historyFrames: Int
    private var historyNext = 0
    private var historyCount = 0

    /// The candidates found by the last ``find(lowFrequencyShare:)``, strongest first; `count`
    /// of them are valid.
    package private(set) var candidates: [SourceCandidate]
    /// Number of valid ``candidates``.
    package private(set) var count = 0
    /// The onset average's bearing after the last ``find(lowFrequencyShare:)``, degrees in
    /// [−90, 90] (``OnsetBearing``); nil when it is not worth reading, and without the search
    /// beside steady sources (a coincident pair).
    package private(set) var onsetBearing: Double?
    /// The index (lag + searchLag) of each candidate's peak.
    private var lagIndices: [Int]
    /// Each candidate's refined lag, samples.
    private var lags: [Double]
    /// The averaged frame level, dBFS.
    package var averageLevelDBFS: Double { 10 * log10(averagePower + ChannelLevels.powerFloor) }

    /// - Parameters:
    ///   - configuration: the search's settings.
    ///   - broadband: the broadband estimator whose frames' correlations are averaged.
    ///   - capacity: most candidates kept per frame.
    package init(configuration: Configuration, broadband: DirectionEstimator, capacity: Int) {
        precondition(capacity <= 64, "steadyMask holds at most 64 candidates")
        let gccPhat = broadband.gccPhat
        self.configuration = configuration
        self.gccPhat = gccPhat
        self.searchLag = gccPhat.searchLag
        self.fftSize = gccPhat.fftSize
        self.smoothing = Float(min(1, configuration.hopDuration / configuration.sourceWindowSeconds))
        self.average = AlignedFloats(count: 2 * gccPhat.searchLag + 1)
        self.smoothed = AlignedFloats(count: 2 * gccPhat.searchLag + 1)
        self.candidates = [SourceCandidate](
            repeating: SourceCandidate(azimuth: 0, strength: 0, share: 0), count: max(1, capacity))
        self.lagIndices = [Int](repeating: 0, count: max(1, capacity))
        self.lags = [Double](repeating: 0, count: max(1, capacity))
        let coincident = configuration.array.kind == .coincident
        self.angles = coincident
            ? CoincidentAngleSearch(array: configuration.array, sampleRate: configuration.sampleRate, fftSize: gccPhat.fftSize)
            : nil
        let n = gccPhat.fftSize
        let pointSpread = PointSpread(fftSize: n, searchLag: gccPhat.searchLag)
        let peakSearch = LagPeakSearch(
            searchLag: gccPhat.searchLag, separation: max(Self.minimumSeparationSamples, 0.1 * gccPhat.maxLagSamples),
            maxLag: gccPhat.maxLagSamples)
        self.pointSpread = pointSpread
        self.peakSearch = peakSearch
        self.historyFrames = max(
            Self.echoMinimumFrames, Int((Self.echoWindowSeconds / configuration.hopDuration).rounded()))
        self.history = AlignedFloats(count: historyFrames * (2 * gccPhat.searchLag + 1))
        self.excessSearch = configuration.hearsBesideSteadySources && !coincident
            ? ExcessCandidateSearch(
                averages: ExcessAverage(
                    fftSize: n, searchLag: gccPhat.searchLag, sampleRate: configuration.sampleRate,
                    hopDuration: configuration.hopDuration, windowSeconds: configuration.sourceWindowSeconds,
                    historyRows: historyFrames),
                capacity: capacity, peakSearch: peakSearch, pointSpread: pointSpread)
            : nil
        self.images = coincident
            ? nil
            : ReflectionImageTest(
                sampleRate: configuration.sampleRate, fftSize: n, searchLag: gccPhat.searchLag,
                hopDuration: configuration.hopDuration)
        self.heard = HeardDirectSounds(hopDuration: configuration.hopDuration)
    }

    /// Forgets the average.
    package func reset() {
        average.zero()
        excessSearch?.averages.reset()
        images?.reset()
        heard.reset()
        angles?.reset()
        pointSpread.reset()
        averagePower = 0
        yawSum = 0
        yawWeight = 0
        lastYaw = nil
        count = 0
        historyNext = 0
        historyCount = 0
    }

    /// Adds a frame to the average.
    /// - Parameters:
    ///   - spectra: the current frame's spectra from the estimator given at `init` (a view of
    ///     another frame traps): its correlation (a frame without one adds nothing, the average
    ///     only decays), the bins' weights, a coincident pair's level ratios.
    ///   - levelDBFS: the frame's level.
    ///   - aboveGate: whether the frame is louder than the silence gate; a quieter one adds
    ///     nothing.
    ///   - weight: the frame's tail weight (``TailWeighting``), 0…1: its values enter the
    ///     average times this, so a falling frame (the room's decay) counts less.
    ///   - yaw: the listener's yaw at the frame, degrees (unwrapped, from an IMU; nil without
    ///     one), averaged like the frame into ``averageYaw``.
    package func update(spectra: FrameSpectra, levelDBFS: Double, aboveGate: Bool, weight: Double = 1, yaw: Double? = nil) {
        gccPhat.checkCurrent(spectra)
        heard.advance()
        averageYaw(yaw, counts: aboveGate && (angles != nil || spectra.correlation != nil), weight: weight)
        if let angles {
            // A coincident pair: its candidates come from the bins' principal angles.
            angles.update(spectra: spectra, counts: aboveGate, weight: Float(weight), smoothing: smoothing)
            let power = aboveGate ? pow(10, levelDBFS / 10) : 0
            averagePower += Double(smoothing) * (power - averagePower)
            return
        }
        let a = smoothing, K = searchLag, n = fftSize
        let avg = average.baseAddress
        // The frame counts when it is above the gate and has a correlation.
        let correlation = aboveGate ? spectra.correlation : nil
        let counts = correlation != nil
        let w = Float(weight)
        // Lags −K…−1 sit at the end of the circular correlation, 0…K at its start.
        @inline(__always) func value(_ c: UnsafePointer<Float>, _ i: Int) -> Float { i < K ? c[n - K + i] : c[i - K] }
        if let c = correlation {
            for i in 0...(2 * K) { avg[i] += a * (w * value(c, i) - avg[i]) }
        } else {
            for i in 0...(2 * K) { avg[i] -= a * avg[i] }
        }
        images?.update(correlation: correlation, spectra: spectra, weight: w)
        // The bins' shares of this frame's weights, averaged like the correlation.
        let weightSum = pointSpread.average(spectra.whitened, counts: counts, weight: w, smoothing: a)
        // The same correlation of the bins that hold new sound.
        if let excess = excessSearch?.averages {
            if counts && weightSum > 0 {
                excess.update(spectra: spectra, magnitudes: pointSpread.magnitudes, weight: w, historyRow: historyNext)
            } else {
                excess.decay()
            }
        }
        if let c = correlation {
            let row = history.baseAddress + historyNext * (2 * K + 1)
            for i in 0...(2 * K) { row[i] = value(c, i) }
            historyNext = (historyNext + 1) % historyFrames
            historyCount = min(historyCount + 1, historyFrames)
        }
        let power = counts ? pow(10, levelDBFS / 10) : 0
        averagePower += Double(a) * (power - averagePower)
    }

    /// The listener's yaw the average was heard at, degrees (unwrapped): the frames' yaws
    /// weighted as the frames enter the average (each that counts, times its weight, fading with
    /// the window); the last frame's yaw until a frame counts; nil when the last frame had none.
    /// A turning listener hears a still source's averaged peak where the source was at this
    /// yaw, not at the current one: the average lags the turn by about the window
    /// (``SourceCandidateFinder/Configuration/sourceWindowSeconds``), 0.3 s, in which a head turning at 45°/s
    /// moves a source by ~13°.
    package var averageYaw: Double? {
        guard let lastYaw else { return nil }
        return yawWeight > 1e-9 ? yawSum / yawWeight : lastYaw
    }

    /// Averages the frame's yaw into ``averageYaw`` (without one, forgets the yaws).
    private func averageYaw(_ yaw: Double?, counts: Bool, weight: Double) {
        guard let yaw, yaw.isFinite else {
            yawSum = 0
            yawWeight = 0
            lastYaw = nil
            return
        }
        let a = Double(smoothing), w = counts ? max(0, weight) : 0
        yawSum += a * (w * yaw - yawSum)
        yawWeight += a * (w - yawWeight)
        lastYaw = yaw
    }

    /// The azimuth of a lag of the averages (samples), degrees, as the array model reads it.
    private func azimuth(ofLag lag: Double, lowFrequencyShare share: Double?) -> Double {
        let model = configuration.array
        let delay = lag / configuration.sampleRate
        let lateral = model.measuredHead.map {
            $0.lateral(delay: delay - model.delayOffsetSeconds, lowFrequencyShare: share ?? 0, estimate: 0)
        } ?? share.map { model.lateral(delay: delay, lowFrequencyShare: $0) } ?? model.lateral(delay: delay)
        return ArrayModel.azimuthDegrees(lateral: lateral)
    }

    /// Finds the candidates of the current average into ``candidates``, and reads
    /// ``onsetBearing``.
    /// - Parameter lowFrequencyShare: binaural: the frame's low-frequency share, at which the
    ///   lags are read (``FrameEstimate/lowFrequencyShare``); nil for the other models.
    package func find(lowFrequencyShare share: Double?) {
        onsetBearing = excessSearch
            .flatMap { OnsetBearing.lag(of: $0.averages, sampleRate: configuration.sampleRate) }
            .map { azimuth(ofLag: $0, lowFrequencyShare: share) }
        if let angles {
            count = angles.find(into: &candidates, peakIndices: &lagIndices)
            return
        }
        count = 0
        let K = searchLag
        let avg = average.baseAddress, y = smoothed.baseAddress
        // [1 2 1]/4 removes the ringing of a peak at a fractional lag (a whitened spectrum up to
        // Nyquist rings at ±1, ±2 … samples with alternating signs), which would otherwise
        // read as peaks next to every source.
        y[0] = avg[0]
        y[2 * K] = avg[2 * K]
        var highest: Float = 0
        for i in 1..<(2 * K) {
            y[i] = 0.25 * (avg[i - 1] + avg[i + 1]) + 0.5 * avg[i]
            if y[i] > highest { highest = y[i] }
        }
        let floor = Float(max(Self.absoluteFloor, Self.relativeFloor * Double(highest)))
        guard highest >= floor else { return }
        // Local maxima, strongest first: repeatedly the highest one not yet taken, far enough
        // from those taken and standing out from its surroundings (a handful of passes over
        // ~50 values).
        let limit = peakSearch.limit
        var total = 0.0
        while count < candidates.count,
              let peak = peakSearch.strongestSeparatedPeak(in: y, floor: floor, limit: limit, taken: lags, takenCount: count) {
            candidates[count] = SourceCandidate(azimuth: 0, strength: peak.height, share: 0)
            lags[count] = peak.lag
            lagIndices[count] = peak.index
            total += peak.height
            count += 1
        }
        removeSidelobes(floor: Double(floor), total: &total)
        firstExcessCandidate = count
        if let excessSearch {
            excessSearch.markSteadyCandidates(count: count, candidates: candidates, lagIndices: lagIndices, smoothed: y)
            if excessSearch.hearsNewSound { takeExcessCandidates(excessSearch, total: &total) }
        }
        for j in 0..<count {
            candidates[j].azimuth = azimuth(ofLag: lags[j], lowFrequencyShare: share)
            candidates[j].share = total > 0 ? candidates[j].strength / total : 0
        }
        for j in 0..<count {
            var echo = 0.0, partner = -1
            // A candidate of the excess average is measured against the stronger ones of the
            // same average, in its own history: a steady source cannot echo a new sound.
            let fromExcess = j >= firstExcessCandidate
            for i in (fromExcess ? firstExcessCandidate : 0)..<j
            where pointSpread.mainLobeShare(lagIndices[j] - lagIndices[i]) < Self.echoLobeLimit {
                let c = covariation(lagIndices[i], lagIndices[j], in: fromExcess ? excessSearch!.averages.onsetHistory : history)
                if c > echo { echo = c; partner = i }
            }
            candidates[j].echo = echo
            candidates[j].echoPartner = partner
        }
        markImages()
        judgeAgainstHeardSounds()
        markOnsetLeads()
    }

    /// Tells each candidate whether it leads onsets of its own (``SourceCandidate/leadsOnsets``):
    /// a candidate of the onset average does; a plain one that holds about as much new sound as
    /// any (``ExcessCandidateSearch/holdsNewSoundLikeTheMost(_:)``) does when the onset average
    /// has a peak at its lag, while new sound arrives. One that does not is told so only when it
    /// is weaker than the strongest candidate that does: the room's late reverberation is
    /// weaker than the direct sound it follows, and the strongest sound heard, if it leads no
    /// onsets, is no reflection of a weaker one (a two-tone siren 10 dB above a talker, whose
    /// syllables hold the onset average's highest peak). The rest cannot be told.
    private func markOnsetLeads() {
        for j in 0..<count { candidates[j].leadsOnsets = candidates[j].fromOnsets ? true : nil }
        guard let excessSearch, excessSearch.readOnsetPeaks() else { return }
        // (Beside a steady source the plain candidates left are the steady ones, none told.)
        var strongestLead = 0.0
        for j in 0..<firstExcessCandidate
        where !holdsLittleNewSound(j) && excessSearch.holdsNewSoundLikeTheMost(j) {
            let leads = excessSearch.leadsOnsets(lag: lags[j])
            candidates[j].leadsOnsets = leads
            if leads { strongestLead = max(strongestLead, candidates[j].strength) }
        }
        for j in 0..<firstExcessCandidate where candidates[j].leadsOnsets == false && candidates[j].strength >= strongestLead {
            candidates[j].leadsOnsets = nil
        }
    }

    /// Judges each steady candidate (holding little new sound) that no other test took for a
    /// copy against the steady direct sounds heard within the last second whose peaks have left
    /// the candidates (``HeardDirectSounds``): it is marked ``SourceCandidate/steadyReflection``
    /// and ``SourceCandidate/laterCopy`` when the cross terms and the level ripples name it the
    /// later copy of such a sound, strictly (``ReflectionImageTest/isLaterCopy(lag:of:least:)``).
    /// Then remembers this frame's direct sounds: the candidates neither marked nor echoes,
    /// strong enough to start a source (``MultiSourceTracker/birthStrength``).
    private func judgeAgainstHeardSounds() {
        guard count > 0, let images, images.canTest else { return }
        let separation = peakSearch.separation
        let background = images.backgroundHeight()
        for k in 0..<heard.count where heard.isSteady(k) {
            let a = heard.lag(k)
            var present = false
            for m in 0..<count where abs(lags[m] - a) < separation { present = true; break }
            guard !present else { continue }
            for j in 0..<firstExcessCandidate where !candidates[j].steadyReflection && holdsLittleNewSound(j) {
                let least = max(background, Float(ReflectionImageTest.imageRatio * candidates[j].strength))
                guard images.isLaterCopy(lag: lags[j], of: a, least: least) else { continue }
                candidates[j].steadyReflection = true
                candidates[j].laterCopy = true
            }
        }
        for j in 0..<count
        where !candidates[j].steadyReflection && candidates[j].echo < MultiSourceTracker.echoLimit
            && candidates[j].strength >= MultiSourceTracker.birthStrength {
            heard.remember(lag: lags[j], steady: j < firstExcessCandidate && holdsLittleNewSound(j))
        }
    }

    /// While a steady source is heard and new sound arrives: keeps the plain candidates that are
    /// steady sources, drops the others, and adds the excess average's peaks after them
    /// (``ExcessCandidateSearch``), each marked ``SourceCandidate/fromOnsets``.
    /// - Parameter total: the candidates' summed strength, recomputed.
    private func takeExcessCandidates(_ search: ExcessCandidateSearch, total: inout Double) {
        let steady = search.keepSteadyCandidates(count: count)
        guard steady != 0 else { return }
        var steadyCount = 0
        for j in 0..<count where steady & (1 << UInt64(j)) != 0 {
            candidates[steadyCount] = candidates[j]
            lags[steadyCount] = lags[j]
            lagIndices[steadyCount] = lagIndices[j]
            steadyCount += 1
        }
        let plainCount = count
        count = steadyCount
        firstExcessCandidate = steadyCount
        total = 0
        for j in 0..<count { total += candidates[j].strength }
        let found = search.findExcessPeaks(
            plainCount: plainCount, steadyLags: lags, steadyCount: steadyCount, room: candidates.count - steadyCount)
        for i in 0..<found {
            let peak = search.excessPeak(i)
            candidates[count] = SourceCandidate(azimuth: 0, strength: peak.height, share: 0)
            candidates[count].fromOnsets = true
            lags[count] = peak.lag
            lagIndices[count] = peak.index
            total += peak.height
            count += 1
        }
    }

    /// Whether plain candidate `j` holds little new sound (``ExcessCandidateSearch/holdsLittleNewSound(_:)``);
    /// every candidate does without the excess averages.
    package func holdsLittleNewSound(_ j: Int) -> Bool {
        excessSearch?.holdsLittleNewSound(j) ?? true
    }

    /// Marks ``SourceCandidate/steadyReflection`` (and ``SourceCandidate/laterCopy``) on each
    /// candidate that is a reflection of another (see ``ReflectionImageTest``): only between
    /// candidates alike in new sound. Two steady ones: the later copy by the level ripples, the
    /// weaker when they do not tell. Two holding new sound: only when the ripples tell, strictly.
    /// (An onset candidate's `strength` is its height in the onset average, so its least cross
    /// term, a share of it, is on that scale: the test of a talker's reflections beside a steady
    /// noise is the more cautious for it.)
    private func markImages() {
        guard count > 1, let images, images.canTest else { return }
        let background = images.backgroundHeight()
        for j in 1..<count {
            let little = j < firstExcessCandidate && holdsLittleNewSound(j)
            let strength = candidates[j].strength
            let least = max(background, Float(ReflectionImageTest.imageRatio * strength))
            for i in 0..<j where (i < firstExcessCandidate && holdsLittleNewSound(i)) == little {
                let cross = images.crossTerms(lagSum: lags[i] + lags[j], least: least)
                guard cross.height >= least else { continue }
                let first = images.firstCopy(lagA: lags[i], lagB: lags[j], farLag: cross.lag, strict: !little)
                let told = first != .untold
                // Two copies of new sound: only when the ripples tell which came first.
                guard little || told else { continue }
                // The copy the ripples name the later; the weaker when they do not tell.
                let image = first == .b ? i : j
                candidates[image].steadyReflection = true
                candidates[image].laterCopy = told
                break
            }
        }
    }


    /// Drops the candidates that are mostly sidelobes of stronger ones: a candidate stays when
    /// its height less the stronger candidates' sidelobes at its lag (their heights times the
    /// average's normalised point-spread function there) is at least `floor` and at least
    /// ``sidelobeResidual`` of its height. The point-spread function is that of the bins'
    /// averaged weights, which assumes every source has the same spectrum; the half-height
    /// rule leaves room for a broadband source next to a speech one.
    private func removeSidelobes(floor: Double, total: inout Double) {
        guard count > 1 else { return }
        let p0 = pointSpread.measurePeak()
        guard p0 > 0 else { return }
        var kept = 1
        for j in 1..<count {
            var height = candidates[j].strength
            for i in 0..<kept {
                height -= candidates[i].strength * pointSpread.sidelobe(at: lags[j] - lags[i]) / p0
            }
            if height >= floor && height >= Self.sidelobeResidual * candidates[j].strength {
                candidates[kept] = candidates[j]
                lagIndices[kept] = lagIndices[j]
                lags[kept] = lags[j]
                kept += 1
            }
        }
        count = kept
        total = 0
        for j in 0..<count { total += candidates[j].strength }
    }


    /// The correlation coefficient over the history of the frames' values at lag indices `p`
    /// and `q`, each smoothed by [1 2 1]/4 like the average; 0 with fewer than
    /// ``echoMinimumFrames`` frames or no variation.
    private func covariation(_ p: Int, _ q: Int, in history: AlignedFloats) -> Double {
        guard historyCount >= Self.echoMinimumFrames else { return 0 }
        let width = 2 * searchLag + 1
        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        let h = history.baseAddress
        for f in 0..<historyCount {
            let row = h + f * width
            let x = Double(smoothedValue(row, p, width)), y = Double(smoothedValue(row, q, width))
            sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y
        }
        let n = Double(historyCount)
        let vx = sxx - sx * sx / n, vy = syy - sy * sy / n
        guard vx > 0, vy > 0 else { return 0 }
        return (sxy - sx * sy / n) / (vx * vy).squareRoot()
    }

    @inline(__always)
    private func smoothedValue(_ row: UnsafeMutablePointer<Float>, _ i: Int, _ width: Int) -> Float {
        let lo = i > 0 ? row[i - 1] : row[i], hi = i < width - 1 ? row[i + 1] : row[i]
        return 0.25 * (lo + hi) + 0.5 * row[i]
    }

}
