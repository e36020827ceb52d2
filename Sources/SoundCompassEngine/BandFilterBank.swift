/// The per-band streams: each band's filter runs on both channels as the samples arrive, and
/// keeps a frame's worth of filtered samples aligned with the analyzer's frame buffers.
///
/// A band is a cookbook Butterworth high-pass (Q = 1/√2) at its lower edge followed by a
/// Butterworth low-pass at its upper edge: −3 dB at each edge of a wide band, unity in between,
/// and 12 dB per octave outside, twice the skirt of a single band-pass biquad, so that a loud
/// band does not leak into its neighbours' levels. A low-pass edge above 0.49·fs is put at
/// 0.49·fs. The filters run in single precision (tested against a double-precision reference in
/// `BandFilterBankTests`). Life cycle: `init` allocates; `filter`, `shift` and `levels` never allocate.
package final class BandFilterBank {
    /// One band's frame of filtered samples on each channel.
    package struct Band {
        /// The band's last `frameLength` filtered samples of the left channel.
        package let leftFrame: AlignedFloats
        /// The band's last `frameLength` filtered samples of the right channel.
        package let rightFrame: AlignedFloats
    }

    /// The bands, in the order given.
    package let bands: [Band]
    /// Samples per band frame.
    package let frameLength: Int
    /// The filters, four bands to a group, each band a lane of the SIMD cascade.
    private var groups: [StereoCascade4]

    /// - Parameters:
    ///   - specs: the bands, each `0 < low < high`, `low < sampleRate/2`.
    ///   - sampleRate: Hz.
    ///   - frameLength: samples per band frame (≥ 1).
    package init(bands specs: [BandSpec], sampleRate: Double, frameLength: Int) {
        self.frameLength = frameLength
        self.bands = specs.map { _ in
            Band(leftFrame: AlignedFloats(count: frameLength), rightFrame: AlignedFloats(count: frameLength))
        }
        self.groups = stride(from: 0, to: specs.count, by: 4).map { start in
            let lanes = specs[start..<min(start + 4, specs.count)].map { spec in
                (BiquadCoefficients.highPass(cutoff: spec.low, sampleRate: sampleRate),
                 BiquadCoefficients.lowPass(cutoff: min(spec.high, 0.49 * sampleRate), sampleRate: sampleRate))
            }
            return StereoCascade4(lanes)
        }
    }

    /// Filters `count` new samples and writes them at `offset` in every band's frames.
    /// - Parameters:
    ///   - left: `count` new left-channel samples.
    ///   - right: `count` new right-channel samples.
    ///   - offset: where the samples go in the band frames (`offset + count ≤ frameLength`).
    ///   - count: samples per channel.
    package func filter(left: UnsafePointer<Float>, right: UnsafePointer<Float>, offset: Int, count: Int) {
        precondition(offset >= 0 && count >= 0 && offset + count <= frameLength)
        for g in groups.indices {
            let start = 4 * g
            func out(_ lane: Int, _ leftSide: Bool) -> UnsafeMutablePointer<Float>? {
                guard start + lane < bands.count else { return nil }
                let band = bands[start + lane]
                return (leftSide ? band.leftFrame : band.rightFrame).baseAddress + offset
            }
            groups[g].process(
                left: left, right: right, count: count,
                leftOut: (out(0, true), out(1, true), out(2, true), out(3, true)),
                rightOut: (out(0, false), out(1, false), out(2, false), out(3, false)))
        }
    }

    /// Drops the first `hop` samples of every band frame, keeping `keep` samples.
    package func shift(hop: Int, keep: Int) {
        guard keep > 0 else { return }
        for band in bands {
            band.leftFrame.baseAddress.update(from: band.leftFrame.baseAddress + hop, count: keep)
            band.rightFrame.baseAddress.update(from: band.rightFrame.baseAddress + hop, count: keep)
        }
    }

    /// RMS levels of band `index` over the current frame.
    package func levels(_ index: Int) -> ChannelLevels {
        ChannelLevels(
            left: UnsafeBufferPointer(start: bands[index].leftFrame.baseAddress, count: frameLength),
            right: UnsafeBufferPointer(start: bands[index].rightFrame.baseAddress, count: frameLength),
            count: frameLength)
    }

    /// Second moments (`L²`, `R²`, `L·R`) of band `index` over the current frame, for the
    /// coincident model's level cue.
    package func covariance(_ index: Int) -> ChannelCovariance {
        ChannelCovariance(
            left: UnsafeBufferPointer(start: bands[index].leftFrame.baseAddress, count: frameLength),
            right: UnsafeBufferPointer(start: bands[index].rightFrame.baseAddress, count: frameLength),
            count: frameLength)
    }

    /// Clears the filters' state and the band frames (as if the input had been silent forever).
    package func reset() {
        for g in groups.indices { groups[g].reset() }
        for band in bands {
            band.leftFrame.zero()
            band.rightFrame.zero()
        }
    }
}

