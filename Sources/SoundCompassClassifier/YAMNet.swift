import CGemm

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// YAMNet's network on one log-mel patch: 96 frames × 64 mel bands in, 521 logits out.
///
/// TensorFlow "SAME" padding throughout (stride 1: one row/column of zeros on every side;
/// stride 2 on even sizes: one only at the bottom and right). Activations are kept
/// channel-last (`[row][column][channel]`), which makes a pointwise convolution exactly one
/// matrix product and lets the depthwise convolution run along contiguous channels. The first
/// convolution is an im2col product.
///
/// The arithmetic is the `CGemm` C target's (our own code): a register-tiled matrix product
/// over weights packed once, here, into 32-column panels, with bias and ReLU applied as each
/// tile is stored, and the depthwise convolution; each in an AVX-512, an AVX2+FMA and a portable
/// version chosen at run time from CPUID (``instructionSet``).
///
/// With ``Arithmetic/int8`` the 13 pointwise products run on 8-bit operands with 32-bit sums
/// (`sc_gemm8`): weights quantised once per output channel, each position's activations as they
/// come (they are non-negative, out of a ReLU); the first and depthwise convolutions and the
/// dense layer stay in float. On a CPU with AVX-512 VNNI one instruction does four multiply-adds
/// per lane, and the weights streamed per pass are 4 MB instead of 15. Its logits are not the
/// float graph's to 1e-3 (Docs/Classification.md measures how near they are, and what it does to
/// the labels); ``Arithmetic/float32`` is the graph.
///
/// Several patches (the sources of one moment) go through together as one batch: their
/// activations are stacked, so each pointwise product reads the layer's weights once for all of
/// them (the deep layers have only 6–24 positions per patch, and 15 MB of weights in all).
///
/// Life cycle: `init` packs the weights and allocates every buffer;
/// ``logits(patches:count:into:)`` never allocates. Not thread-safe (one instance per thread).
public final class YAMNet {
    /// Frames of a patch (0.96 s at 100 frames per second).
    public static let patchFrames = 96
    /// Mel bands of a frame.
    public static let melBands = 64
    /// Classes the network scores.
    public static let classCount = YAMNetWeights.classCount

    /// The instruction set the products run on: `"avx512"`, `"avx2"` or `"portable"` (the
    /// best this CPU and OS support).
    public static var instructionSet: String { name(of: sc_gemm_current()) }

    static func name(of isa: sc_gemm_isa) -> String {
        switch isa {
        case SC_GEMM_AVX512: "avx512"
        case SC_GEMM_AVX2: "avx2"
        default: "portable"
        }
    }

    /// Makes every later forward pass in this process use `name` (`"avx512"`, `"avx2"` or
    /// `"portable"`), for tests and benchmarks comparing the versions.
    /// - Returns: false (and nothing changes) when this machine cannot run it.
    @discardableResult
    public static func useInstructionSet(_ name: String) -> Bool {
        let isa: sc_gemm_isa
        switch name {
        case "avx512": isa = SC_GEMM_AVX512
        case "avx2": isa = SC_GEMM_AVX2
        case "portable": isa = SC_GEMM_PORTABLE
        default: return false
        }
        return sc_gemm_use(isa) != 0
    }

    /// Every instruction set this machine can run, best first.
    public static var supportedInstructionSets: [String] {
        let best = sc_gemm_best().rawValue
        return [SC_GEMM_AVX512, SC_GEMM_AVX2, SC_GEMM_PORTABLE].filter { $0.rawValue <= best }.map(name(of:))
    }

    /// How the pointwise products compute.
    public enum Arithmetic: Sendable {
        /// Float, every product: the float graph to 1e-3.
        case float32
        /// The pointwise products on 8-bit operands, 32-bit sums, a float scale per weight
        /// column and per activation row.
        case int8
    }

