#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Coefficients of a second-order IIR section, normalised so that `a0 = 1`:
/// `H(z) = (b0 + b1·z⁻¹ + b2·z⁻²) / (1 + a1·z⁻¹ + a2·z⁻²)`.
///
/// Designs follow Robert Bristow-Johnson's *Audio EQ Cookbook* (bilinear transform with the
/// cookbook's `w0 = 2π·f0/fs`, `α = sin(w0)/(2Q)`). Coefficients are computed in double
/// precision; ``BandFilterBank`` runs them in single precision.
package struct BiquadCoefficients: Sendable, Equatable {
    package var b0: Double, b1: Double, b2: Double, a1: Double, a2: Double

    package init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.init(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    /// Cookbook low-pass.
    /// - Parameters:
    ///   - cutoff: corner frequency in Hz, `0 < cutoff < sampleRate/2`.
    ///   - q: quality factor (> 0); 1/√2 gives a Butterworth response, −3 dB at `cutoff`.
    ///   - sampleRate: Hz.
    package static func lowPass(cutoff: Double, q: Double = 0.5.squareRoot(), sampleRate: Double) -> BiquadCoefficients {
        let (cosW, alpha) = prepare(cutoff, q, sampleRate)
        return BiquadCoefficients(
            b0: (1 - cosW) / 2, b1: 1 - cosW, b2: (1 - cosW) / 2, a0: 1 + alpha, a1: -2 * cosW, a2: 1 - alpha)
    }

    /// Cookbook high-pass (parameters as ``lowPass(cutoff:q:sampleRate:)``).
    package static func highPass(cutoff: Double, q: Double = 0.5.squareRoot(), sampleRate: Double) -> BiquadCoefficients {
        let (cosW, alpha) = prepare(cutoff, q, sampleRate)
        return BiquadCoefficients(
            b0: (1 + cosW) / 2, b1: -(1 + cosW), b2: (1 + cosW) / 2, a0: 1 + alpha, a1: -2 * cosW, a2: 1 - alpha)
    }

    private static func prepare(_ f: Double, _ q: Double, _ fs: Double) -> (cosW: Double, alpha: Double) {
        precondition(f > 0 && f < fs / 2 && q > 0, "biquad frequency \(f) Hz or Q \(q) invalid at \(fs) Hz")
        let w0 = 2 * Double.pi * f / fs
        return (cos(w0), sin(w0) / (2 * q))
    }

    /// Magnitude of the frequency response at `frequency` Hz: `|H(e^(iω))|`.
    package func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        // Numerator and denominator as complex numbers in e^(−iω).
        let c1 = cos(w), s1 = sin(w), c2 = cos(2 * w), s2 = sin(2 * w)
        let nr = b0 + b1 * c1 + b2 * c2, ni = -(b1 * s1 + b2 * s2)
        let dr = 1 + a1 * c1 + a2 * c2, di = -(a1 * s1 + a2 * s2)
        return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
    }
}
