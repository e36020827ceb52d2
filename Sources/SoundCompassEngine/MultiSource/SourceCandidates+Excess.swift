/// The candidates that a steady sound hides, read from the excess averages (``ExcessAverage``).
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
/// average. Then, while a **steady source** is heard (a plain candidate whose height in the
/// new-sound average, read as the plain one is, is below ``steadyRatio`` of its plain height)
/// and new sound is arriving (``ExcessAverage/recentNewSoundShare`` at least
/// ``recentShareRatio`` of ``ExcessAverage/newSoundShare``, and that at least
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
extension SourceCandidateFinder {
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
    /// (the candidates of one average keep ``separation``, 2.5 samples for a 15 cm pair at
    /// 16 kHz, from each other). The steady source is all but absent from the excess average,
    /// and only its leak there sits on its lag (within about a sample); two distinct local
    /// maxima are at least two lag steps apart. A talker at ±90° beside a noise 40° nearer the
    /// front lies 1.6 samples from it at 16 kHz.
    static let steadySeparationSamples = 1.0

    /// Whether candidate `j` (of the plain average) holds little new sound: its height in the
    /// new-sound average, read as the plain one is, below ``steadyRatio`` of its plain height.
    /// Always true without the excess averages.
    func isSteady(_ j: Int) -> Bool {
        guard let excess else { return true }
        let i = lagIndices[j]
        return smoothedAt(i, excess.newSoundAverage.baseAddress) < Float(Self.steadyRatio) * smoothed.baseAddress[i]
    }

    /// An average at lags `−searchLag…searchLag` read at index `i` as the plain one is searched:
    /// smoothed by [1 2 1]/4, the two ends as they are.
    @inline(__always)
    func smoothedAt(_ i: Int, _ average: UnsafePointer<Float>) -> Float {
        i > 0 && i < 2 * searchLag ? 0.25 * (average[i - 1] + average[i + 1]) + 0.5 * average[i] : average[i]
    }

    /// Replaces the plain candidates that are no steady source by the excess average's peaks
    /// while a steady source is heard and new sound arrives (see the extension's notes).
    /// - Parameter total: the sum of the candidates' strengths, recomputed.
    func addExcessCandidates(total: inout Double) {
        guard let excess, excess.newSoundShare >= Self.leastExcessShare,
              excess.recentNewSoundShare >= Self.recentShareRatio * excess.newSoundShare,
              excess.onsetShare > 0 else { return }
        let K = searchLag
        // Only while a steady source is heard: a candidate of the plain average that the excess
        // average has mostly lost. The others are dropped: the excess average reads them.
        var steadyCount = 0
        for j in 0..<count where isSteady(j) {
            candidates[steadyCount] = candidates[j]
            lags[steadyCount] = lags[j]
            lagIndices[steadyCount] = lagIndices[j]
            steadyCount += 1
        }
        guard steadyCount > 0 else { return }
        let plainCount = count
        count = steadyCount
        firstExcessCandidate = steadyCount
        total = 0
        for j in 0..<count { total += candidates[j].strength }
        // Per unit of the onsets' weight: a peak is the share of those bins its source holds, as
        // a plain candidate's is of all bins.
        let onset = excess.onsetAverage.baseAddress, y = excess.smoothed.baseAddress
        let unit = Float(1 / excess.onsetShare)
        var highest: Float = 0
        for i in 0...(2 * K) {
            y[i] = unit * smoothedAt(i, onset)
            if i > 0 && i < 2 * K && y[i] > highest { highest = y[i] }
        }
        let floor = Float(max(Self.absoluteFloor, Self.excessRelativeFloor * Double(highest)))
        guard highest >= floor else { return }
        let limit = Double(K) > maxLag + 0.5 ? maxLag + 0.5 : Double(K)
        // The point-spread function of this frame's bin weights (`removeSidelobes` groups them
        // only when the plain average had two candidates or more).
        if plainCount < 2 {
            groupBinWeights()
            pointSpreadPeak = sidelobe(at: 0)
        }
        let p0 = pointSpreadPeak
        // The excess peaks strongest first, each the separation away from the stronger ones
        // (kept in `excessLags`/`excessHeights`, whether or not they are taken), less the
        // sidelobes of the stronger ones.
        var found = 0
        while found < excessLags.count && count < candidates.count {
            guard let peak = strongestSeparatedPeak(in: y, floor: floor, limit: limit,
                                                    taken: excessLags, takenCount: found) else { break }
            var height = peak.height
            if p0 > 0 {
                for j in 0..<found { height -= excessHeights[j] * sidelobe(at: peak.lag - excessLags[j]) / p0 }
            }
            excessLags[found] = peak.lag
            excessHeights[found] = peak.height
            found += 1
            guard height >= Double(floor), height >= Self.sidelobeResidual * peak.height else { continue }
            // Only a steady source's leak sits on its own lag.
            var nearSteady = false
            for j in 0..<steadyCount where abs(lags[j] - peak.lag) < Self.steadySeparationSamples {
                nearSteady = true
                break
            }
            if nearSteady { continue }
            candidates[count] = SourceCandidate(azimuth: 0, strength: peak.height, share: 0)
            lags[count] = peak.lag
            lagIndices[count] = peak.index
            total += peak.height
            count += 1
        }
    }
}
