import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Collects durations in a fixed histogram so quantiles of an hours-long session cost constant
/// memory and recording one costs no allocation.
///
/// Bins are logarithmic, 100 per decade from 1 µs to 100 s, so a quantile is exact to within
/// 2.3 % (one bin); durations outside the range land in the first or last bin.
package struct LatencyHistogram: Sendable {
    private static let binsPerDecade = 100.0
    private static let minimum = 1e-6
    private static let binCount = 800
    private var counts = [UInt64](repeating: 0, count: LatencyHistogram.binCount)
    /// Durations recorded.
    package private(set) var count = 0
    /// The longest duration recorded, in seconds.
    package private(set) var maximum = 0.0

    package init() {}

    /// Records one duration.
    /// - Parameter seconds: the duration, in seconds.
    package mutating func record(seconds: Double) {
        guard seconds.isFinite else { return }
        let position = log10(Swift.max(seconds, Self.minimum) / Self.minimum) * Self.binsPerDecade
        let bin = Swift.min(Self.binCount - 1, Swift.max(0, Int(position)))
        counts[bin] += 1
        count += 1
        maximum = Swift.max(maximum, seconds)
    }

    /// The duration below which a fraction `q` of the recorded ones lie, in seconds (the
    /// geometric centre of its bin, capped at the maximum); `nil` when nothing was recorded.
    /// - Parameter q: the fraction, 0…1.
    package func quantile(_ q: Double) -> Double? {
        guard count > 0 else { return nil }
        let target = UInt64((Swift.min(1, Swift.max(0, q)) * Double(count)).rounded(.up))
        var seen: UInt64 = 0
        for (bin, n) in counts.enumerated() {
            seen += n
            if seen >= Swift.max(1, target) {
                let centre = Self.minimum * pow(10, (Double(bin) + 0.5) / Self.binsPerDecade)
                return Swift.min(centre, maximum)
            }
        }
        return maximum
    }

}
