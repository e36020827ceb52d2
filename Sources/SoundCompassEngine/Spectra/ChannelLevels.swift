#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Per-channel levels of one frame and the level difference between the channels.
package struct ChannelLevels: Sendable, Equatable {
    /// Left RMS (linear, full scale 1).
    package var leftRMS: Double
    /// Right RMS (linear, full scale 1).
    package var rightRMS: Double

    /// Measures the RMS of both channels over `count` samples.
    package init(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>, count: Int) {
        precondition(left.count >= count && right.count >= count && count > 0)
        leftRMS = (sumOfSquares(left, count) / Double(count)).squareRoot()
        rightRMS = (sumOfSquares(right, count) / Double(count)).squareRoot()
    }

    package init(leftRMS: Double, rightRMS: Double) {
        self.leftRMS = leftRMS
        self.rightRMS = rightRMS
    }

    /// Power floor used in every level and ratio: 1e-16 (−160 dBFS), so silence stays finite.
    package static let powerFloor = 1e-16

    /// Level difference, right minus left, in dB: `10·log10((R² + ε)/(L² + ε))`, within ±160 dB.
    package var ildDecibels: Double {
        decibelRatio(rightRMS * rightRMS, leftRMS * leftRMS)
    }

    /// Level of the pair in dBFS: `10·log10((L² + R²)/2 + ε)`, ≥ −160.
    package var levelDBFS: Double {
        10 * log10((leftRMS * leftRMS + rightRMS * rightRMS) / 2 + Self.powerFloor)
    }
}

/// `10·log10((a + ε)/(b + ε))` for powers `a`, `b` with the −160 dB floor.
@inline(__always)
func decibelRatio(_ a: Double, _ b: Double) -> Double {
    10 * log10((a + ChannelLevels.powerFloor) / (b + ChannelLevels.powerFloor))
}

/// `Σ x[i]²` over `count` samples, eight lanes at a time.
@inline(__always)
func sumOfSquares(_ x: UnsafeBufferPointer<Float>, _ count: Int) -> Double {
    var lanes = SIMD8<Float>()
    var i = 0
    if let base = x.baseAddress {
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            lanes += v * v
            i += 8
        }
    }
    var total = Double(lanes.sum())
    while i < count {
        total += Double(x[i] * x[i])
        i += 1
    }
    return total
}
