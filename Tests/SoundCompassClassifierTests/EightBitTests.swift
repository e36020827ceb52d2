import CGemm
import Foundation
@testable import SoundCompassClassifier
import TestSignals
import TestSupport
import Testing

/// The 8-bit products (`sc_gemm8`, ``YAMNet/Arithmetic/int8``): exact against their own
/// definition, within the quantisation's bound of the float product, the same on every version,
/// and the network's labels against the float graph's.
@Suite("8-bit products", .serialized)
struct EightBitTests {
    /// Seeded uniform values in `range`.
    static func values(_ count: Int, in range: ClosedRange<Float>, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in range.lowerBound + (range.upperBound - range.lowerBound) * Float(random.uniform()) }
    }

    /// `sc_gemm8` over quantised A and packed W, with the scales.
    static func product8(a: [Float], m: Int, k: Int, w: [Float], n: Int, bias: [Float], relu: Bool)
        -> (c: [Float], rowScales: [Float], columnScales: [Float])
    {
        // Packed weights 64-byte aligned, as the kernels load whole panel rows aligned.
        let bytes = sc_gemm8_packed_count(Int32(n), Int32(k))
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { raw.deallocate() }
        let packed = raw.bindMemory(to: Int8.self, capacity: bytes)
        var columnScales = [Float](repeating: 0, count: n), rowScales = [Float](repeating: 0, count: m)
        var q = [UInt8](repeating: 0, count: m * k), c = [Float](repeating: .nan, count: m * n)
        sc_gemm8_pack(w, Int32(n), Int32(k), packed, &columnScales)
        sc_quantize_rows_u8(a, Int32(m), Int32(k), &q, &rowScales)
        sc_gemm8(q, rowScales, Int32(m), Int32(k), packed, columnScales, Int32(n), bias, relu ? 1 : 0, &c)
        return (c, rowScales, columnScales)
    }

    @Test("sc_gemm8 within the quantisation's bound of the float product (37 × 64 × 45: partial tiles and panels); VNNI and portable C give the same bits")
    func products() {
        let m = 37, k = 64, n = 45
        // A as after a ReLU (some zeros, a row of zeros), W of both signs, a bias.
        var a = Self.values(m * k, in: -0.5...2, seed: 1).map { max(0, $0) }
        for p in 0..<k { a[5 * k + p] = 0 }
        let w = Self.values(n * k, in: -0.3...0.3, seed: 2), bias = Self.values(n, in: -1...1, seed: 3)
        sc_gemm8_use_portable(1)
        let portable = Self.product8(a: a, m: m, k: k, w: w, n: n, bias: bias, relu: false)
        sc_gemm8_use_portable(0)
        let best = Self.product8(a: a, m: m, k: k, w: w, n: n, bias: bias, relu: false)
        if sc_gemm8_has_vnni() != 0 {
            #expect(best.c == portable.c, "the VNNI version differs from the portable one")
        } else {
            print("8-bit products: no AVX-512 VNNI here; the portable version only")
        }
        // |error| ≤ Σₚ (|aₚ|·sᵂ/2 + |wₚ|·sᴬ/2 + sᴬ·sᵂ/4), plus float rounding.
        var worstShare = 0.0
        for i in 0..<m {
            for j in 0..<n {
                var exact = Double(bias[j]), bound = 0.0
                let sa = Double(portable.rowScales[i]), sw = Double(portable.columnScales[j])
                for p in 0..<k {
                    let x = Double(a[i * k + p]), y = Double(w[j * k + p])
                    exact += x * y
                    bound += abs(x) * sw / 2 + abs(y) * sa / 2 + sa * sw / 4
                }
                let error = abs(Double(portable.c[i * n + j]) - exact)
                #expect(error <= bound + 1e-5 * (1 + abs(exact)), "C[\(i)][\(j)] off by \(error), bound \(bound)")
                if bound > 0 { worstShare = max(worstShare, error / bound) }
            }
        }
        #expect(portable.rowScales[5] == 0 && (0..<n).allSatisfy { portable.c[5 * n + $0] == bias[$0] }, "a row of zeros gives the bias")
        print("8-bit products: largest error \(worstShare) of its bound")
        // ReLU: the same values, negatives at 0.
        let relu = Self.product8(a: a, m: m, k: k, w: w, n: n, bias: bias, relu: true)
        #expect(zip(relu.c, best.c).allSatisfy { $0 == max(0, $1) })
    }

    @Test("the 8-bit network on the committed patches: the float graph's best class, every score within 0.05 of its, and within 0.5 in logit where it scores 0.01 or more",
          .enabled(if: availableOrOnCI(modelAvailable), modelMissingComment))
    func network() throws {
        let classifier = try requireClassifier()
        let patches = try fixture("patches.f32")
        let float = YAMNet(weights: classifier.network.weights, maximumBatch: 5, arithmetic: .float32)
        let eight = YAMNet(weights: classifier.network.weights, maximumBatch: 5, arithmetic: .int8)
        var reference = [Float](repeating: 0, count: 5 * YAMNet.classCount), got = reference
        patches.withUnsafeBufferPointer { float.logits(patches: $0.baseAddress!, count: 5, into: &reference) }
        patches.withUnsafeBufferPointer { eight.logits(patches: $0.baseAddress!, count: 5, into: &got) }
        var worstLogit: Float = 0, worstScore: Float = 0, worstHeard: Float = 0
        for p in 0..<5 {
            let r = Array(reference[(p * YAMNet.classCount)..<((p + 1) * YAMNet.classCount)])
            let g = Array(got[(p * YAMNet.classCount)..<((p + 1) * YAMNet.classCount)])
            for c in r.indices {
                worstLogit = max(worstLogit, abs(r[c] - g[c]))
                worstScore = max(worstScore, abs(YAMNet.score(logit: r[c]) - YAMNet.score(logit: g[c])))
                if YAMNet.score(logit: r[c]) >= 0.01 { worstHeard = max(worstHeard, abs(r[c] - g[c])) }
            }
            #expect(r.indices.max { r[$0] < r[$1] } == g.indices.max { g[$0] < g[$1] }, "patch \(p): another best class")
        }
        print("8-bit network: largest |logit − float graph| \(worstLogit) (\(worstHeard) where the float score is 0.01 or more), largest |score − float graph| \(worstScore)")
        // Measured 0.037 and 0.37 (a logit far below zero moves more, and scores nothing either way).
        #expect(worstScore <= 0.05)
        #expect(worstHeard <= 0.5)
    }
}
