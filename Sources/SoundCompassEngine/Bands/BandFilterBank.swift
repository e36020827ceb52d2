/// The per-band streams: each band's filter runs on both channels as the samples arrive, and
/// keeps a frame's worth of filtered samples. The bank frames its own streams: ``append(left:right:count:)``
/// fills the current frame, ``advance(hop:)`` moves a full frame on by a hop, and the levels
/// can be read only from a full frame, so the band frames cannot drift from the frames of
/// whoever feeds it (the analyzer feeds both the same samples and moves both by the same hop).
///
/// A band is a cookbook Butterworth high-pass (Q = 1/√2) at its lower edge followed by a
/// Butterworth low-pass at its upper edge: −3 dB at each edge of a wide band, unity in between,
/// and 12 dB per octave outside, twice the skirt of a single band-pass biquad, so that a loud
/// band does not leak into its neighbours' levels. A low-pass edge above 0.49·fs is put at
/// 0.49·fs. The filters run in single precision (tested against a double-precision reference in
/// `BandFilterBankTests`). Life cycle: `init` allocates; `append`, `advance` and `levels` never
/// allocate.
package final class BandFilterBank {
    /// A read-only view of one band's frame on one channel (the bank keeps the samples of a
    /// group of four bands interleaved, one band per SIMD lane).
    package struct FrameView {
        fileprivate let base: UnsafeMutablePointer<Float>
        /// Sample `n` of the frame, `0 ..< frameLength`.
        package subscript(n: Int) -> Float { base[4 * n] }
    }

    /// One band's frame of filtered samples on each channel, valid while the bank lives.
    package struct Band {
        /// The band's last `frameLength` filtered samples of the left channel.
        package let leftFrame: FrameView
        /// The band's last `frameLength` filtered samples of the right channel.
        package let rightFrame: FrameView
    }

    /// The bands, in the order given.
    package let bands: [Band]
    /// Samples per band frame.
    package let frameLength: Int
    /// Samples of the current frame filled so far, `0…frameLength`.
    package private(set) var filled = 0
    /// The filters, four bands to a group, each band a lane of the SIMD cascade.
    private var groups: [StereoCascade4]
    /// Each group's frames: sample `n` of the group's four bands is the `SIMD4` at `4·n`.
    private let leftFrames: [AlignedFloats]
    private let rightFrames: [AlignedFloats]
    /// Each group's second moments over the current frame, once measured (see `moments(_:)`).
    private var groupMoments: [GroupMoments]
    /// Bumped by every change of the frames; a group's moments are current when their
    /// `generation` equals it.
    private var generation = 1

    /// `Σ L²`, `Σ R²` and `Σ L·R` of a group's four bands, summed in the order of
    /// `sumOfSquares` and `ChannelCovariance` on a band's own frame (so the levels are the
    /// same to the last bit).
    private struct GroupMoments {
        var generation = 0
        /// Whether `cross` is measured too (only the coincident model's level cue reads it).
        var hasCross = false
        var leftSquares = SIMD4<Double>(), rightSquares = SIMD4<Double>(), cross = SIMD4<Double>()
    }

    /// - Parameters:
    ///   - specs: the bands, each `0 < low < high`, `low < sampleRate/2`.
    ///   - sampleRate: Hz.
    ///   - frameLength: samples per band frame (≥ 1).
    package init(bands specs: [BandSpec], sampleRate: Double, frameLength: Int) {
        self.frameLength = frameLength
        let groupCount = (specs.count + 3) / 4
        let leftFrames = (0..<groupCount).map { _ in AlignedFloats(count: 4 * frameLength) }
        let rightFrames = (0..<groupCount).map { _ in AlignedFloats(count: 4 * frameLength) }
        self.leftFrames = leftFrames
        self.rightFrames = rightFrames
        self.bands = specs.indices.map { i in
            Band(leftFrame: FrameView(base: leftFrames[i / 4].baseAddress + i % 4),
                 rightFrame: FrameView(base: rightFrames[i / 4].baseAddress + i % 4))
        }
        self.groupMoments = Array(repeating: GroupMoments(), count: groupCount)
        self.groups = stride(from: 0, to: specs.count, by: 4).map { start in
            let lanes = specs[start..<min(start + 4, specs.count)].map { spec in
                (BiquadCoefficients.highPass(cutoff: spec.low, sampleRate: sampleRate),
                 BiquadCoefficients.lowPass(cutoff: min(spec.high, 0.49 * sampleRate), sampleRate: sampleRate))
            }
            return StereoCascade4(lanes)
        }
    }

    /// Filters `count` new samples and appends them to every band's current frame.
    /// - Parameters:
    ///   - left: `count` new left-channel samples.
    ///   - right: `count` new right-channel samples.
    ///   - count: samples per channel, at most `frameLength − filled` (a frame is never overfilled).
    @inline(never)  // a stage of its own in Benchmarks/profile.py
    package func append(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) {
        precondition(count >= 0 && filled + count <= frameLength, "more samples than the band frame has room for")
        let offset = filled
        filled += count
        generation &+= 1
        for g in groups.indices {
            groups[g].process(
                left: left, right: right, count: count,
                leftOut: leftFrames[g].baseAddress + 4 * offset, rightOut: rightFrames[g].baseAddress + 4 * offset)
        }
    }

    /// Moves a full frame on by `hop` samples: drops its first `hop` samples and keeps the rest,
    /// `frameLength − hop`, as the start of the next frame.
    /// - Parameter hop: samples, `1…frameLength`.
    package func advance(hop: Int) {
        precondition(filled == frameLength, "the band frame is not full")
        precondition(hop > 0 && hop <= frameLength, "hop must be 1…frameLength samples")
        let keep = frameLength - hop
        filled = keep
        guard keep > 0 else { return }
        generation &+= 1
        let bytes = 4 * keep * MemoryLayout<Float>.stride
        // memmove: the regions overlap.
        for frame in leftFrames {
            UnsafeMutableRawPointer(frame.baseAddress).copyMemory(from: frame.baseAddress + 4 * hop, byteCount: bytes)
        }
        for frame in rightFrames {
            UnsafeMutableRawPointer(frame.baseAddress).copyMemory(from: frame.baseAddress + 4 * hop, byteCount: bytes)
        }
    }

    /// RMS levels of band `index` over the current frame, which must be full.
    package func levels(_ index: Int) -> ChannelLevels {
        precondition(filled == frameLength, "the band frame is not full")
        let moments = moments(index / 4, cross: false), lane = index % 4
        let n = Double(frameLength)
        return ChannelLevels(
            leftRMS: (moments.leftSquares[lane] / n).squareRoot(), rightRMS: (moments.rightSquares[lane] / n).squareRoot())
    }

    /// Second moments (`L²`, `R²`, `L·R`) of band `index` over the current frame, for the
    /// coincident model's level cue. The current frame must be full.
    package func covariance(_ index: Int) -> ChannelCovariance {
        precondition(filled == frameLength, "the band frame is not full")
        let moments = moments(index / 4, cross: true), lane = index % 4
        let n = Double(frameLength)
        return ChannelCovariance(
            leftPower: moments.leftSquares[lane] / n, rightPower: moments.rightSquares[lane] / n,
            crossPower: moments.cross[lane] / n)
    }

    /// Clears the filters' state and the band frames (as if the input had been silent forever).
    package func reset() {
        generation &+= 1
        filled = 0
        for g in groups.indices { groups[g].reset() }
        for frame in leftFrames { frame.zero() }
        for frame in rightFrames { frame.zero() }
    }

    /// The second moments of group `g`'s bands over the current frame (`cross`: with `Σ L·R`),
    /// measured once per frame.
    ///
    /// `sumOfSquares` (and `ChannelCovariance`) sum a band's frame in eight lanes, sample `i` in
    /// lane `i mod 8`, then add the lanes with `SIMD8.sum()` and the last `frameLength mod 8`
    /// samples in double precision. Here accumulator `j` holds lane `j` of all four bands (one
    /// band per `SIMD4` lane): the same additions in the same order, one pass for four bands.
    private func moments(_ g: Int, cross: Bool) -> GroupMoments {
        let known = groupMoments[g]
        if known.generation == generation && (known.hasCross || !cross) { return known }
        typealias V = SIMD4<Float>
        let count = frameLength
        let left = UnsafeRawPointer(leftFrames[g].baseAddress), right = UnsafeRawPointer(rightFrames[g].baseAddress)
        let stride = MemoryLayout<V>.stride
        @inline(__always) func load(_ p: UnsafeRawPointer, _ i: Int) -> V { p.loadUnaligned(fromByteOffset: i * stride, as: V.self) }
        /// Σ a·b over the frame, in the lane order described above.
        @inline(__always) func sum(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> SIMD4<Double> {
            var s0 = V(), s1 = V(), s2 = V(), s3 = V(), s4 = V(), s5 = V(), s6 = V(), s7 = V()
            var i = 0
            while i + 8 <= count {
                s0 += load(a, i) * load(b, i); s1 += load(a, i + 1) * load(b, i + 1)
                s2 += load(a, i + 2) * load(b, i + 2); s3 += load(a, i + 3) * load(b, i + 3)
                s4 += load(a, i + 4) * load(b, i + 4); s5 += load(a, i + 5) * load(b, i + 5)
                s6 += load(a, i + 6) * load(b, i + 6); s7 += load(a, i + 7) * load(b, i + 7)
                i += 8
            }
            var total = SIMD4<Double>()
            for lane in 0..<4 {
                total[lane] = Double(SIMD8(s0[lane], s1[lane], s2[lane], s3[lane], s4[lane], s5[lane], s6[lane], s7[lane]).sum())
            }
            while i < count {
                let x = load(a, i) * load(b, i)
                for lane in 0..<4 { total[lane] += Double(x[lane]) }
                i += 1
            }
            return total
        }
        var moments = known
        if known.generation != generation {
            moments = GroupMoments(generation: generation)
            moments.leftSquares = sum(left, left)
            moments.rightSquares = sum(right, right)
        }
        if cross && !moments.hasCross {
            moments.cross = sum(left, right)
            moments.hasCross = true
        }
        groupMoments[g] = moments
        return moments
    }
}

/// Up to four bands' cascades (a high-pass then a low-pass biquad) on both channels, one band
/// per SIMD lane: the recursions of different bands are independent, so one vector step
/// advances all of them. Each section is in transposed direct form II:
/// `y = b0·x + s1;  s1 = b1·x − a1·y + s2;  s2 = b2·x − a2·y`.
///
/// The cookbook's high-pass has `b1 = −2·b0` and `b2 = b0`, its low-pass `b1 = 2·b0` and
/// `b2 = b0`, exactly (in double precision and so in single: doubling is exact), so each
/// section takes one product of its input, `b0·x`, and doubles it instead of two more
/// multiplications: the same values to the bit (`−2·(b0·x)` is `(−2·b0)·x` rounded), with
/// four coefficient vectors fewer to keep in registers.
struct StereoCascade4 {
    private let b0: SIMD4<Float>, a1: SIMD4<Float>, a2: SIMD4<Float>
    private let c0: SIMD4<Float>, d1: SIMD4<Float>, d2: SIMD4<Float>
    private var left = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
    private var right = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())

    /// - Parameter lanes: one to four (high-pass, low-pass) pairs from ``BiquadCoefficients``'
    ///   cookbook designs; missing lanes pass nothing.
    init(_ lanes: [(BiquadCoefficients, BiquadCoefficients)]) {
        precondition((1...4).contains(lanes.count))
        for (high, low) in lanes {
            precondition(
                Float(high.b1) == -2 * Float(high.b0) && high.b2 == high.b0
                    && Float(low.b1) == 2 * Float(low.b0) && low.b2 == low.b0,
                "StereoCascade4 takes a cookbook high-pass then a cookbook low-pass")
        }
        func lane(_ i: Int, _ pick: (BiquadCoefficients, BiquadCoefficients) -> Double) -> Float {
            i < lanes.count ? Float(pick(lanes[i].0, lanes[i].1)) : 0
        }
        func vector(_ pick: (BiquadCoefficients, BiquadCoefficients) -> Double) -> SIMD4<Float> {
            SIMD4(lane(0, pick), lane(1, pick), lane(2, pick), lane(3, pick))
        }
        b0 = vector { a, _ in a.b0 }; a1 = vector { a, _ in a.a1 }; a2 = vector { a, _ in a.a2 }
        c0 = vector { _, b in b.b0 }; d1 = vector { _, b in b.a1 }; d2 = vector { _, b in b.a2 }
    }

    mutating func reset() {
        left = (.zero, .zero, .zero, .zero)
        right = (.zero, .zero, .zero, .zero)
    }

    /// Filters `count` samples of each channel into `leftOut` and `rightOut`: output sample
    /// `i` of all four lanes is the `SIMD4` at `4·i` (`4·count` floats each).
    mutating func process(
        left input: UnsafePointer<Float>, right inputRight: UnsafePointer<Float>, count: Int,
        leftOut: UnsafeMutablePointer<Float>, rightOut: UnsafeMutablePointer<Float>
    ) {
        let leftRaw = UnsafeMutableRawPointer(leftOut), rightRaw = UnsafeMutableRawPointer(rightOut)
        var (l1, l2, l3, l4) = left
        var (r1, r2, r3, r4) = right
        for i in 0..<count {
            let xl = SIMD4<Float>(repeating: input[i]), xr = SIMD4<Float>(repeating: inputRight[i])
            // High-pass: b1·x = −2·(b0·x), b2·x = b0·x; (−u − v) + w is w − (u + v) to the bit.
            let bl = b0 * xl, br = b0 * xr
            let yl = bl + l1, yr = br + r1
            l1 = l2 - ((bl + bl) + a1 * yl); r1 = r2 - ((br + br) + a1 * yr)
            l2 = bl - a2 * yl;               r2 = br - a2 * yr
            // Low-pass: c1·y = 2·(c0·y), c2·y = c0·y.
            let cl = c0 * yl, cr = c0 * yr
            let zl = cl + l3, zr = cr + r3
            l3 = ((cl + cl) - d1 * zl) + l4; r3 = ((cr + cr) - d1 * zr) + r4
            l4 = cl - d2 * zl;               r4 = cr - d2 * zr
            leftRaw.storeBytes(of: zl, toByteOffset: 16 * i, as: SIMD4<Float>.self)
            rightRaw.storeBytes(of: zr, toByteOffset: 16 * i, as: SIMD4<Float>.self)
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