    /// The faster arithmetic on this machine: ``Arithmetic/int8`` where the CPU has AVX-512
    /// VNNI, else ``Arithmetic/float32`` (the 8-bit products' portable C version is slower than
    /// the float kernels).
    public static var fastestArithmetic: Arithmetic { sc_gemm8_has_vnni() != 0 ? .int8 : .float32 }

    /// The arithmetic of this network's products.
    public let arithmetic: Arithmetic

    /// The weights.
    public let weights: YAMNetWeights
    /// A pointwise (or first, or dense) layer's weights packed for `sc_gemm` (float) or for
    /// `sc_gemm8` (8-bit, with a scale per output column), and its shape.
    private struct Packed {
        var weights: UnsafeMutablePointer<Float>? = nil
        var bytes: UnsafeMutablePointer<Int8>? = nil
        var scales: UnsafeMutablePointer<Float>? = nil
        let outputs: Int, inputs: Int
    }
    private let first: Packed
    private let pointwise: [Packed]
    private let dense: Packed
    /// The allocations that hold every packed layer: float, and with ``Arithmetic/int8`` the
    /// 8-bit layers and their scales.
    private let packedBlock: UnsafeMutablePointer<Float>
    private let packedBytes: UnsafeMutablePointer<Float>?
    private let packedScales: UnsafeMutablePointer<Float>?
    /// With ``Arithmetic/int8``: one product's activations quantised, and their row scales.
    private let quantized: UnsafeMutablePointer<UInt8>?
    private let rowScales: UnsafeMutablePointer<Float>?
    private let a: UnsafeMutablePointer<Float>
    private let b: UnsafeMutablePointer<Float>
    private let columns: UnsafeMutablePointer<Float>
    private let pooled: UnsafeMutablePointer<Float>
    private let capacity: Int
    /// Most patches per call.
    public let maximumBatch: Int

