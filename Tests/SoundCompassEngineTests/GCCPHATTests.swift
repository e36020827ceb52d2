import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

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
        let estimate = l.withUnsafeBufferPointer { lp in r.withUnsafeBufferPointer { rp in gcc.estimate(left: lp, right: rp).delay } }
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
        let estimate = l.withUnsafeBufferPointer { lp in r.withUnsafeBufferPointer { rp in gcc.estimate(left: lp, right: rp).delay } }
        #expect(estimate.pinnedAtEdge)
        #expect(estimate.lagSamples == 23)
        #expect(estimate.confidence == 0)
    }

    @Test("silence gives no estimate and no confidence")
    func silence() {
        let zeros = [Float](repeating: 0, count: 1024)
        let gcc = GCCPHAT(frameLength: 1024, maxLagSamples: 10)
        let estimate = zeros.withUnsafeBufferPointer { gcc.estimate(left: $0, right: $0).delay }
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

struct DiffuseFieldTests {
    /// A pink-noise source at −60° plus an isotropic diffuse field 10 dB stronger (DRR −10 dB): 40
    /// uncorrelated pink-noise sources whose direction cosines along the pair's axis are spread
    /// evenly over −1…1, which is what a three-dimensional diffuse field looks like to a pair
    /// (its coherence is then sinc(2πfd/c)). 16 kHz, d = 0.15 m.
    static func scene(seed: UInt64) -> StereoSignal {
        let count = 40
        var sources = [Source(.pinkNoise, azimuth: -60, levelDBFS: -26, seed: seed)]
        for i in 0..<count {
            let u = -1 + (2 * Double(i) + 1) / Double(count)
            sources.append(Source(
                .pinkNoise, azimuth: asin(u) * 180 / Double.pi, levelDBFS: -16 - 10 * log10(Double(count)),
                seed: seed * 1000 + UInt64(i)))
        }
        return Scene(sampleRate: 16000, duration: 3, sources: sources, fade: 0).render()
    }

    /// Median azimuth (degrees) of the frames, with or without the diffuse-field correction.
    static func medianAzimuth(_ signal: StereoSignal, corrected: Bool) -> Double {
        let maxLag = 0.15 / 343 * 16000
        let gcc = GCCPHAT(frameLength: 512, maxLagSamples: maxLag, diffuseCoherenceDelaySamples: corrected ? maxLag : nil)
        var azimuths: [Double] = []
        for start in stride(from: 0, to: signal.count - 512, by: 256) {
            let e = signal.left.withUnsafeBufferPointer { l in
                signal.right.withUnsafeBufferPointer { r in
                    gcc.estimate(
                        left: UnsafeBufferPointer(rebasing: l[start..<(start + 512)]),
                        right: UnsafeBufferPointer(rebasing: r[start..<(start + 512)])).delay
                }
            }
            if start >= 2560 { azimuths.append(asin(max(-1, min(1, -e.lagSamples / maxLag))) * 180 / Double.pi) }
        }
        return median(azimuths)
    }

    @Test("a diffuse field does not pull the lag towards 0° once its coherence is subtracted", arguments: [1, 2] as [UInt64])
    func diffuseCorrection(seed: UInt64) {
        let signal = Self.scene(seed: seed)
        let plain = Self.medianAzimuth(signal, corrected: false)
        let corrected = Self.medianAzimuth(signal, corrected: true)
        // Measured when written: plain −17.4° and −55.0°, corrected −57.5° and −58.2°.
        #expect(abs(corrected + 60) <= 4, "corrected median \(corrected)°")
        #expect(abs(plain + 60) > abs(corrected + 60), "plain \(plain)°, corrected \(corrected)°")
    }
}
