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
}

/// The directions heard in the last fraction of a second: the peaks of the frames' GCC-PHAT
/// correlations averaged over ``AnalysisConfiguration/sourceWindowSeconds``.
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
/// A coincident pair has no time difference: its one candidate is the frame's own estimate
/// (see ``MultiSourceTracker``).
///
/// Life cycle: `init` allocates; ``update(gccPhat:correlated:levelDBFS:aboveGate:)`` and
/// ``find(spectra:)`` never allocate.
package final class SourceCandidateFinder {
    /// Lowest height of a candidate's peak in the averaged correlation.
    package static let absoluteFloor = 0.05
    /// Lowest height of a candidate relative to the highest peak.
    package static let relativeFloor = 0.2
    /// Least prominence of a candidate's peak (see `prominence(at:)`) relative to its height.
    package static let relativeProminence = 0.35
    /// Smallest distance between two candidates, samples.
    package static let minimumSeparationSamples = 2.5

    private let configuration: AnalysisConfiguration
    /// Half-width of the averaged lag window, whole samples (the estimator's ``GCCPHAT/searchLag``).
    private let searchLag: Int
    /// The largest physical lag, samples.
    private let maxLag: Double
    private let fftSize: Int
    /// Share of the newest frame in the average: hop / window.
    private let smoothing: Float
    /// The averaged correlation at lags `−searchLag…searchLag` (index `lag + searchLag`).
    private let average: AlignedFloats
    /// The average smoothed by [1 2 1]/4, where the peaks are searched.
    private let smoothed: AlignedFloats
    /// Average linear power of the frames (mean of both channels, re full scale).
    private var averagePower = 0.0
    private let separation: Double
    /// The binaural model's low-frequency share of each bin (nil for the other models).
    private let binShares: AlignedFloats?

    /// The candidates found by the last ``find(spectra:)``, strongest first; `count` of them
    /// are valid.
    package private(set) var candidates: [SourceCandidate]
    /// Number of valid ``candidates``.
    package private(set) var count = 0
    /// The averaged frame level, dBFS.
    package var averageLevelDBFS: Double { 10 * log10(averagePower + ChannelLevels.powerFloor) }

    /// - Parameters:
    ///   - configuration: the analysis settings.
    ///   - gccPhat: the broadband estimator whose correlations are averaged.
    ///   - capacity: most candidates kept per frame.
    package init(configuration: AnalysisConfiguration, gccPhat: GCCPHAT, capacity: Int) {
        self.configuration = configuration
        self.searchLag = gccPhat.searchLag
        self.maxLag = gccPhat.maxLagSamples
        self.fftSize = gccPhat.fftSize
        self.smoothing = Float(min(1, configuration.hopDuration / configuration.sourceWindowSeconds))
        self.average = AlignedFloats(count: 2 * gccPhat.searchLag + 1)
        self.smoothed = AlignedFloats(count: 2 * gccPhat.searchLag + 1)
        self.separation = max(Self.minimumSeparationSamples, 0.1 * gccPhat.maxLagSamples)
        self.binShares = configuration.array.kind == .binaural
            ? configuration.array.binLowFrequencyShares(fftSize: gccPhat.fftSize, sampleRate: configuration.sampleRate)
            : nil
        self.candidates = [SourceCandidate](
            repeating: SourceCandidate(azimuth: 0, strength: 0, share: 0), count: max(1, capacity))
    }

    /// Forgets the average.
    package func reset() {
        average.zero()
        averagePower = 0
        count = 0
    }

    /// Adds a frame to the average.
    /// - Parameters:
    ///   - gccPhat: the estimator, right after its `estimate` of this frame.
    ///   - correlated: true when that estimate found a correlation (its peak height is above
    ///     0); otherwise the frame adds nothing (the average only decays).
    ///   - levelDBFS: the frame's level.
    ///   - aboveGate: whether the frame is louder than the silence gate; a quieter one adds
    ///     nothing.
    package func update(gccPhat: GCCPHAT, correlated: Bool, levelDBFS: Double, aboveGate: Bool) {
        let a = smoothing, K = searchLag, n = fftSize
        let avg = average.baseAddress
        let counts = correlated && aboveGate
        let c = gccPhat.correlation.baseAddress
        for i in 0...(2 * K) {
            let x: Float = counts ? c[(i - K + n) % n] : 0
            avg[i] += a * (x - avg[i])
        }
        let power = counts ? pow(10, levelDBFS / 10) : 0
        averagePower += Double(a) * (power - averagePower)
    }

    /// Finds the candidates of the current average into ``candidates``.
    /// - Parameter spectra: the frame's spectra (binaural: for the low-frequency share).
    package func find(spectra: FrameSpectra) {
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
        let limit = Double(K) > maxLag + 0.5 ? maxLag + 0.5 : Double(K)
        var total = 0.0
        while count < candidates.count {
            var best = -1
            var bestValue = floor
            for i in 1..<(2 * K) {
                let v = y[i]
                guard v >= bestValue, v > y[i - 1], v >= y[i + 1] else { continue }
                let lag = Double(i - K)
                guard abs(lag) <= limit, prominence(at: i) >= Float(Self.relativeProminence) * v else { continue }
                var clear = true
                for j in 0..<count where abs(candidateLag(j) - lag) < separation {
                    clear = false
                    break
                }
                if clear { best = i; bestValue = v }
            }
            guard best >= 0 else { break }
            let y0 = Double(y[best - 1]), y1 = Double(y[best]), y2 = Double(y[best + 1])
            let d = y0 - 2 * y1 + y2
            let offset = d < 0 ? max(-0.5, min(0.5, 0.5 * (y0 - y2) / d)) : 0
            // The lag is stored in `share` until the azimuths are filled in below.
            candidates[count] = SourceCandidate(azimuth: 0, strength: y1, share: Double(best - K) + offset)
            total += y1
            count += 1
        }
        let model = configuration.array
        let share = binShares.map { spectra.lowFrequencyShare(shares: $0.baseAddress, bins: 1...(fftSize / 2 - 1)) }
        for j in 0..<count {
            let delay = candidates[j].share / configuration.sampleRate
            let lateral = share.map { model.lateral(delay: delay, lowFrequencyShare: $0) } ?? model.lateral(delay: delay)
            candidates[j].azimuth = asin(max(-1, min(1, lateral))) * 180 / Double.pi
            candidates[j].share = total > 0 ? candidates[j].strength / total : 0
        }
    }

    /// A coincident pair's candidate: the frame's own estimate, when the frame is active and
    /// its confidence at least 0.1 (no candidate otherwise). The level average is kept by
    /// ``update(gccPhat:correlated:levelDBFS:aboveGate:)`` as for the other models.
    /// - Parameters:
    ///   - azimuth: the frame's azimuth, degrees.
    ///   - confidence: the frame's confidence, 0…1.
    ///   - active: whether the frame is active.
    package func findSingle(azimuth: Double, confidence: Double, active: Bool) {
        count = 0
        guard active, confidence >= 0.1 else { return }
        candidates[0] = SourceCandidate(azimuth: azimuth, strength: confidence, share: 1)
        count = 1
    }

    /// How far the smoothed average's peak at index `i` stands out: its height over the higher
    /// of the lowest points on each side before higher ground. A side that reaches the window's
    /// edge without higher ground does not count (a source near ±90° sits close to the edge);
    /// the highest peak stands out by its height over the lowest point.
    private func prominence(at i: Int) -> Float {
        let y = smoothed.baseAddress, v = y[i], last = 2 * searchLag
        var leftLow = v, rightLow = v
        var j = i - 1
        while j >= 0 && y[j] <= v { leftLow = min(leftLow, y[j]); j -= 1 }
        let leftBounded = j >= 0
        j = i + 1
        while j <= last && y[j] <= v { rightLow = min(rightLow, y[j]); j += 1 }
        let rightBounded = j <= last
        switch (leftBounded, rightBounded) {
        case (true, true): return v - max(leftLow, rightLow)
        case (true, false): return v - leftLow
        case (false, true): return v - rightLow
        case (false, false): return v - min(leftLow, rightLow)
        }
    }

    /// The lag of candidate `j` while ``find(spectra:)`` runs (kept in `share`).
    private func candidateLag(_ j: Int) -> Double { candidates[j].share }
}
