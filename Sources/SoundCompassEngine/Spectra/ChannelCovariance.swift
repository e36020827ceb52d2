/// Second moments of one frame's two channels: what the coincident model's level cue reads.
package struct ChannelCovariance: Sendable, Equatable {
    /// Mean of `L²` (linear, full scale 1).
    package var leftPower: Double
    /// Mean of `R²`.
    package var rightPower: Double
    /// Mean of `L·R`.
    package var crossPower: Double

    /// Measures the moments over `count` samples of both channels. Never allocates.
    package init(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>, count: Int) {
        precondition(left.count >= count && right.count >= count && count > 0)
        var ll = SIMD8<Float>(), rr = SIMD8<Float>(), lr = SIMD8<Float>()
        var i = 0
        if let l = left.baseAddress, let r = right.baseAddress {
            let rawL = UnsafeRawPointer(l), rawR = UnsafeRawPointer(r)
            while i + 8 <= count {
                let x = rawL.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                let y = rawR.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                ll += x * x
                rr += y * y
                lr += x * y
                i += 8
            }
        }
        var sumLL = Double(ll.sum()), sumRR = Double(rr.sum()), sumLR = Double(lr.sum())
        while i < count {
            sumLL += Double(left[i] * left[i])
            sumRR += Double(right[i] * right[i])
            sumLR += Double(left[i] * right[i])
            i += 1
        }
        let n = Double(count)
        leftPower = sumLL / n
        rightPower = sumRR / n
        crossPower = sumLR / n
    }

    /// No power in either channel (what the models that do not measure a covariance report).
    package static let zero = ChannelCovariance(leftPower: 0, rightPower: 0, crossPower: 0)

    package init(leftPower: Double, rightPower: Double, crossPower: Double) {
        self.leftPower = leftPower
        self.rightPower = rightPower
        self.crossPower = crossPower
    }
}
