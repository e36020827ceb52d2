/// The greedy peak search shared by the plain and the excess averages of
/// ``SourceCandidateFinder``: the strongest local maximum of a smoothed average that stands out
/// and keeps its distance from the peaks already taken.
package struct LagPeakSearch: Sendable {
    /// Half-width of the searched averages, whole samples (2·searchLag + 1 values each).
    package let searchLag: Int
    /// Least distance between two peaks taken, samples.
    package let separation: Double
    /// The largest |lag| a candidate may have, samples: the physical lag window and half a
    /// sample (for the refinement), within the searched one.
    package let limit: Double

    /// - Parameters:
    ///   - searchLag: half-width of the searched averages, whole samples.
    ///   - separation: least distance between two peaks taken, samples.
    ///   - maxLag: the largest physical lag, samples.
    package init(searchLag: Int, separation: Double, maxLag: Double) {
        self.searchLag = searchLag
        self.separation = separation
        self.limit = Double(searchLag) > maxLag + 0.5 ? maxLag + 0.5 : Double(searchLag)
    }

    /// One peak found by ``strongestSeparatedPeak(in:floor:limit:taken:takenCount:)``.
    package struct Peak {
        /// Index of the peak in the average (lag + ``searchLag``).
        var index: Int
        /// The lag refined by a parabola through the peak and its neighbours, samples.
        var lag: Double
        /// The average's value at `index`.
        var height: Double
    }

    /// The highest local maximum of `y` that is at least `floor` high, within `limit` samples of
    /// lag 0, stands out by ``SourceCandidateFinder/relativeProminence`` of its height (`prominence(at:in:)`) and is at
    /// least ``separation`` from each of the first `takenCount` lags of `taken`; nil when there is
    /// none. Never allocates.
    /// - Parameters:
    ///   - y: a smoothed average at lags `−searchLag…searchLag` (2·searchLag + 1 values).
    ///   - floor: the least height of a peak.
    ///   - limit: the largest |lag| searched, samples.
    ///   - taken: the lags already taken, samples.
    ///   - takenCount: how many of `taken` are valid.
    package func strongestSeparatedPeak(in y: UnsafePointer<Float>, floor: Float, limit: Double,
                                taken: [Double], takenCount: Int) -> Peak? {
        let K = searchLag
        var best = -1
        var bestValue = floor
        for i in 1..<(2 * K) {
            let v = y[i]
            guard v >= bestValue, v > y[i - 1], v >= y[i + 1] else { continue }
            let lag = Double(i - K)
            guard abs(lag) <= limit, prominence(at: i, in: y) >= Float(SourceCandidateFinder.relativeProminence) * v else { continue }
            var clear = true
            for j in 0..<takenCount where abs(taken[j] - lag) < separation {
                clear = false
                break
            }
            if clear { best = i; bestValue = v }
        }
        guard best >= 0 else { return nil }
        let y0 = Double(y[best - 1]), y1 = Double(y[best]), y2 = Double(y[best + 1])
        return Peak(index: best, lag: Double(best - K) + parabolicPeakOffset(y0, y1, y2), height: y1)
    }

    /// How far the peak at index `i` of a smoothed average `y` (2·searchLag + 1 values) stands
    /// out: its height over the higher of the lowest points on each side before higher ground.
    /// A side that reaches the window's edge without higher ground does not count (a source near
    /// ±90° sits close to the edge); the highest peak stands out by its height over the lowest
    /// point.
    package func prominence(at i: Int, in y: UnsafePointer<Float>) -> Float {
        let v = y[i], last = 2 * searchLag
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
}
