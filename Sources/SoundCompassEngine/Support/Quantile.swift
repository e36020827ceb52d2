/// The quantiles of the project, one rule each, in one place.
///
/// - ``interpolated(sorted:_:)``: between neighbours (the median of an even count is the mean
///   of the middle two). The default for every summary figure (medians, spreads, error
///   percentiles).
/// - ``nearestRank(_:_:)``: a value of the data, the one at rank `round((n − 1)·q)`. Kept for the
///   trace plot's axis ranges, because the decimated trace of a long recording keeps only a
///   histogram (``nearestRankIndex(count:_:)`` is its rank too), and the two must give the same
///   axes.
/// - ``weighted(_:weights:_:)``: the first value whose cumulative weight reaches `q` of the
///   total. For the calibration, whose frames count by their confidence.
///
/// The streaming histograms of the I/O layer (latency, trace decimation) keep counts, not
/// values, so that an hours-long run costs constant memory; they rank as ``nearestRankIndex(count:_:)``.
package enum Quantile {
    /// The `q` quantile (0…1) of sorted `values`, interpolated between neighbours; 0 for no values.
    /// - Parameters:
    ///   - sorted: the values, in increasing order.
    ///   - q: 0…1.
    package static func interpolated(sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let position = q * Double(sorted.count - 1)
        let i = Int(position.rounded(.down)), f = position - Double(i)
        return i + 1 < sorted.count ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i]
    }

    /// The rank, `0 ..< count`, of the nearest-rank `q` quantile among `count` values:
    /// `round((count − 1)·q)`, at most `count − 1`.
    /// - Parameters:
    ///   - count: how many values (≥ 1).
    ///   - q: 0…1.
    package static func nearestRankIndex(count: Int, _ q: Double) -> Int {
        min(count - 1, Int((Double(count - 1) * q).rounded()))
    }

    /// The `q` quantile (0…1) of `values` by nearest rank (a value of the data); nil for no values.
    package static func nearestRank(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[nearestRankIndex(count: values.count, q)]
    }

    /// The `q` quantile (0…1) of `values` counted with `weights` (≥ 0, as many as `values`, not
    /// all 0): the smallest value whose cumulative weight reaches `q` of the total.
    package static func weighted(_ values: [Double], weights: [Double], _ q: Double) -> Double {
        let order = values.indices.sorted { values[$0] < values[$1] }
        let total = weights.reduce(0, +)
        var cumulative = 0.0
        for i in order {
            cumulative += weights[i]
            if cumulative >= q * total { return values[i] }
        }
        return values[order.last!]
    }
}
