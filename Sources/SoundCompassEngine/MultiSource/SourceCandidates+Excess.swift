/// The excess correlation of ``SourceCandidateFinder``: the candidates that a steady sound hides.
///
/// A steady source (a fan, a television, traffic) holds its bins in every frame, so its peak in
/// the averaged correlation is as high as the share of the bins it holds, all the time; a talker
/// beside it holds only the bins and frames where it is louder, and its peak sits low on the
/// steady one's flank, or is only a shoulder of it when the two are within a main lobe
/// (40° apart at 16 kHz). So each frame's whitened cross-spectrum is also weighted by each
/// bin's gain above its stationary floor (``StationaryBinFloor``: about 1 where something new
/// dominates the bin, about 0 where only the steady sound is), transformed back, and averaged
/// like the correlation itself (the same window, the same tail weight, the same normalisation
/// `1/(2·Σ|G|)` of the whole frame, so a peak is the share of the frame's weight that the new
/// sound holds). Only every ``SourceCandidateFinder/excessStride``-th bin is used, transformed
/// at the reduced size `M = N/stride` (at least 16 times the lag window's half-width): the
/// correlation is then aliased in time by `M`, which only adds the correlation's background far
/// outside the lag window, and the cost is a quarter of a full-size inverse FFT. The steady source is all but absent from this excess average, and the bins
/// where the talker dominates vote for the talker alone: its peak stands clear.
///
/// ``SourceCandidateFinder/find(lowFrequencyShare:)`` first takes the candidates of the plain
/// average (the steady source is one of them, and stays listed), then adds the excess
/// average's peaks that are at least the separation away from every candidate taken (only
/// ``steadySeparationSamples`` from a steady source, which the excess average has all but lost;
/// strongest first, the same floors, prominence and sidelobe rules within the excess
/// average), with their excess height as their strength. A plain candidate that is no steady
/// source and has an excess peak within the separation takes that peak's lag: its plain peak
/// leans on the steady source's flank (a talker at 90° beside a noise at 10° read 73–78°).
extension SourceCandidateFinder {
    /// Least averaged share of the frames' weight above the stationary floors for the excess
    /// average to be searched: below it nothing new is heard.
    static let leastExcessShare = 0.01
    /// Shortest averaging window of the excess average, seconds: it holds few bins, and a
    /// shorter window (`--source-window 0.1`) let a moving noise source's leaked bins read as
    /// ghosts.
    static let shortestExcessWindow = 0.3

    /// The size `M` of the excess correlation's inverse FFT for an FFT size `n` and a lag window
    /// of half-width `searchLag`: the smallest power of two ≥ 16·searchLag (and ≥ 64), at most `n`.
    static func excessSize(fftSize n: Int, searchLag: Int) -> Int {
        var m = 64
        while m < 16 * searchLag { m <<= 1 }
        return min(m, n)
    }
    /// A candidate of the plain average whose height in the excess average is below this share
    /// of its plain height is a steady source (a talker keeps most of its peak there, in a room
    /// too); the excess average is searched only while there is one. On the steady-noise sweep
    /// (RT60 0.3 s, noise as loud as the talker) 0.5 against 0.3 raised the noise's worst layout
    /// from 55 % to 85 % (a noise whose peak leans on a talker's flank is still found steady,
    /// and no excess peak takes its lag), the talker's pooled share unchanged (74 → 73 %).
    static let steadyRatio = 0.5
    /// Lowest height of an excess candidate relative to the excess average's highest peak
    /// (the plain average's ``relativeFloor`` is 0.1): the excess average's lobes are wide
    /// (its bins are few), and 0.1 let them through as false sources (18 % of those listed in
    /// the steady-noise sweep at RT60 0.3 s, 12 % with 0.5).
    static let excessRelativeFloor = 0.5
    /// Least distance of an excess candidate from a steady source's plain candidate, samples
    /// (other plain candidates keep ``separation``, 2.5 samples for a 15 cm pair at 16 kHz).
    /// The plain separation is the width of a peak's main lobe in one correlation; but a talker
    /// beside a steady source shows in the excess average, where the steady source is all but
    /// absent, and only the steady source's leak there sits on its lag (within about a sample).
    /// Two distinct local maxima of the excess average are at least two lag steps apart, so a
    /// sample keeps only the leak out. In free field at 16 kHz, a talker at ±90° and a noise 40°
    /// nearer the front (1.6 samples apart) went from none of the talker's frames to 22–27 %
    /// (`SteadyNoiseTests`); on the room sweep (RT60 0.3 s) those layouts stay at 0 %: there the
    /// plain average holds one peak between the two, which the tracker follows.
    static let steadySeparationSamples = 1.0

