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
/// precision.
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

    /// Cookbook band-pass with a constant 0 dB peak gain at `centre`.
    /// - Parameters:
    ///   - centre: centre frequency in Hz, `0 < centre < sampleRate/2`.
    ///   - q: quality factor (> 0).
    ///   - sampleRate: Hz.
    package static func bandPass(centre: Double, q: Double, sampleRate: Double) -> BiquadCoefficients {
        let (cosW, alpha) = prepare(centre, q, sampleRate)
        return BiquadCoefficients(b0: alpha, b1: 0, b2: -alpha, a0: 1 + alpha, a1: -2 * cosW, a2: 1 - alpha)
    }

    /// A 0 dB-peak band-pass whose −3 dB points fall exactly on `low` and `high`.
    ///
    /// The edges are pre-warped (`Ωᵢ = tan(π·fᵢ/fs)`), so the centre is `Ω₀ = √(Ω_low·Ω_high)`
    /// (close to `√(low·high)` well below Nyquist) and `Q = Ω₀/(Ω_high − Ω_low)`, which the
    /// cookbook's `α = sin(w0)/(2Q)` turns into exactly those edges after the bilinear transform.
    /// - Parameters:
    ///   - low: lower −3 dB edge, Hz (> 0).
    ///   - high: upper −3 dB edge, Hz (`low < high < sampleRate/2`).
    ///   - sampleRate: Hz.
    /// - Returns: the coefficients and the centre frequency in Hz.
    package static func bandPass(low: Double, high: Double, sampleRate: Double) -> (coefficients: BiquadCoefficients, centre: Double) {
        precondition(low > 0 && low < high && high < sampleRate / 2, "band \(low)–\(high) Hz invalid at \(sampleRate) Hz")
        let lowWarped = tan(Double.pi * low / sampleRate), highWarped = tan(Double.pi * high / sampleRate)
        let centreWarped = (lowWarped * highWarped).squareRoot()
        let centre = atan(centreWarped) * sampleRate / Double.pi
        let q = centreWarped / (highWarped - lowWarped)
        return (bandPass(centre: centre, q: q, sampleRate: sampleRate), centre)
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

/// One biquad section with streaming state, in transposed direct form II:
/// `y = b0·x + s1;  s1 = b1·x − a1·y + s2;  s2 = b2·x − a2·y`.
///
/// Processes blocks in place and never allocates. Keep one instance per channel.
package struct Biquad: Sendable {
    /// The section's coefficients.
    package let coefficients: BiquadCoefficients
    private let b0: Float, b1: Float, b2: Float, a1: Float, a2: Float
    private var s1: Float = 0, s2: Float = 0

    package init(_ coefficients: BiquadCoefficients) {
        self.coefficients = coefficients
        b0 = Float(coefficients.b0); b1 = Float(coefficients.b1); b2 = Float(coefficients.b2)
        a1 = Float(coefficients.a1); a2 = Float(coefficients.a2)
    }

    /// Clears the state (as if the input had been silent forever).
    package mutating func reset() { s1 = 0; s2 = 0 }

    /// Filters `buffer` in place.
    package mutating func process(_ buffer: UnsafeMutableBufferPointer<Float>) {
        process(UnsafeBufferPointer(buffer), into: buffer)
    }

    /// Filters `input` into `output` (same count). They may be the same buffer (each sample is
    /// read before its output is written), but must not otherwise overlap.
    package mutating func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == output.count)
        var s1 = self.s1, s2 = self.s2
        for i in 0..<input.count {
            let x = input[i]
            let y = b0 * x + s1
            s1 = b1 * x - a1 * y + s2
            s2 = b2 * x - a2 * y
            output[i] = y
        }
        self.s1 = abs(s1) < 1e-30 ? 0 : s1
        self.s2 = abs(s2) < 1e-30 ? 0 : s2
    }
}
