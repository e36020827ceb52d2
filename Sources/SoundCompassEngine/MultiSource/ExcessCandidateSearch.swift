/// The candidates that a steady sound hides, read from the excess averages (``ExcessAverage``): a
/// component of ``SourceCandidateFinder`` that owns those averages, its steady marks and its
/// scratch; the finder asks it which plain candidates to keep and which excess peaks to add.
///
/// A steady source (a fan, a television, traffic) holds its bins in every frame, so its peak in
/// the plain averaged correlation is as high as the share of the bins it holds, all the time. A
/// talker beside it holds only the bins and frames where it is louder: its peak sits low on the
/// steady one's flank, or merges with it, or with one of its steady reflections, into one peak
/// between them (a talker at +10° beside a noise at −30° in a room read −5°: the noise's floor
/// reflection lies at −8°). In the excess averages (of the bins above their stationary floor,
/// and of those at an onset) the steady source and its reflections are all but absent, and the
/// bins where the talker dominates vote for the talker alone.
///
/// ``SourceCandidateFinder/find(lowFrequencyShare:)`` first takes the candidates of the plain
/// average (``markSteadyCandidates(count:candidates:lagIndices:smoothed:)`` then judges them). Then, while a **steady source** is heard (a plain candidate that holds little new
/// sound: see ``markSteadyCandidates(count:candidates:lagIndices:smoothed:)``) and new sound is arriving
/// (``ExcessAverage/recentNewSoundShare`` at least ``recentShareRatio`` of
/// ``ExcessAverage/newSoundShare``, and that at least
/// ``leastExcessShare``), the steady candidates stay and the other sources are read from the
/// onset average instead: the plain candidates that are no steady source are dropped, and the
/// onset average's peaks are taken, strongest first, by the plain average's rules among
/// themselves (floors, prominence, separation, sidelobes), at least ``excessRelativeFloor`` of
/// the highest, and at least ``steadySeparationSamples`` from every steady source (which the
/// onset average has all but lost: only its leak sits on its lag). Their strength is their
/// onset height per unit of ``ExcessAverage/onsetShare`` (the share of the onset bins the
/// source holds), and their echo is measured among themselves on the onset history (a new
/// sound cannot be a reflection of a steady one).
///
/// Without a steady source, or while nothing new is arriving, the candidates are the plain
/// average's, as they would be without the excess averages.
package final class ExcessCandidateSearch {
    /// Least averaged share of the frames' weight in the new bins for the excess average to be
    /// searched: below it nothing new is heard.
    static let leastExcessShare = 0.01
    /// The excess average is searched only while the share of the new bins over the last
    /// ``ExcessAverage/recentWindowSeconds`` is at least this part of the averaged share: new
    /// sound is arriving, not only remembered. A noise source that starts (a sweep in README's
    /// `test.wav`) holds every bin above the floor learned before it, until the floor catches up
    /// with it (``StationaryBinFloor/windowSeconds``); then its new bins cease at once, and
    /// without this test the excess average's last peak, where the moving source had been,
    /// stayed a candidate while the average faded: 55–61 ghost sources instead of 0 with
    /// `--source-window 0.1`.
    static let recentShareRatio = 0.5
    /// A candidate of the plain average whose height in the excess average is below this share
    /// of its plain height is a steady source. A talker keeps much of its peak there, but only
    /// the bins of its syllables that stand 12 dB above the floors pass, so at 0 dB beside a
    /// noise its excess peak can be half its plain one. On the steady-noise room sweep (RT60
    /// 0.3 s, noise as loud as the talker), 0.15 / 0.25 / 0.35 / 0.4 gave the talker within
    /// 10° in 80 / 85 / 87 / 85 % of its frames and the noise's worst layout 58 / 56 / 88 / 90 %.
    static let steadyRatio = 0.35
    /// Lowest height of an excess candidate relative to the excess average's highest peak
    /// (the plain average's ``relativeFloor`` is 0.1): the excess average's lobes are wide
    /// (its bins are few), and 0.1 let them through as false sources.
    static let excessRelativeFloor = 0.5
    /// Least distance of an excess candidate from a steady source's plain candidate, samples
    /// (the candidates of one average keep their separation, 2.5 samples for a 15 cm pair at
    /// 16 kHz, from each other). The steady source is all but absent from the excess average,
    /// and only its leak there sits on its lag (within about a sample); two distinct local
    /// maxima are at least two lag steps apart. A talker at ±90° beside a noise 40° nearer the
    /// front lies 1.6 samples from it at 16 kHz.
    static let steadySeparationSamples = 1.0

    /// A plain candidate whose new-sound ratio (``newSoundRatio(_:_:)``) times this is at most
    /// another plain candidate's holds clearly less new sound than that one, and is steady when
    /// it is also strong (``relativeSteadyStrength``). In a reverberant room a talker's
    /// reverberation lifts bins above their stationary floor while it speaks, the steady
    /// source's bins too, so that source's ratio rises above ``steadyRatio``: at RT60 0.6 s some
    /// candidate stayed below it in only 76 % of the frames where new sound arrived, against
    /// 96 % at 0.3 s. The talker's own peak keeps the higher ratio. On the steady-noise room
    /// sweep (`evaluate.py --steady`), the relative test alone (without the strength condition
    /// and without the rule for the newest candidate of ``markSteadyCandidates(count:candidates:lagIndices:smoothed:)``) with
    /// 1.15 / 1.2 / 1.3 / 1.4 / 1.6 / 2 gave the talker within 10° at RT60 0.6 s, 0 dB in
    /// 59.6 / 59.2 / 58.6 / 58 / 55 / 53 % of its frames (53 % is the absolute test's alone),
    /// and false sources at 0.3 s, −5 dB of 10.1 / 9.7 / 8.2 % for the first three (9.4 % with
    /// the absolute test alone). The whole rule with 1.3: 60.3 % and 8.5 %.
    static let relativeSteadyRatio: Float = 1.3
    /// The relative test (``relativeSteadyRatio``) judges only a candidate at least this share of
    /// the strongest plain candidate's strength: a steady source as loud as a talker holds its
    /// bins in every frame, so its plain peak is among the highest, while a talker's
    /// reflection, which holds less new sound than the direct sound, is weaker than it. Without
    /// this condition a lone talker at RT60 0.6 s had its reflections taken for steady sources:
    /// false sources among all listed 24 → 30 %; with 0.7 its records are unchanged.
    static let relativeSteadyStrength = 0.7
    /// The relative test (``relativeSteadyRatio``) judges only a candidate whose new-sound ratio
    /// is below this: one that holds this much new sound is no steady source, whatever the
    /// others hold. Two sources that both change (a talker beside a two-tone siren, 10 dB
    /// louder, in TestSignals' synthetic rooms, `SourceLabelTests`) differ in new sound too, and
    /// without this limit the talker was often taken for the steady one: its own class in its
    /// top three in 49 of 61 patches instead of 56 of 65. With 0.7 it is 56 of 63, and the
    /// steady-noise room sweep is unchanged; with 0.5 the talker at RT60 0.6 s fell from 60.3 %
    /// to 59.0 %.
    static let relativeSteadyLimit: Float = 0.7

    /// A plain candidate leads onsets (``leadsOnsets(lag:)``) when the onset average has a local
    /// maximum within ``onsetLeadSamples`` of its lag at least this share of the onset average's
    /// highest one. On `evaluate.py --multi` (RT60 0.6 s) the talkers' own candidates led in
    /// 42–100 % of their frames (the weaker of three talkers least), a lone talker's mirror
    /// ghost at the other end-fire in none; 0.5 kept fewer ghosts but cost the weaker of three
    /// talkers (see Docs/Accuracy.md, "A source leads onsets of its own").
    static let onsetLeadShare: Float = 0.4
    /// Farthest distance of that maximum from the candidate's lag, samples: half the peak
    /// search's least separation (2.5 samples).
    static let onsetLeadSamples = 1.25
    /// The excess averages: of the bins above their stationary floor, and of those at an onset.
    package let averages: ExcessAverage
    /// The peak search the plain average is read with (its lag window and separation).
    private let peakSearch: LagPeakSearch
    /// The finder's point-spread function (shared: its bin weights are the finder's).
    private let pointSpread: PointSpread
    /// Scratch of ``findExcessPeaks(plainCount:steadyLags:steadyCount:room:)``: the excess peaks
    /// seen so far, strongest first, and their heights.
    private var excessLags: [Double]
    private var excessHeights: [Double]
    /// What ``findExcessPeaks(plainCount:steadyLags:steadyCount:room:)`` found: each excess
    /// candidate's lag, peak index and height.
    private var foundLags: [Double]
    private var foundIndices: [Int]
    private var foundHeights: [Double]
    /// Bit `j`: plain candidate `j` is a steady source (see ``markSteadyCandidates(count:candidates:lagIndices:smoothed:)``).
    private var steadyMask: UInt64 = 0
    /// Bit `j`: plain candidate `j` holds little new sound (the steady sources, and the
    /// candidate with the highest ratio if it is below ``steadyRatio``).
    private var littleNewSoundMask: UInt64 = 0
    /// Scratch: each plain candidate's new-sound ratio.
    private var newSoundRatios: [Float]
    /// The highest of the plain candidates' new-sound ratios at the last
    /// ``markSteadyCandidates(count:candidates:lagIndices:smoothed:)`` (0: none).
    private var highestNewSoundRatio: Float = 0
    /// The highest local maximum within the lag window of the onset average smoothed by
    /// [1 2 1]/4 (into ``ExcessAverage/smoothed``), as ``readOnsetPeaks()`` found it (0: none).
    private var onsetPeakHeight: Float = 0
    /// The reading of an excess peak beside a steady source, unsmoothed.
    private let besideSteady = BesideSteadySearch()
    private var searchLag: Int { peakSearch.searchLag }

    /// - Parameters:
    ///   - averages: the excess averages the candidates are read from.
    ///   - capacity: most candidates per frame (at most 64: the masks' bits).
    ///   - peakSearch: the plain average's peak search.
    ///   - pointSpread: the finder's point-spread function.
    package init(averages: ExcessAverage, capacity: Int, peakSearch: LagPeakSearch, pointSpread: PointSpread) {
        self.averages = averages
        self.peakSearch = peakSearch
        self.pointSpread = pointSpread
        self.excessLags = [Double](repeating: 0, count: max(1, capacity))
        self.excessHeights = [Double](repeating: 0, count: max(1, capacity))
        self.newSoundRatios = [Float](repeating: 0, count: max(1, capacity))
        self.foundLags = [Double](repeating: 0, count: max(1, capacity))
        self.foundIndices = [Int](repeating: 0, count: max(1, capacity))
        self.foundHeights = [Double](repeating: 0, count: max(1, capacity))
    }

    /// The new-sound average's height at lag index `i`, read as the plain one is, over the plain
    /// average's `plain` there (0 where that is not positive).
    private func newSoundRatio(_ i: Int, plain: Float) -> Float {
        plain > 0 ? smoothedAt(i, averages.newSoundAverage.baseAddress) / plain : 0
    }

    /// Marks in ``steadyMask`` the plain candidates that hold little new sound, the **steady
    /// sources**:
    /// - a candidate whose new-sound ratio (its height in the new-sound average over its plain
    ///   height) is below ``steadyRatio``;
    /// - a candidate at least ``relativeSteadyStrength`` of the strongest plain candidate, with a
    ///   ratio below ``relativeSteadyLimit``, whose ratio times ``relativeSteadyRatio`` is at
    ///   most the highest candidate's;
    /// - but never the candidate with the highest ratio when that is at least
    ///   ``relativeSteadyRatio`` times a steady candidate's. At RT60 0.6 s the stationary floor
    ///   rises under a talker's continuing reverberant speech (its 1.6 s minimum finds no pause
    ///   the reverberation has not filled), so the talker's own ratio sank to 0.15–0.3, below
    ///   ``steadyRatio``, beside a noise at 0.05–0.2: taken for a steady source it stayed a
    ///   plain candidate, which the echo test blamed on the noise (their peaks fall and rise
    ///   together with the frames' coherence), and the tracker dropped it.
    ///
    /// Also marks in ``littleNewSoundMask`` the candidates of the first two kinds, before the
    /// third rule (that is, the steady sources and the candidate with the highest ratio if its
    /// ratio is below ``steadyRatio``): the steady-reflection test judges these. (Without the
    /// excess averages, the finder counts every candidate as both.)
    /// - Parameters:
    ///   - count: the plain candidates.
    ///   - candidates: the plain candidates (their strengths).
    ///   - lagIndices: their peaks' indices in the averages.
    ///   - smoothed: the plain average smoothed by [1 2 1]/4.
    package func markSteadyCandidates(
        count: Int, candidates: [SourceCandidate], lagIndices: [Int], smoothed: UnsafePointer<Float>
    ) {
        steadyMask = 0
        var highestRatio: Float = 0, newest = -1, strongest = 0.0
        for j in 0..<count {
            let ratio = newSoundRatio(lagIndices[j], plain: smoothed[lagIndices[j]])
            newSoundRatios[j] = ratio
            if ratio > highestRatio { highestRatio = ratio; newest = j }
            strongest = max(strongest, candidates[j].strength)
        }
        highestNewSoundRatio = highestRatio
        var lowestSteadyRatio = Float.infinity
        for j in 0..<count {
            let ratio = newSoundRatios[j]
            let steady = ratio < Float(Self.steadyRatio)
                || (candidates[j].strength >= Self.relativeSteadyStrength * strongest
                    && ratio < Self.relativeSteadyLimit && ratio * Self.relativeSteadyRatio <= highestRatio)
            guard steady else { continue }
            steadyMask |= 1 << UInt64(j)
            if j != newest { lowestSteadyRatio = min(lowestSteadyRatio, ratio) }
        }
        littleNewSoundMask = steadyMask
        if newest >= 0 && lowestSteadyRatio * Self.relativeSteadyRatio <= highestRatio {
            steadyMask &= ~(1 << UInt64(newest))
        }
    }

    /// Whether new sound is arriving, so that the excess average is searched: the averaged share
    /// of the new bins at least ``leastExcessShare``, the recent share at least
    /// ``recentShareRatio`` of it, and onsets heard.
    package var hearsNewSound: Bool {
        Self.hearsNewSound(
            newSoundShare: averages.newSoundShare, recentNewSoundShare: averages.recentNewSoundShare,
            onsetShare: averages.onsetShare)
    }

    /// The test of ``hearsNewSound`` on given averaged shares (``OnsetBearing`` reads its own).
    package static func hearsNewSound(newSoundShare: Double, recentNewSoundShare: Double, onsetShare: Double) -> Bool {
        newSoundShare >= leastExcessShare && recentNewSoundShare >= recentShareRatio * newSoundShare && onsetShare > 0
    }

    /// Whether plain candidate `j` holds about as much new sound as the plain candidate holding
    /// the most: its new-sound ratio times ``relativeSteadyRatio`` above the highest. Only such a
    /// candidate's onsets are judged (``leadsOnsets(lag:)``): one holding clearly less is partly
    /// steady, and a steady sound has no onsets to lead. At RT60 0.6 s a steady noise that the
    /// steady test misses (the talker's reverberation lifts its bins above their floors) held
    /// 0.57–0.76 of the talker's ratio, a talker's mirror ghost 0.63–0.96.
    package func holdsNewSoundLikeTheMost(_ j: Int) -> Bool {
        newSoundRatios[j] * Self.relativeSteadyRatio > highestNewSoundRatio
    }

    /// Reads the onset average's peaks for ``leadsOnsets(lag:)``: smooths it by [1 2 1]/4 into
    /// ``ExcessAverage/smoothed`` (the scratch of ``findExcessPeaks(plainCount:steadyLags:steadyCount:room:)``,
    /// which has been read by then) and finds its highest local maximum within the lag window.
    /// False, and no candidate can be judged, while no new sound arrives (``hearsNewSound``) or
    /// the onset average has no positive peak.
    package func readOnsetPeaks() -> Bool {
        onsetPeakHeight = 0
        guard hearsNewSound else { return false }
        let K = searchLag, limit = peakSearch.limit
        let onset = averages.onsetAverage.baseAddress, y = averages.smoothed.baseAddress
        for i in 0...(2 * K) { y[i] = smoothedAt(i, onset) }
        for i in 1..<(2 * K) where abs(Double(i - K)) <= limit && y[i] > y[i - 1] && y[i] >= y[i + 1] {
            onsetPeakHeight = max(onsetPeakHeight, y[i])
        }
        return onsetPeakHeight > 0
    }

    /// Whether a plain candidate at `lag` (samples) leads onsets of its own: the onset average
    /// read by ``readOnsetPeaks()`` has a local maximum within ``onsetLeadSamples`` of it, at
    /// least ``onsetLeadShare`` of the highest. A talker's syllables start in its direct sound,
    /// whose bins rise first; a peak of the late reverberation (a mirror ghost at the other
    /// end-fire) has no onsets of its own.
    package func leadsOnsets(lag: Double) -> Bool {
        guard onsetPeakHeight > 0 else { return false }
        let K = searchLag, y = averages.smoothed.baseAddress
        let least = Self.onsetLeadShare * onsetPeakHeight
        let lo = max(1, Int((lag - Self.onsetLeadSamples).rounded(.up)) + K)
        let hi = min(2 * K - 1, Int((lag + Self.onsetLeadSamples).rounded(.down)) + K)
        guard lo <= hi else { return false }
        for i in lo...hi where y[i] >= least && y[i] > y[i - 1] && y[i] >= y[i + 1] { return true }
        return false
    }

    /// Whether candidate `j` (of the plain average) holds little new sound: a steady source, or
    /// the candidate with the highest new-sound ratio when that ratio is below ``steadyRatio``
    /// (see ``markSteadyCandidates(count:candidates:lagIndices:smoothed:)``). The steady-reflection
    /// test judges these.
    package func holdsLittleNewSound(_ j: Int) -> Bool { littleNewSoundMask & (1 << UInt64(j)) != 0 }

    /// An average at lags `−searchLag…searchLag` read at index `i` as the plain one is searched:
    /// smoothed by [1 2 1]/4, the two ends as they are.
    @inline(__always)
    private func smoothedAt(_ i: Int, _ average: UnsafePointer<Float>) -> Float {
        i > 0 && i < 2 * searchLag ? 0.25 * (average[i - 1] + average[i + 1]) + 0.5 * average[i] : average[i]
    }

    /// Keeps the steady sources among the plain candidates: returns bit `j` set for each plain
    /// candidate `j` that is a steady source, and renumbers the marks (``holdsLittleNewSound(_:)``)
    /// for the list the finder keeps, the steady candidates first in their order. Called while
    /// new sound arrives (``hearsNewSound``), before ``findExcessPeaks(plainCount:steadyLags:steadyCount:room:)``.
    /// - Parameter count: the plain candidates.
    /// - Returns: the steady candidates' bits (0: none, and the excess average is not searched).
    package func keepSteadyCandidates(count: Int) -> UInt64 {
        let steady = steadyMask, little = littleNewSoundMask
        steadyMask = 0
        littleNewSoundMask = 0
        var kept = 0
        for j in 0..<count where steady & (1 << UInt64(j)) != 0 {
            steadyMask |= 1 << UInt64(kept)
            littleNewSoundMask |= (little >> UInt64(j) & 1) << UInt64(kept)
            newSoundRatios[kept] = newSoundRatios[j]
            kept += 1
        }
        return steady & (count >= 64 ? ~0 : (1 << UInt64(count)) - 1)
    }

    /// The excess candidates found by the last ``findExcessPeaks(plainCount:steadyLags:steadyCount:room:)``,
    /// strongest first: lag (samples), peak index in the averages, and strength (the onset
    /// height per unit of ``ExcessAverage/onsetShare``).
    package func excessPeak(_ i: Int) -> (lag: Double, index: Int, height: Double) {
        (foundLags[i], foundIndices[i], foundHeights[i])
    }

    /// Finds the other sources in the onset average while a steady source is heard and new sound
    /// arrives (see the type's notes): its peaks strongest first, by the plain average's rules
    /// among themselves, less the stronger ones' sidelobes, off every steady source's lag.
    /// - Parameters:
    ///   - plainCount: the plain average's candidates (with fewer than two the point-spread
    ///     function is measured here).
    ///   - steadyLags: the steady candidates' lags first, samples.
    ///   - steadyCount: the steady candidates (at least one).
    ///   - room: most excess candidates to take.
    /// - Returns: how many were found (read each with ``excessPeak(_:)``).
    package func findExcessPeaks(plainCount: Int, steadyLags lags: [Double], steadyCount: Int, room: Int) -> Int {
        let excess = averages
        let K = searchLag
        // Per unit of the onsets' weight: a peak is the share of those bins its source holds, as
        // a plain candidate's is of all bins.
        let onset = excess.onsetAverage.baseAddress, y = excess.smoothed.baseAddress
        let unit = Float(1 / excess.onsetShare)
        var highest: Float = 0
        for i in 0...(2 * K) {
            y[i] = unit * smoothedAt(i, onset)
            if i > 0 && i < 2 * K && y[i] > highest { highest = y[i] }
        }
        let floor = Float(max(SourceCandidateFinder.absoluteFloor, Self.excessRelativeFloor * Double(highest)))
        guard highest >= floor else { return 0 }
        let limit = peakSearch.limit
        // The point-spread function of this frame's bin weights (`removeSidelobes` groups them
        // only when the plain average had two candidates or more).
        if plainCount < 2 { pointSpread.measurePeak() }
        let p0 = pointSpread.peak
        // The excess peaks strongest first, each the separation away from the stronger ones
        // (kept in `excessLags`/`excessHeights`, whether or not they are taken), less the
        // sidelobes of the stronger ones.
        var found = 0, taken = 0
        while found < excessLags.count && taken < room {
            guard let peak = peakSearch.strongestSeparatedPeak(in: y, floor: floor, limit: limit,
                                                               taken: excessLags, takenCount: found) else { break }
            var height = peak.height
            if p0 > 0 {
                for j in 0..<found { height -= excessHeights[j] * pointSpread.sidelobe(at: peak.lag - excessLags[j]) / p0 }
            }
            excessLags[found] = peak.lag
            excessHeights[found] = peak.height
            found += 1
            guard height >= Double(floor), height >= SourceCandidateFinder.sidelobeResidual * peak.height else { continue }
            // Beside a steady source the smoothed peak may be the new sound's merged with the
            // steady source's leak: read between the lags, unsmoothed.
            var lag = peak.lag, index = peak.index
            if let unmerged = besideSteady.lag(
                besideSteady: peak.lag, lags: lags, steadyCount: steadyCount, separation: peakSearch.separation, limit: limit,
                excess: excess) {
                lag = unmerged
                index = Int(unmerged.rounded()) + K
            }
            // Only a steady source's leak sits on its own lag.
            if BesideSteadySearch.hasSteadyLag(
                within: Self.steadySeparationSamples, of: lag, lags: lags, steadyCount: steadyCount) { continue }
            foundLags[taken] = lag
            foundIndices[taken] = index
            foundHeights[taken] = peak.height
            taken += 1
        }
        return taken
    }
}
