#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A first-order DC blocker on each channel of a pair, `y[n] = x[n] − x[n−1] + R·y[n−1]`: a
/// high-pass with a zero at DC and a pole at `R = exp(−2π·fc/fs)` (−3 dB near `fc`).
///
/// Each channel's state starts from the first sample it sees (`x[−1] = x[0]`), so a constant
/// offset present from the start leaves exactly 0 rather than a decaying step. The two
/// channels' recursions run in one loop: each sample waits for the one before it, so a
/// channel alone would leave the processor's arithmetic units idle most of the time.
package struct DCBlocker: Sendable {
    /// The pole, `exp(−2π·fc/fs)`.
    package let pole: Double
    private var previousLeftInput = 0.0, previousLeftOutput = 0.0
    private var previousRightInput = 0.0, previousRightOutput = 0.0
    private var primed = false

    /// - Parameters:
    ///   - cutoffHertz: corner frequency, Hz (> 0, well below `sampleRate/2`).
    ///   - sampleRate: Hz.
    package init(cutoffHertz: Double, sampleRate: Double) {
        precondition(cutoffHertz > 0 && sampleRate > 2 * cutoffHertz)
        pole = exp(-2 * Double.pi * cutoffHertz / sampleRate)
    }

    /// Forgets the past: the next samples prime the state again.
    package mutating func reset() {
        previousLeftInput = 0; previousLeftOutput = 0
        previousRightInput = 0; previousRightOutput = 0
        primed = false
    }

    /// Filters `count` samples of each channel in place. Never allocates.
    package mutating func filter(left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>, count: Int) {
        guard count > 0 else { return }
        if !primed {
            previousLeftInput = Double(l[0])
            previousRightInput = Double(r[0])
            primed = true
        }
        var lx1 = previousLeftInput, ly1 = previousLeftOutput, rx1 = previousRightInput, ry1 = previousRightOutput
        let p = pole
        for i in 0..<count {
            let li = Double(l[i]), ri = Double(r[i])
            let lo = li - lx1 + p * ly1
            let ro = ri - rx1 + p * ry1
            lx1 = li; ly1 = lo
            rx1 = ri; ry1 = ro
            l[i] = Float(lo)
            r[i] = Float(ro)
        }
        previousLeftInput = lx1; previousLeftOutput = ly1
        previousRightInput = rx1; previousRightOutput = ry1
    }
}