/// Up to four bands' cascades (a high-pass then a low-pass biquad) on both channels, one band
/// per SIMD lane: the recursions of different bands are independent, so one vector step
/// advances all of them. Each section is in transposed direct form II:
/// `y = b0·x + s1;  s1 = b1·x − a1·y + s2;  s2 = b2·x − a2·y`.
struct StereoCascade4 {
    private let b0: SIMD4<Float>, b1: SIMD4<Float>, b2: SIMD4<Float>, a1: SIMD4<Float>, a2: SIMD4<Float>
    private let c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, d1: SIMD4<Float>, d2: SIMD4<Float>
    private var left = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
    private var right = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())

    /// - Parameter lanes: one to four (first section, second section) pairs; missing lanes pass nothing.
    init(_ lanes: [(BiquadCoefficients, BiquadCoefficients)]) {
        precondition((1...4).contains(lanes.count))
        func lane(_ i: Int, _ pick: (BiquadCoefficients, BiquadCoefficients) -> Double) -> Float {
            i < lanes.count ? Float(pick(lanes[i].0, lanes[i].1)) : 0
        }
        func vector(_ pick: (BiquadCoefficients, BiquadCoefficients) -> Double) -> SIMD4<Float> {
            SIMD4(lane(0, pick), lane(1, pick), lane(2, pick), lane(3, pick))
        }
        b0 = vector { a, _ in a.b0 }; b1 = vector { a, _ in a.b1 }; b2 = vector { a, _ in a.b2 }
        a1 = vector { a, _ in a.a1 }; a2 = vector { a, _ in a.a2 }
        c0 = vector { _, b in b.b0 }; c1 = vector { _, b in b.b1 }; c2 = vector { _, b in b.b2 }
        d1 = vector { _, b in b.a1 }; d2 = vector { _, b in b.a2 }
    }

    mutating func reset() {
        left = (.zero, .zero, .zero, .zero)
        right = (.zero, .zero, .zero, .zero)
    }

    typealias Outputs = (UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?)

    mutating func process(
        left input: UnsafePointer<Float>, right inputRight: UnsafePointer<Float>, count: Int,
        leftOut: Outputs, rightOut: Outputs
    ) {
        var (l1, l2, l3, l4) = left
        var (r1, r2, r3, r4) = right
        for i in 0..<count {
            let xl = SIMD4<Float>(repeating: input[i]), xr = SIMD4<Float>(repeating: inputRight[i])
            let yl = b0 * xl + l1, yr = b0 * xr + r1
            l1 = b1 * xl - a1 * yl + l2; r1 = b1 * xr - a1 * yr + r2
            l2 = b2 * xl - a2 * yl;      r2 = b2 * xr - a2 * yr
            let zl = c0 * yl + l3, zr = c0 * yr + r3
            l3 = c1 * yl - d1 * zl + l4; r3 = c1 * yr - d1 * zr + r4
            l4 = c2 * yl - d2 * zl;      r4 = c2 * yr - d2 * zr
            leftOut.0?[i] = zl[0]; leftOut.1?[i] = zl[1]; leftOut.2?[i] = zl[2]; leftOut.3?[i] = zl[3]
            rightOut.0?[i] = zr[0]; rightOut.1?[i] = zr[1]; rightOut.2?[i] = zr[2]; rightOut.3?[i] = zr[3]
        }
        // Flush denormals that a decaying tail would otherwise leave behind.
        func flush(_ x: SIMD4<Float>) -> SIMD4<Float> {
            let magnitude = SIMD4<Float>(Swift.abs(x[0]), Swift.abs(x[1]), Swift.abs(x[2]), Swift.abs(x[3]))
            return x.replacing(with: 0, where: magnitude .< SIMD4<Float>(repeating: 1e-30))
        }
        left = (flush(l1), flush(l2), flush(l3), flush(l4))
        right = (flush(r1), flush(r2), flush(r3), flush(r4))
    }
}
