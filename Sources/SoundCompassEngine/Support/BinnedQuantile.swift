/// Counts of values in fixed bins, for quantiles of a long stream without keeping the values
/// (a trace's axis ranges, the truth scores' error quantiles).
package struct BinnedQuantile {
    /// The first bin's lower edge and the bins' width, in the values' unit.
    package let low: Double, binWidth: Double
    /// Values per bin.
    package private(set) var counts: [UInt32]
    /// Values counted (finite ones).
    package private(set) var total = 0

    /// Bins of `binWidth` from `low` to `high`; values outside fall in the end bins.
    package init(low: Double, high: Double, binWidth: Double) {
        self.low = low
        self.binWidth = binWidth
        counts = [UInt32](repeating: 0, count: Int(((high - low) / binWidth).rounded(.up)) + 1)
    }

    /// Counts `value` (a NaN or an infinity is left out).
    package mutating func add(_ value: Double) {
        guard value.isFinite else { return }
        counts[max(0, min(counts.count - 1, Int(((value - low) / binWidth).rounded(.down))))] += 1
        total += 1
    }

    /// The nearest-rank `q` quantile (the rank of ``Quantile/nearestRankIndex(count:_:)``, which the trace plot uses),
    /// to the middle of its bin; `nil` for no values.
    package func quantile(_ q: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = Quantile.nearestRankIndex(count: total, q)
        var seen = 0
        for (i, c) in counts.enumerated() {
            seen += Int(c)
            if seen > rank { return low + (Double(i) + 0.5) * binWidth }
        }
        return low + (Double(counts.count) - 0.5) * binWidth
    }
}