    /// Adds the frame's excess correlation to the excess average (see the extension's notes).
    /// - Parameters:
    ///   - spectra: the frame's spectra.
    ///   - counts: whether the frame counts (above the gate, with a correlation); a frame that
    ///     does not leaves the floors alone and only lets the average decay.
    ///   - weightSum: `Σ|G[k]|` of the frame.
    ///   - weight: the frame's tail weight.
    ///   - smoothing: the newest frame's share of the average.
    func updateExcess(spectra: FrameSpectra, counts: Bool, weightSum: Float, weight w: Float, smoothing a: Float) {
        let K = searchLag
        let avg = excessAverage.baseAddress
        guard counts, weightSum > 0 else {
            for i in 0...(2 * K) { avg[i] -= a * avg[i] }
            excessShare -= Double(a) * excessShare
            return
        }
        stationary.update(spectra: spectra)
        let gain = excessGains.baseAddress, x = excessSpectrum.baseAddress, g = spectra.whitened
        stationary.gains(into: gain)
        // Every `excessStride`-th bin k = j·stride, j = 0…M/2, into an M-point spectrum; `|G[k]|`
        // of bins 1 ..< N/2 is in `magnitudes` (from `averageBinWeights`).
        let stride = excessStride, m = excessFFT.size
        let magnitude = magnitudes.baseAddress
        var excessWeight: Float = 0, sampledWeight: Float = 0
        for j in 0...(m / 2) {
            let k = j * stride
            x[2 * j] = g[2 * k] * gain[j]
            x[2 * j + 1] = g[2 * k + 1] * gain[j]
            if j > 0 && j < m / 2 {
                excessWeight += magnitude[k] * gain[j]
                sampledWeight += magnitude[k]
            }
        }
        guard sampledWeight > 0, sampledWeight.isFinite else {
            for i in 0...(2 * K) { avg[i] -= a * avg[i] }
            excessShare -= Double(a) * excessShare
            return
        }
        excessShare += Double(a) * (Double(w * excessWeight / sampledWeight) - excessShare)
        excessFFT.inverse(x, excessCorrelation.baseAddress)
        let c = excessCorrelation.baseAddress
        let scale = w / (2 * sampledWeight)
        for i in 0...(2 * K) {
            let v = i < K ? c[m - K + i] : c[i - K]
            avg[i] += a * (scale * v - avg[i])
        }
    }

    /// Adds the excess average's peaks that no candidate of the plain average is near (see the
    /// extension's notes) to ``candidates``, strongest first, while there is room.
    /// - Parameter total: the sum of the candidates' strengths, increased by each one added.
    func addExcessCandidates(total: inout Double) {
        let K = searchLag
        guard excessShare >= Self.leastExcessShare, count < candidates.count else { return }
        // Only while a steady source is heard: a candidate of the plain average that the excess
        // average has mostly lost.
        let avg = excessAverage.baseAddress, y = excessSmoothed.baseAddress
        let plain = smoothed.baseAddress
        var steady = false
        for j in 0..<count {
            let i = lagIndices[j]
            let excess = i > 0 && i < 2 * searchLag ? 0.25 * (avg[i - 1] + avg[i + 1]) + 0.5 * avg[i] : avg[i]
            steadyCandidates[j] = excess < Float(Self.steadyRatio) * plain[i]
            steady = steady || steadyCandidates[j]
        }
        guard steady else { return }
        // Per unit of the bins' weight above the floors: a peak is the share of those bins its
        // source holds, as a plain candidate's is of all bins.
        let unit = Float(1 / excessShare)
        y[0] = unit * avg[0]
        y[2 * K] = unit * avg[2 * K]
        var highest: Float = 0
        for i in 1..<(2 * K) {
            y[i] = unit * (0.25 * (avg[i - 1] + avg[i + 1]) + 0.5 * avg[i])
            if y[i] > highest { highest = y[i] }
        }
        let floor = Float(max(Self.absoluteFloor, Self.excessRelativeFloor * Double(highest)))
        guard highest >= floor, count < candidates.count else { return }
        let limit = Double(K) > maxLag + 0.5 ? maxLag + 0.5 : Double(K)
        // The excess peaks strongest first, each the separation away from the stronger ones
        // (kept in `excessLags`/`excessHeights`, whether or not a plain candidate is near), less
        // the sidelobes of the stronger ones.
        var found = 0
        let plainCount = count
        if plainCount < 2 {
            // `removeSidelobes` did not group this frame's bin weights.
            groupBinWeights()
            pointSpreadPeak = sidelobe(at: 0)
        }
        let p0 = pointSpreadPeak
        while found < excessLags.count && count < candidates.count {
            guard let peak = strongestSeparatedPeak(in: y, floor: floor, limit: limit,
                                                    taken: excessLags, takenCount: found) else { break }
            let best = peak.index, lag = peak.lag, y1 = peak.height
            var height = y1
            if p0 > 0 {
                for j in 0..<found { height -= excessHeights[j] * sidelobe(at: lag - excessLags[j]) / p0 }
            }
            excessLags[found] = lag
            excessHeights[found] = y1
            found += 1
            guard height >= Double(floor), height >= Self.sidelobeResidual * y1 else { continue }
            // A steady source is all but absent from the excess average, so a peak there is a
            // new source unless it sits on the steady source's own lag (its leak): only
            // ``steadySeparationSamples`` keeps them apart, not the plain average's main lobe.
            var near = -1
            for j in 0..<plainCount
            where abs(lags[j] - lag) < (steadyCandidates[j] ? Self.steadySeparationSamples : separation) {
                near = j
                break
            }
            if near >= 0 {
                // A plain candidate that is no steady source is this source, its plain peak
                // pulled by a steady one's flank: its lag is read here, clear of that flank.
                if !steadyCandidates[near] {
                    lags[near] = lag
                    lagIndices[near] = best
                }
                continue
            }
            candidates[count] = SourceCandidate(azimuth: 0, strength: y1, share: 0)
            lags[count] = lag
            lagIndices[count] = best
            total += y1
            count += 1
        }
    }
}