    /// - Parameters:
    ///   - weights: the network's weights.
    ///   - maximumBatch: most patches per ``logits(patches:count:into:)`` call (≥ 1).
    ///   - arithmetic: how the pointwise products compute (the first convolution, the
    ///     depthwise ones and the dense layer are float either way).
    public init(weights: YAMNetWeights, maximumBatch: Int = 1, arithmetic: Arithmetic = .float32) {
        precondition(maximumBatch >= 1, "a batch holds at least one patch")
        self.maximumBatch = maximumBatch
        self.weights = weights
        self.arithmetic = arithmetic
        let eight = arithmetic == .int8
        // Every layer's packed weights in one block (huge pages; each layer 64-byte aligned, as
        // the kernels load whole panel rows aligned): the float layers in one, the 8-bit ones in
        // another.
        let shapes = [(YAMNetWeights.firstChannels, 9)] + weights.blocks.map { ($0.outputChannels, $0.inputChannels) }
            + [(Self.classCount, weights.blocks.last!.outputChannels)]
        // 8-bit: the pointwise layers (the dense layer's product is small, and its error would
        // go straight into the logits).
        let isEight = shapes.indices.map { eight && $0 > 0 && $0 < shapes.count - 1 }
        let floats = shapes.enumerated().map { i, shape in
            isEight[i] ? 0 : (sc_gemm_packed_count(Int32(shape.0), Int32(shape.1)) + 15) / 16 * 16
        }
        let bytes = shapes.enumerated().map { i, shape in
            isEight[i] ? (sc_gemm8_packed_count(Int32(shape.0), Int32(shape.1)) + 63) / 64 * 64 : 0
        }
        guard let block = sc_gemm_allocate(floats.reduce(0, +)) else { preconditionFailure("out of memory for YAMNet's weights") }
        packedBlock = block
        packedBytes = eight ? sc_gemm_allocate(bytes.reduce(0, +) / 4) : nil
        let scaleCounts = shapes.enumerated().map { i, shape in isEight[i] ? (shape.0 + 15) / 16 * 16 : 0 }
        packedScales = eight ? Self.aligned(scaleCounts.reduce(0, +)) : nil
        precondition(!eight || packedBytes != nil, "out of memory for YAMNet's weights")
        var next = block
        var nextByte = packedBytes.map { UnsafeMutableRawPointer($0).bindMemory(to: Int8.self, capacity: bytes.reduce(0, +)) }
        var nextScale = packedScales
        func pack(_ w: [Float], outputs: Int, inputs: Int, layer: Int) -> Packed {
            var packed = Packed(outputs: outputs, inputs: inputs)
            if isEight[layer], let b = nextByte, let s = nextScale {
                precondition(inputs % 4 == 0, "8-bit products take inputs in fours")
                w.withUnsafeBufferPointer { sc_gemm8_pack($0.baseAddress!, Int32(outputs), Int32(inputs), b, s) }
                packed.bytes = b
                packed.scales = s
                nextByte = b + bytes[layer]
                nextScale = s + scaleCounts[layer]
            } else {
                let p = next
                next += floats[layer]
                w.withUnsafeBufferPointer { sc_gemm_pack($0.baseAddress!, Int32(outputs), Int32(inputs), p) }
                packed.weights = p
            }
            return packed
        }
        first = pack(weights.first, outputs: YAMNetWeights.firstChannels, inputs: 9, layer: 0)
        pointwise = weights.blocks.enumerated().map { i, b in
            pack(b.pointwise, outputs: b.outputChannels, inputs: b.inputChannels, layer: i + 1)
        }
        dense = pack(weights.dense, outputs: Self.classCount, inputs: weights.blocks.last!.outputChannels, layer: shapes.count - 1)
        // Largest activation: the first block's pointwise output, 48 × 32 × 64.
        var h = Self.patchFrames / 2, w = Self.melBands / 2, largest = h * w * YAMNetWeights.firstChannels
        for block in weights.blocks {
            if block.stride == 2 { h /= 2; w /= 2 }
            largest = max(largest, h * w * max(block.inputChannels, block.outputChannels))
        }
        capacity = largest
        a = Self.aligned(largest * maximumBatch)
        b = Self.aligned(largest * maximumBatch)
        let positions = (Self.patchFrames / 2) * (Self.melBands / 2)
        columns = Self.aligned(positions * 9 * maximumBatch)
        pooled = Self.aligned(1024 * maximumBatch)
        if eight {
            let q = UnsafeMutablePointer<UInt8>.allocate(capacity: largest * maximumBatch)
            q.initialize(repeating: 0, count: largest * maximumBatch)
            quantized = q
            rowScales = Self.aligned(positions * maximumBatch)
        } else {
            quantized = nil
            rowScales = nil
        }
    }

