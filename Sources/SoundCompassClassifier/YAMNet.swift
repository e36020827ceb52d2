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
/// matrix product (`cblas_sgemm`) and lets the depthwise convolution run eight channels at a
/// time. The first convolution is an im2col product.
///
/// Several patches (the sources of one moment) go through together as one batch: their
/// activations are stacked, so each pointwise product reads the layer's weights once for all of
/// them (OpenBLAS packs the weights on every call, which costs as much as the arithmetic for the
/// deep layers' few positions).
///
/// Life cycle: `init` allocates every buffer; ``logits(patches:count:into:)`` never allocates.
/// Not thread-safe (one instance per thread).
public final class YAMNet {
    /// Frames of a patch (0.96 s at 100 frames per second).
    public static let patchFrames = 96
    /// Mel bands of a frame.
    public static let melBands = 64
    /// Classes the network scores.
    public static let classCount = YAMNetWeights.classCount

    /// The weights.
    public let weights: YAMNetWeights
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
    public init(weights: YAMNetWeights, maximumBatch: Int = 1) {
        precondition(maximumBatch >= 1, "a batch holds at least one patch")
        self.maximumBatch = maximumBatch
        self.weights = weights
        if case .failure(let error) = BLAS.functions { preconditionFailure(error.description) }
        // Largest activation: the first block's pointwise output, 48 × 32 × 64.
        var h = Self.patchFrames / 2, w = Self.melBands / 2, largest = h * w * YAMNetWeights.firstChannels
        for block in weights.blocks {
            if block.stride == 2 { h /= 2; w /= 2 }
            largest = max(largest, h * w * max(block.inputChannels, block.outputChannels))
        }
        capacity = largest
        a = .allocate(capacity: largest * maximumBatch)
        b = .allocate(capacity: largest * maximumBatch)
        a.initialize(repeating: 0, count: largest * maximumBatch)
        b.initialize(repeating: 0, count: largest * maximumBatch)
        let positions = (Self.patchFrames / 2) * (Self.melBands / 2)
        columns = .allocate(capacity: positions * 9 * maximumBatch)
        columns.initialize(repeating: 0, count: positions * 9 * maximumBatch)
        pooled = .allocate(capacity: 1024 * maximumBatch)
        pooled.initialize(repeating: 0, count: 1024 * maximumBatch)
    }

    deinit {
        a.deallocate()
        b.deallocate()
        columns.deallocate()
        pooled.deallocate()
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
        weights.first.withUnsafeBufferPointer { wts in
            BLAS.multiplyTransposed(columns, wts.baseAddress!, into: a, m: count * h * w, n: YAMNetWeights.firstChannels, k: 9)
        }
        weights.firstBias.withUnsafeBufferPointer { addBiasReLU(a, rows: count * h * w, bias: $0) }
        // The 13 blocks: depthwise a → b (patch by patch), pointwise b → a (all patches in one product).
        for block in weights.blocks {
            let (oh, ow) = block.stride == 2 ? (h / 2, w / 2) : (h, w)
            let c = block.inputChannels
            block.depthwise.withUnsafeBufferPointer { k in
                block.depthwiseBias.withUnsafeBufferPointer { bias in
                    for n in 0..<count {
                        depthwise(a + n * h * w * c, b + n * oh * ow * c, height: h, width: w, channels: c,
                                  stride: block.stride, kernel: k.baseAddress!, bias: bias.baseAddress!)
                    }
                }
            }
            h = oh; w = ow
            block.pointwise.withUnsafeBufferPointer { wts in
                BLAS.multiplyTransposed(b, wts.baseAddress!, into: a, m: count * h * w, n: block.outputChannels, k: c)
            }
            block.pointwiseBias.withUnsafeBufferPointer { addBiasReLU(a, rows: count * h * w, bias: $0) }
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
        weights.dense.withUnsafeBufferPointer { wts in
            BLAS.multiplyTransposed(pooled, wts.baseAddress!, into: logits, m: count, n: Self.classCount, k: channels)
        }
        weights.denseBias.withUnsafeBufferPointer { bias in
            for n in 0..<count { for c in 0..<Self.classCount { logits[n * Self.classCount + c] += bias[c] } }
        }
    }

    /// `x[r][c] = max(0, x[r][c] + bias[c])`, eight channels at a time.
    private func addBiasReLU(_ x: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafeBufferPointer<Float>) {
        let channels = bias.count
        let raw = UnsafeMutableRawPointer(x), braw = UnsafeRawPointer(bias.baseAddress!)
        let zero = SIMD8<Float>()
        for r in 0..<rows {
            var c = 0
            while c < channels {
                let offset = (r * channels + c) * 4
                let v = raw.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                    + braw.loadUnaligned(fromByteOffset: c * 4, as: SIMD8<Float>.self)
                raw.storeBytes(of: v.replacing(with: zero, where: v .< zero), toByteOffset: offset, as: SIMD8<Float>.self)
                c += 8
            }
        }
    }

    /// Depthwise 3×3 convolution with bias and ReLU, SAME padding, channel-last, eight channels
    /// at a time (every channel count here is a multiple of 8).
    private func depthwise(
        _ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>, height: Int, width: Int,
        channels: Int, stride: Int, kernel: UnsafePointer<Float>, bias: UnsafePointer<Float>
    ) {
        let outH = stride == 2 ? height / 2 : height, outW = stride == 2 ? width / 2 : width
        let pad = stride == 2 ? 0 : 1
        let inRaw = UnsafeRawPointer(input), outRaw = UnsafeMutableRawPointer(output)
        let kRaw = UnsafeRawPointer(kernel), bRaw = UnsafeRawPointer(bias)
        let zero = SIMD8<Float>()
        for oy in 0..<outH {
            for ox in 0..<outW {
                let outBase = (oy * outW + ox) * channels
                var c = 0
                while c < channels {
                    var acc = bRaw.loadUnaligned(fromByteOffset: c * 4, as: SIMD8<Float>.self)
                    for ky in 0..<3 {
                        let y = oy * stride + ky - pad
                        if y < 0 || y >= height { continue }
                        for kx in 0..<3 {
                            let x = ox * stride + kx - pad
                            if x < 0 || x >= width { continue }
                            let v = inRaw.loadUnaligned(fromByteOffset: ((y * width + x) * channels + c) * 4, as: SIMD8<Float>.self)
                            let k = kRaw.loadUnaligned(fromByteOffset: ((3 * ky + kx) * channels + c) * 4, as: SIMD8<Float>.self)
                            acc += v * k
                        }
                    }
                    outRaw.storeBytes(of: acc.replacing(with: zero, where: acc .< zero), toByteOffset: (outBase + c) * 4, as: SIMD8<Float>.self)
                    c += 8
                }
            }
        }
    }

    /// The sigmoid of a logit: the class's score, 0…1.
    @inline(__always)
    public static func score(logit: Float) -> Float { 1 / (1 + expf(-logit)) }
}
