#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The onset average between its lags, unsmoothed: a windowed-sinc interpolation of the
/// averaged correlation, on a grid of tenths of a sample.
///
/// The finder searches its averages smoothed by [1 2 1]/4, which keeps a whitened peak at a
/// fractional lag from ringing into false peaks at the whole lags beside it, but which is also a
/// low-pass filter in frequency (`(1 + cos ω)/2`, nothing left at the Nyquist frequency): it
/// widens every peak, and two sources closer than about two samples merge into one peak between
/// them. The correlation itself is band-limited, so between its lags it is read exactly, up to
/// the kernel's truncation, by sinc interpolation, and the high frequencies' resolution comes
/// back (``SourceCandidateFinder`` uses it beside a steady source; see
/// `BesideSteadySearch.swift`).
extension ExcessAverage {
    /// Taps on each side of a point of ``onsetAverage(atStep:)``; the average is kept this far
    /// outside the lag window (``onsetFlanks``).
    package static let interpolationTaps = 8
    /// Grid steps per sample of ``onsetAverage(atStep:)``.
    package static let interpolationSteps = 10

    /// Kernel rows `m = 0 ..< interpolationSteps` (the point `m/steps` past a whole lag `i0`),
    /// each of `2P` taps for lags `i0 − P + 1 … i0 + P`: `sinc(t)` under a Hann window of
    /// half-width `P` (`t` the point's distance from the tap, samples).
    static func makeInterpolationKernels() -> AlignedFloats {
        let P = interpolationTaps, steps = interpolationSteps
        let kernels = AlignedFloats(count: steps * 2 * P)
        for m in 0..<steps {
            let f = Double(m) / Double(steps)
            for j in 0..<(2 * P) {
                let t = f - Double(j - P + 1)
                let sinc = abs(t) < 1e-12 ? 1.0 : sin(Double.pi * t) / (Double.pi * t)
                let window = abs(t) >= Double(P) ? 0 : 0.5 * (1 + cos(Double.pi * t / Double(P)))
                kernels[m * 2 * P + j] = Float(sinc * window)
            }
        }
        return kernels
    }

    /// The averaged onset correlation at whole lag `lag` (`−searchLag − P … searchLag + P`).
    @inline(__always)
    package func onsetAverage(atWholeLag lag: Int) -> Float {
        let K = searchLag, P = Self.interpolationTaps
        if lag > K { return onsetFlanks.baseAddress[P + lag - K - 1] }
        if lag < -K { return onsetFlanks.baseAddress[lag + K + P] }
        return onsetAverage.baseAddress[lag + K]
    }

    /// The averaged onset correlation, unsmoothed, at the lag `step / interpolationSteps`
    /// samples. Never allocates.
    /// - Precondition: `|lag| ≤ searchLag` (the taps stay within the kept lags).
    package func onsetAverage(atStep step: Int) -> Float {
        let steps = Self.interpolationSteps, P = Self.interpolationTaps
        // Floor division: the whole lag at or below the point, and the point's tenth past it.
        let whole = step >= 0 ? step / steps : -((-step + steps - 1) / steps)
        let m = step - whole * steps
        precondition(whole >= -searchLag && whole <= searchLag, "interpolated lag outside the kept window")
        let kernel = interpolationKernels.baseAddress + m * 2 * P
        var sum: Float = 0
        for j in 0..<(2 * P) { sum += kernel[j] * onsetAverage(atWholeLag: whole - P + 1 + j) }
        return sum
    }
}