    /// `count` zeroed floats, 64-byte aligned.
    private static func aligned(_ count: Int) -> UnsafeMutablePointer<Float> {
        let p = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64).bindMemory(to: Float.self, capacity: count)
        p.initialize(repeating: 0, count: count)
        return p
    }

    deinit {
        a.deallocate()
        b.deallocate()
        columns.deallocate()
        pooled.deallocate()
        sc_gemm_free(packedBlock)
        packedBytes.map(sc_gemm_free)
        packedScales?.deallocate()
        quantized?.deallocate()
        rowScales?.deallocate()
    }

    /// The 521 logits (before the sigmoid) of one patch.
    /// - Parameters:
    ///   - patch: `96 × 64` log-mel values, frame-major (`patch[64·frame + band]`).
    ///   - logits: room for 521 values.
    public func logits(patch: UnsafePointer<Float>, into logits: UnsafeMutablePointer<Float>) {
        self.logits(patches: patch, count: 1, into: logits)
    }

    /// The logits of `count` patches at once.
    /// - Parameters:
    ///   - patches: `count` patches of `96 × 64` log-mel values one after another, each
    ///     frame-major.
    ///   - count: 1…``maximumBatch``.
    ///   - logits: room for `521·count` values, patch-major.
    public func logits(patches: UnsafePointer<Float>, count: Int, into logits: UnsafeMutablePointer<Float>) {
        precondition((1...maximumBatch).contains(count), "1…\(maximumBatch) patches per call")
        // First convolution, 3×3 stride 2 to 32 channels: im2col, then one product.
        let inH = Self.patchFrames, inW = Self.melBands
        var h = inH / 2, w = inW / 2
        for n in 0..<count {
            let patch = patches + n * inH * inW
            for oy in 0..<h {
                for ox in 0..<w {
                    let row = columns + ((n * h + oy) * w + ox) * 9
                    for ky in 0..<3 {
                        let y = 2 * oy + ky
                        for kx in 0..<3 {
                            let x = 2 * ox + kx
                            row[3 * ky + kx] = (y < inH && x < inW) ? patch[y * inW + x] : 0
                        }
                    }
                }
            }
        }
        weights.firstBias.withUnsafeBufferPointer { bias in
            product(columns, first, rows: count * h * w, bias: bias.baseAddress!, relu: true, into: a)
        }
        // The 13 blocks: depthwise a → b (patch by patch), pointwise b → a (all patches in one product).
        for (index, block) in weights.blocks.enumerated() {
            let (oh, ow) = block.stride == 2 ? (h / 2, w / 2) : (h, w)
            let c = block.inputChannels
            block.depthwise.withUnsafeBufferPointer { k in
                block.depthwiseBias.withUnsafeBufferPointer { bias in
                    for n in 0..<count {
                        sc_depthwise3x3(
                            a + n * h * w * c, b + n * oh * ow * c, Int32(h), Int32(w), Int32(c), Int32(block.stride),
                            k.baseAddress!, bias.baseAddress!)
                    }
                }
            }
            h = oh; w = ow
            block.pointwiseBias.withUnsafeBufferPointer { bias in
                product(b, pointwise[index], rows: count * h * w, bias: bias.baseAddress!, relu: true, into: a)
            }
        }
        // Global average pooling, then the dense layer.
        let channels = weights.blocks.last!.outputChannels
        pooled.update(repeating: 0, count: count * channels)
        let scale = 1 / Float(h * w)
        for n in 0..<count {
            let out = pooled + n * channels, x = a + n * h * w * channels
            for p in 0..<(h * w) { for c in 0..<channels { out[c] += x[p * channels + c] } }
            for c in 0..<channels { out[c] *= scale }
        }
        weights.denseBias.withUnsafeBufferPointer { bias in
            product(pooled, dense, rows: count, bias: bias.baseAddress!, relu: false, into: logits)
        }
    }

    /// `output[rows × outputs] = act(input[rows × inputs] · Wᵀ + bias)` through `sc_gemm`, or
    /// through `sc_gemm8` on the input quantised per row when the layer is packed in 8 bits.
    @inline(__always)
    private func product(
        _ input: UnsafePointer<Float>, _ layer: Packed, rows: Int, bias: UnsafePointer<Float>, relu: Bool,
        into output: UnsafeMutablePointer<Float>
    ) {
        if let bytes = layer.bytes, let scales = layer.scales, let quantized, let rowScales {
            sc_quantize_rows_u8(input, Int32(rows), Int32(layer.inputs), quantized, rowScales)
            sc_gemm8(
                quantized, rowScales, Int32(rows), Int32(layer.inputs), bytes, scales, Int32(layer.outputs), bias,
                relu ? 1 : 0, output)
        } else {
            // Every layer is packed one way or the other (init).
            sc_gemm(input, Int32(rows), Int32(layer.inputs), layer.weights!, Int32(layer.outputs), bias, relu ? 1 : 0, output)
        }
    }

    /// The sigmoid of a logit: the class's score, 0…1.
    @inline(__always)
    public static func score(logit: Float) -> Float { 1 / (1 + expf(-logit)) }
}
