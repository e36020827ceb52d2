/// The `q` quantile (0…1) of sorted `values`, interpolated between neighbours (the median of
/// an even count is the mean of the middle two); 0 for no values.
package func interpolatedQuantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let position = q * Double(sorted.count - 1)
    let i = Int(position.rounded(.down)), f = position - Double(i)
    return i + 1 < sorted.count ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i]
}

