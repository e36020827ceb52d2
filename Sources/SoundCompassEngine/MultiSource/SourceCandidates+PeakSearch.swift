/// The greedy peak search shared by the plain and the excess averages of
/// ``SourceCandidateFinder``: the strongest local maximum of a smoothed average that stands out
/// and keeps its distance from the peaks already taken.
extension SourceCandidateFinder {
    /// One peak found by ``strongestSeparatedPeak(in:floor:limit:taken:takenCount:)``.
    struct AveragePeak {
        /// Index of the peak in the average (lag + ``searchLag``).
        var index: Int
        /// The lag refined by a parabola through the peak and its neighbours, samples.
        var lag: Double
        /// The average's value at `index`.
        var height: Double
    }

    /// The highest local maximum of `y` that is at least `floor` high, within `limit` samples of
    /// lag 0, stands out by ``relativeProminence`` of its height (`prominence(at:in:)`) and is at
    /// least ``separation`` from each of the first `takenCount` lags of `taken`; nil when there is
    /// none. Never allocates.
    /// - Parameters:
    ///   - y: a smoothed average at lags `−searchLag…searchLag` (2·searchLag + 1 values).
    ///   - floor: the least height of a peak.
    ///   - limit: the largest |lag| searched, samples.
    ///   - taken: the lags already taken, samples.
    ///   - takenCount: how many of `taken` are valid.
    func strongestSeparatedPeak(in y: UnsafePointer<Float>, floor: Float, limit: Double,
                                taken: [Double], takenCount: Int) -> AveragePeak? {
        let K = searchLag
        var best = -1
        var bestValue = floor
        for i in 1..<(2 * K) {
            let v = y[i]
            guard v >= bestValue, v > y[i - 1], v >= y[i + 1] else { continue }
            let lag = Double(i - K)
            guard abs(lag) <= limit, prominence(at: i, in: y) >= Float(Self.relativeProminence) * v else { continue }
            var clear = true
            for j in 0..<takenCount where abs(taken[j] - lag) < separation {
                clear = false
                break
            }
            if clear { best = i; bestValue = v }
        }
        guard best >= 0 else { return nil }
        let y0 = Double(y[best - 1]), y1 = Double(y[best]), y2 = Double(y[best + 1])
        return AveragePeak(index: best, lag: Double(best - K) + parabolicPeakOffset(y0, y1, y2), height: y1)
    }
}
