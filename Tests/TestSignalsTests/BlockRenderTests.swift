import Foundation
import Testing
@testable import TestSignals

/// `Scene.render(mismatch:_:)`: a short scene is `render()`; a long one comes in segments
/// joined by crossfades that keep the spatial cues and the level.
struct BlockRenderTests {
    /// All blocks of a render, concatenated, and how many blocks there were.
    static func collect(_ render: ((StereoSignal) -> Void) -> Void) -> (signal: StereoSignal, blocks: Int) {
        var left = [Float](), right = [Float](), rate = 0.0, blocks = 0
        render { block in
            left += block.left
            right += block.right
            rate = block.sampleRate
            blocks += 1
        }
        return (StereoSignal(left: left, right: right, sampleRate: rate), blocks)
    }

    /// A render of `scene` in segments of `budget` samples (every scene is "long" here).
    static func segmented(_ scene: Scene, mismatch: ChannelMismatch = ChannelMismatch(), budget: Int = 1 << 14)
        -> (signal: StereoSignal, blocks: Int)
    {
        let renderer = SegmentedRender(
            scene: scene, mismatch: mismatch, wholeLimit: 0, segmentBudget: budget, whole: scene.render) { _ in scene }
        return collect { body in renderer.run(body) }
    }

    /// The delay of `right` behind `left` over `window` (samples, fractional): the maximum of the
    /// band-limited cross-correlation of the Hann-windowed pieces, found to 10⁻⁴ sample.
    static func delay(_ signal: StereoSignal, _ window: Range<Int>) -> Double {
        let n = ComplexFFT.size(atLeast: 2 * window.count)
        var lr = [Double](repeating: 0, count: n), li = lr, rr = lr, ri = lr
        for (i, index) in window.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(window.count))
            lr[i] = Double(signal.left[index]) * w
            rr[i] = Double(signal.right[index]) * w
        }
        ComplexFFT.transform(re: &lr, im: &li, inverse: false)
        ComplexFFT.transform(re: &rr, im: &ri, inverse: false)
        // C_k = conj(L_k)·R_k = |L_k|²·e^(−2πikτ/N) for a right channel delayed by τ.
        let bins = 1..<(n / 2)
        let cr = bins.map { lr[$0] * rr[$0] + li[$0] * ri[$0] }, ci = bins.map { lr[$0] * ri[$0] - li[$0] * rr[$0] }
        func correlation(_ d: Double) -> Double {
            var sum = 0.0
            for (j, k) in bins.enumerated() {
                let angle = 2 * Double.pi * Double(k) * d / Double(n)
                sum += cr[j] * cos(angle) - ci[j] * sin(angle)
            }
            return sum
        }
        let coarse = (-40...40).max { correlation(Double($0)) < correlation(Double($1)) }!
        var low = Double(coarse) - 1, high = Double(coarse) + 1
        while high - low > 1e-4 {
            let a = low + (high - low) / 3, b = high - (high - low) / 3
            if correlation(a) < correlation(b) { low = a } else { high = b }
        }
        return (low + high) / 2
    }

    static func rms(_ signal: StereoSignal, _ range: Range<Int>) -> Double {
        var sum = 0.0
        for i in range { sum += Double(signal.left[i] * signal.left[i] + signal.right[i] * signal.right[i]) / 2 }
        return (sum / Double(range.count)).squareRoot()
    }

    @Test("a scene of at most wholeRenderLimit samples comes as one block equal to render(), with and without a mismatch")
    func shortSceneIsRender() {
        let scene = Scene(
            duration: 1.5, sources: [
                Source(.pinkNoise, path: .sweep(from: -60, to: 40, between: 0, and: 1.5), seed: 3),
                Source(.tone(700), azimuth: 20, start: 0.4, end: 1.1, levelDBFS: -30),
            ], noise: SensorNoise(snrDecibels: 20, seed: 5))
        let plain = Self.collect { scene.render($0) }
        #expect(plain.blocks == 1 && plain.signal == scene.render())
        let rig = ChannelMismatch(delay: 80e-6, gainDecibels: -1.5)
        let rigged = Self.collect { scene.render(mismatch: rig, $0) }
        #expect(rigged.blocks == 1 && rigged.signal == rig.apply(to: scene.render()))
        let listener = RotatingListener(scene: Scene(duration: 1, sources: [Source(.whiteNoise, azimuth: 120)]),
                                        yaw: .sinusoid(amplitude: 30, period: 0.8, start: 0.1))
        let turned = Self.collect { listener.render($0) }
        #expect(turned.blocks == 1 && turned.signal == listener.render())
    }

    @Test("a long scene in segments: blocks add up to the scene, the interchannel delay across each join is the true one within 0.05 sample, the level within 0.5 dB, and renders repeat exactly")
    func joinsKeepCues() throws {
        let fs = 48000.0, azimuth = 30.0
        let scene = Scene(
            sampleRate: fs, duration: 1.2, sources: [Source(.whiteNoise, azimuth: azimuth, levelDBFS: -20, seed: 4)],
            noise: SensorNoise(snrDecibels: 30, seed: 6))
        let rig = ChannelMismatch(delay: 50e-6)
        let (signal, blocks) = Self.segmented(scene, mismatch: rig)
        let renderer = SegmentedRender(
            scene: scene, mismatch: rig, wholeLimit: 0, segmentBudget: 1 << 14, whole: scene.render) { _ in scene }
        let joins = renderer.boundaries(total: scene.sampleCount)
        #expect(joins.count >= 4, "\(joins)")
        #expect(blocks == joins.count + 1)
        #expect(signal.count == scene.sampleCount)
        let times = scene.microphones.arrivalTimes(azimuth: azimuth)
        let truth = (times.right - times.left + rig.delay) * fs  // right behind left, samples
        let overall = Self.rms(signal, 0..<signal.count)
        for join in joins {
            // A window centred on the join, as long as the crossfade.
            let window = (join - renderer.overlap / 2)..<(join + renderer.overlap / 2)
            let measured = Self.delay(signal, window)
            #expect(abs(measured - truth) < 0.05, "join at \(join): delay \(measured) samples, true \(truth)")
            let level = 20 * log10(Self.rms(signal, window) / overall)
            #expect(abs(level) < 0.5, "join at \(join): \(level) dB re the whole")
        }
        // The same measure away from the joins agrees (the method itself is exact enough).
        let middle = (joins[0] + joins[1]) / 2
        #expect(abs(Self.delay(signal, (middle - 1200)..<(middle + 1200)) - truth) < 0.05)
        #expect(Self.segmented(scene, mismatch: rig).signal == signal)
    }

    @Test("a tone across joins is the whole render within −70 dB: its segments hold the same samples and fade in amplitude")
    func toneAcrossJoins() {
        let scene = Scene(duration: 0.8, sources: [
            Source(.tone(1234.5), azimuth: -35, start: 0.05, levelDBFS: -20),
            Source(.chirp(from: 200, to: 5000), path: .sweep(from: 50, to: -20, between: 0.1, and: 0.7), start: 0.1, end: 0.7),
        ])
        let whole = scene.render()
        let (signal, blocks) = Self.segmented(scene)
        #expect(blocks >= 4)
        var worst: Float = 0
        for i in 0..<whole.count {
            worst = max(worst, abs(signal.left[i] - whole.left[i]), abs(signal.right[i] - whole.right[i]))
        }
        // The tone's amplitude is 0.1·√2.
        #expect(20 * log10(Double(worst) / 0.1414) < -70, "worst difference \(worst)")
    }

    @Test("a turning listener's segment paths match the whole relative scene's within 10⁻⁹°")
    func relativeSegmentPaths() {
        let listener = RotatingListener(
            scene: Scene(duration: 3, sources: [Source(.whiteNoise, path: .sweep(from: 100, to: 160, between: 0, and: 3))]),
            yaw: .sinusoid(amplitude: 40, period: 1.3, start: 0.2))
        let whole = listener.relativeScene.sources[0].path
        let piece = listener.relativeScene(from: 1.234, to: 2.01).sources[0].path
        var worst = 0.0
        for t in stride(from: 1.234, through: 2.01, by: 0.0007) { worst = max(worst, abs(whole.azimuth(at: t) - piece.azimuth(at: t))) }
        #expect(worst < 1e-9)
    }
}
