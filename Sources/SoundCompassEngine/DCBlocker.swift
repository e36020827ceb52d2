#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A first-order DC blocker, `y[n] = x[n] − x[n−1] + R·y[n−1]`: a high-pass with a zero at DC
/// and a pole at `R = exp(−2π·fc/fs)` (−3 dB near `fc`).
///
/// Its state starts from the first sample it sees (`x[−1] = x[0]`), so a constant offset
/// present from the start leaves exactly 0 rather than a decaying step.
package struct DCBlocker: Sendable {
    /// The pole, `exp(−2π·fc/fs)`.
    package let pole: Double
    private var previousInput = 0.0
    private var previousOutput = 0.0
    private var primed = false

    /// - Parameters:
    ///   - cutoffHertz: corner frequency, Hz (> 0, well below `sampleRate/2`).
    ///   - sampleRate: Hz.
    package init(cutoffHertz: Double, sampleRate: Double) {
        precondition(cutoffHertz > 0 && sampleRate > 2 * cutoffHertz)
        pole = exp(-2 * Double.pi * cutoffHertz / sampleRate)
    }

    /// Forgets the past: the next sample primes the state again.
    package mutating func reset() {
        previousInput = 0
        previousOutput = 0
        primed = false
    }

    /// Filters `count` samples in place. Never allocates.
    package mutating func filter(_ x: UnsafeMutablePointer<Float>, count: Int) {
        guard count > 0 else { return }
        if !primed {
            previousInput = Double(x[0])
            primed = true
        }
        var x1 = previousInput, y1 = previousOutput
        let r = pole
        for i in 0..<count {
            let input = Double(x[i])
            let output = input - x1 + r * y1
            x1 = input
            y1 = output
            x[i] = Float(output)
        }
        previousInput = x1
        previousOutput = y1
    }
}
