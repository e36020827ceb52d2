#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Per-channel levels of one frame and the level difference between the channels.
public struct ChannelLevels: Sendable, Equatable {
    /// Left RMS (linear, full scale 1).
    public var leftRMS: Double
    /// Right RMS (linear, full scale 1).
    public var rightRMS: Double

    /// Measures the RMS of both channels over `count` samples.
    public init(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>, count: Int) {
        precondition(left.count >= count && right.count >= count && count > 0)
        var sumL: Float = 0, sumR: Float = 0
        for i in 0..<count {
            sumL += left[i] * left[i]
            sumR += right[i] * right[i]
        }
        leftRMS = Double(sumL / Float(count)).squareRoot()
        rightRMS = Double(sumR / Float(count)).squareRoot()
    }

    public init(leftRMS: Double, rightRMS: Double) {
        self.leftRMS = leftRMS
        self.rightRMS = rightRMS
    }

    /// Power floor used in every level and ratio: 1e-16 (−160 dBFS), so silence stays finite.
    public static let powerFloor = 1e-16

    /// Level difference, right minus left, in dB: `10·log10((R² + ε)/(L² + ε))`, within ±160 dB.
    public var ildDecibels: Double {
        decibelRatio(rightRMS * rightRMS, leftRMS * leftRMS)
    }

    /// Level of the pair in dBFS: `10·log10((L² + R²)/2 + ε)`, ≥ −160.
    public var levelDBFS: Double {
        10 * log10((leftRMS * leftRMS + rightRMS * rightRMS) / 2 + Self.powerFloor)
    }
}

/// `10·log10((a + ε)/(b + ε))` for powers `a`, `b` with the −160 dB floor.
@inline(__always)
func decibelRatio(_ a: Double, _ b: Double) -> Double {
    10 * log10((a + ChannelLevels.powerFloor) / (b + ChannelLevels.powerFloor))
}
