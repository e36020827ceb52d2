import Foundation
import Testing
import SoundCompass
import TestSignals

struct GCCPHATTests {
    /// One frame of white noise and a copy delayed by `delay` samples (exact, frequency domain).
    static func pair(delay: Double, frame: Int = 2048, seed: UInt64 = 1) -> ([Float], [Float]) {
        let source = Generators.whiteNoise(count: frame + 512, rms: 0.1, seed: seed)
        let copies = FractionalDelay.exact(source, delays: [0, delay])
        return (Array(copies[0][256..<(256 + frame)]).map(Float.init), Array(copies[1][256..<(256 + frame)]).map(Float.init))
    }

    @Test("sub-sample lag of a known delay", arguments: [0.0, 0.25, -3.4, 7.5, 12.75, -20.1])
    func recoversFractionalDelay(delay: Double) {
        let (l, r) = Self.pair(delay: delay)
        let gcc = GCCPHAT(frameLength: 2048, maxLagSamples: 21)
        let estimate = l.withUnsafeBufferPointer { lp in r.withUnsafeBufferPointer { rp in gcc.estimate(left: lp, right: rp) } }
        #expect(abs(estimate.lagSamples - delay) < 0.02, "lag \(estimate.lagSamples) for true \(delay)")
        #expect(estimate.confidence > 0.9)
        #expect(estimate.peakHeight > 0.5)
    }

    @Test("a delay outside the lag window is pinned at the edge and earns no confidence")
    func pinnedPeakHasNoConfidence() {
        // Low-passed noise has a broad correlation peak whose flank reaches into the window.
        let source = Generators.bandNoise(count: 2048 + 512, sampleRate: 48000, low: 50, high: 1500, rms: 0.1, seed: 2)
        let copies = FractionalDelay.exact(source, delays: [0, 27])
        let l = Array(copies[0][256..<2304]).map(Float.init), r = Array(copies[1][256..<2304]).map(Float.init)
        let gcc = GCCPHAT(frameLength: 2048, maxLagSamples: 21)
        let estimate = l.withUnsafeBufferPointer { lp in r.withUnsafeBufferPointer { rp in gcc.estimate(left: lp, right: rp) } }
        #expect(estimate.pinnedAtEdge)
        #expect(estimate.lagSamples == 23)
        #expect(estimate.confidence == 0)
    }

    @Test("silence gives no estimate and no confidence")
    func silence() {
        let zeros = [Float](repeating: 0, count: 1024)
        let gcc = GCCPHAT(frameLength: 1024, maxLagSamples: 10)
        let estimate = zeros.withUnsafeBufferPointer { gcc.estimate(left: $0, right: $0) }
        #expect(estimate == .none)
    }

    @Test("the window covers the physical lag plus a margin")
    func windowSize() {
        let gcc = GCCPHAT(frameLength: 2048, maxLagSamples: 20.99)
        #expect(gcc.searchLag == 23)
        #expect(gcc.fftSize == 2048)
        #expect(GCCPHAT(frameLength: 1896, maxLagSamples: 5).fftSize == 2048)
    }
}
