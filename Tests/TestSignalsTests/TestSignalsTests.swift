import Foundation
import Testing
@testable import TestSignals

struct FractionalDelayTests {
    @Test("an integer delay is an exact shift")
    func integerDelay() {
        let x = Generators.whiteNoise(count: 3000, rms: 1, seed: 1)
        let y = FractionalDelay.exact(x, bySamples: 7)
        var worst = 0.0
        for n in 7..<3000 { worst = max(worst, abs(y[n] - x[n - 7])) }
        // The dropped Nyquist bin of the padded signal is the only difference.
        #expect(worst < 0.05)
    }

    @Test("delaying by d then by −d gives the signal back", arguments: [0.3, 2.75, -11.1])
    func inverse(delay: Double) {
        // Each call pads and truncates, so compare away from the ends (ringing decays as 1/distance).
        let x = Generators.bandNoise(count: 8192, sampleRate: 48000, low: 100, high: 20000, rms: 1, seed: 2)
        let back = FractionalDelay.exact(FractionalDelay.exact(x, bySamples: delay), bySamples: -delay)
        var worst = 0.0
        for n in 2048..<6144 { worst = max(worst, abs(back[n] - x[n])) }
        #expect(worst < 2e-3)
    }

    @Test("a band-limited sine is delayed exactly: sin(ω(n − d))", arguments: [0.37, 5.5])
    func analyticSine(delay: Double) {
        // A sine with a whole number of cycles in the padded length is periodic there: exact.
        let n = 4096, cycles = 97.0
        let omega = 2 * Double.pi * cycles / Double(n)
        let x = (0..<n).map { sin(omega * Double($0)) }
        let y = FractionalDelay.exact(x, bySamples: delay)
        var worst = 0.0
        for i in 1024..<3072 { worst = max(worst, abs(y[i] - sin(omega * (Double(i) - delay)))) }
        #expect(worst < 2e-3)
    }

    @Test("time-varying sinc delay agrees with the exact delay for band-limited content", arguments: [0.0, 3.3, -8.75])
    func sincMatchesExact(delay: Double) {
        let x = Generators.bandNoise(count: 6000, sampleRate: 48000, low: 50, high: 18000, rms: 1, seed: 4)
        let exact = FractionalDelay.exact(x, bySamples: delay)
        let sinc = FractionalDelay.timeVarying(x) { _ in delay }
        var worst = 0.0
        for n in 200..<5800 { worst = max(worst, abs(exact[n] - sinc[n])) }
        #expect(worst < 0.01)
    }
}

struct GeneratorTests {
    @Test("equal seeds give equal signals, different seeds different ones")
    func determinism() {
        #expect(Generators.whiteNoise(count: 100, seed: 5) == Generators.whiteNoise(count: 100, seed: 5))
        #expect(Generators.whiteNoise(count: 100, seed: 5) != Generators.whiteNoise(count: 100, seed: 6))
        #expect(Generators.speechLike(count: 48000, sampleRate: 48000, seed: 3) == Generators.speechLike(count: 48000, sampleRate: 48000, seed: 3))
        #expect(Scene.demo().render() == Scene.demo().render())
    }

    @Test("white and pink noise have the requested RMS and slope")
    func noiseLevels() {
        let white = Generators.whiteNoise(count: 100_000, rms: 0.2, seed: 1)
        #expect(abs(Generators.rms(white) - 0.2) < 0.002)
        let pink = Generators.pinkNoise(count: 1 << 16, sampleRate: 48000, rms: 0.1, seed: 2)
        #expect(abs(Generators.rms(pink) - 0.1) < 1e-9)
        // Pink: every octave carries the same power (within 1 dB).
        var re = pink, im = [Double](repeating: 0, count: pink.count)
        ComplexFFT.transform(re: &re, im: &im, inverse: false)
        func octave(_ lo: Double) -> Double {
            let k0 = Int(lo / 48000 * Double(pink.count)), k1 = 2 * k0
            return (k0..<k1).reduce(0) { $0 + re[$1] * re[$1] + im[$1] * im[$1] }
        }
        for lo in [250.0, 2000, 8000] {
            let ratio = 10 * log10(octave(lo) / octave(500))
            #expect(abs(ratio) < 1, "octave from \(lo) Hz: \(ratio) dB against 500 Hz")
        }
        let shaped = Generators.shapedNoise(count: 1 << 14, sampleRate: 48000, rms: 1, seed: 3) { f in f > 1000 ? 0 : 1 }
        // A low-passed noise is smooth: its first difference is much smaller than itself.
        let difference = zip(shaped.dropFirst(), shaped).map { $0 - $1 }
        #expect(Generators.rms(difference) < 0.2)
    }

    @Test("speech-like signal: pauses, and energy mostly below 4 kHz")
    func speechLike() {
        let fs = 16000.0
        let speech = Generators.speechLike(count: Int(fs * 6), sampleRate: fs, rms: 0.1, seed: 8)
        let frames = stride(from: 0, to: speech.count - 320, by: 320).map { Generators.rms(Array(speech[$0..<($0 + 320)])) }
        let peak = frames.max()!
        let quiet = frames.filter { $0 < peak * 0.01 }.count
        #expect(Double(quiet) / Double(frames.count) > 0.15, "pauses: \(quiet) of \(frames.count) frames")
        #expect(Double(quiet) / Double(frames.count) < 0.6)
    }

    @Test("sensor noise is added at the requested SNR")
    func snr() {
        let scene = Scene(duration: 2, sources: [Source(.whiteNoise, azimuth: 0, levelDBFS: -20)], noise: SensorNoise(snrDecibels: 10))
        let clean = Scene(duration: 2, sources: [Source(.whiteNoise, azimuth: 0, levelDBFS: -20)])
        let noisy = scene.render(), reference = clean.render()
        let noise = zip(noisy.left, reference.left).map { Double($0 - $1) }
        let snr = 20 * log10(Generators.rms(reference.left.map(Double.init)) / Generators.rms(noise))
        #expect(abs(snr - 10) < 0.2, "SNR \(snr) dB")
    }
}

struct MicrophoneTests {
    @Test("spaced pair: right-minus-left delay is −d·sin θ / c", arguments: [-90.0, -30, 0, 45, 90, 150])
    func spacedDelay(azimuth: Double) {
        let t = Microphones.spaced(spacing: 0.2).arrivalTimes(azimuth: azimuth)
        #expect(abs((t.right - t.left) - (-0.2 * sin(azimuth * .pi / 180) / 343)) < 1e-15)
    }

    @Test("binaural: Woodworth ITD, front and back mirror each other")
    func woodworth() {
        let head = Microphones.binaural(headRadius: 0.0875, ildAt90: 0)
        let t90 = head.arrivalTimes(azimuth: 90)
        #expect(abs((t90.left - t90.right) - 0.0875 / 343 * (Double.pi / 2 + 1)) < 1e-15)
        let front = head.arrivalTimes(azimuth: 30), back = head.arrivalTimes(azimuth: 150)
        #expect(abs(front.left - back.left) < 1e-15)
    }

    @Test("XY cardioids: the nearer capsule is louder")
    func coincident() {
        let xy = Microphones.coincident(halfAngle: 45)
        let g = xy.gains(azimuth: -45)
        #expect(abs(g.left - 1) < 1e-12)
        #expect(g.right < g.left)
        #expect(xy.arrivalTimes(azimuth: 60) == (0, 0))
    }

    @Test("a moving source's truth follows its path")
    func truth() {
        let scene = Scene(duration: 4, sources: [Source(.pinkNoise, path: .sweep(from: -60, to: 60, between: 1, and: 3), start: 1, end: 3)])
        #expect(scene.azimuth(at: 0.5) == nil)
        #expect(scene.azimuth(at: 2) == 0)
        #expect(scene.azimuth(at: 2.5) == 30)
        let rows = scene.truthCSV().split(separator: "\n")
        #expect(rows.first == "time,azimuth")
        #expect(rows.count == 201)
    }
}

@Suite("Rotating listener")
struct RotatingListenerTests {
    /// How many samples the right channel leads the left, by cross-correlation with parabolic
    /// refinement.
    static func delay(_ signal: StereoSignal, from: Double, to: Double) -> Double {
        let a = Int(from * signal.sampleRate), b = Int(to * signal.sampleRate)
        var best = -Double.infinity, bestLag = 0
        var values: [Int: Double] = [:]
        for lag in -30...30 {
            var sum = 0.0
            for n in a..<b { sum += Double(signal.left[n + lag]) * Double(signal.right[n]) }
            values[lag] = sum
            if sum > best { best = sum; bestLag = lag }
        }
        let l = values[bestLag - 1] ?? best, r = values[bestLag + 1] ?? best
        return Double(bestLag) + 0.5 * (l - r) / (l - 2 * best + r)
    }

    @Test("The pair hears a still source at its bearing minus the yaw")
    func physics() {
        // Yaw 0 for a second, then a turn to +40° by 1.5 s, held: a source at +60° in the world
        // sits at +60° and then at +20° relative to the pair; one at 150° at 150° then 110°.
        for (bearing, before, after) in [(60.0, 60.0, 20.0), (150.0, 150.0, 110.0)] {
            var scene = Scene(duration: 2.5, sources: [Source(.bandNoise(low: 100, high: 3000), azimuth: bearing, seed: 9)], fade: 0)
            scene.interpolationHalfLength = 16
            let listener = RotatingListener(scene: scene, yaw: .keyframes(AzimuthPath([(1, 0), (1.5, 40)])))
            let signal = listener.render()
            // A far source at θ reaches the right microphone d·sin θ / c earlier.
            func expected(_ azimuth: Double) -> Double { 0.15 * sin(azimuth * Double.pi / 180) / 343 * 48000 }
            #expect(abs(Self.delay(signal, from: 0.2, to: 0.8) - expected(before)) < 0.05)
            #expect(abs(Self.delay(signal, from: 1.7, to: 2.3) - expected(after)) < 0.05)
            #expect(listener.relativeAzimuth(at: 2) == after)
        }
    }

    @Test("IMU quaternions turn the forward axis to the logged heading (z down: positive turns right)")
    func quaternionHeading() {
        let listener = RotatingListener(scene: Scene(duration: 2, sources: []), yaw: .sinusoid(amplitude: 120, period: 2, start: 0))
        let rows = listener.imuCSV(.init(rate: 10, orientation: .quaternion)).split(separator: "\n").dropFirst()
        for row in rows {
            let v = row.split(separator: ",").map { Double($0)! }
            let (t, w, x, y, z) = (v[0], v[1], v[2], v[3], v[4])
            // The body's forward axis (1, 0, 0) in the world: the first column of the rotation matrix.
            let north = 1 - 2 * (y * y + z * z), east = 2 * (x * y + w * z)
            let heading = atan2(east, north) * 180 / Double.pi
            let diff = (heading - listener.yaw.yaw(at: t)).truncatingRemainder(dividingBy: 360)
            #expect(abs(diff) < 1e-4 || abs(abs(diff) - 360) < 1e-4, "t \(t): heading \(heading)")
        }
    }

    @Test("16 interpolation taps still delay band-limited content to within 0.02")
    func shortInterpolator() {
        let x = Generators.bandNoise(count: 6000, sampleRate: 48000, low: 50, high: 16000, rms: 1, seed: 4)
        let exact = FractionalDelay.exact(x, bySamples: 3.3)
        let sinc = FractionalDelay.timeVarying(x, halfLength: 16) { _ in 3.3 }
        var worst = 0.0
        for n in 200..<5800 { worst = max(worst, abs(exact[n] - sinc[n])) }
        #expect(worst < 0.02)
    }
}

@Suite("Overlapping sources")
struct OverlapTests {
    @Test("firstOverlap names the pair, the one the truth follows and the shared time")
    func overlap() {
        let apart = Scene(duration: 8, sources: [
            Source(.speech, azimuth: -40, start: 0.5, end: 3.5), Source(.pinkNoise, azimuth: 30, start: 4, end: 7.5),
        ])
        #expect(apart.firstOverlap() == nil)
        let together = Scene(duration: 8, sources: [
            Source(.speech, azimuth: -40), Source(.pinkNoise, path: .sweep(from: -60, to: 60, between: 2, and: 6), start: 2, end: 6),
        ])
        #expect(together.firstOverlap() == Scene.Overlap(followed: 0, hidden: 1, start: 2, end: 6))
        #expect(together.azimuth(at: 3) == -40, "equal level: the first listed")
        let louder = Scene(duration: 8, sources: [
            Source(.speech, azimuth: -40, start: 1, end: 5, levelDBFS: -30), Source(.pinkNoise, azimuth: 20, start: 3, levelDBFS: -20),
        ])
        #expect(louder.firstOverlap() == Scene.Overlap(followed: 1, hidden: 0, start: 3, end: 5))
        #expect(louder.azimuth(at: 4) == 20)
    }
}

struct TwoRegimeHeadTests {
    /// The phase delay (seconds, right minus left) of a tone between the channels.
    private func toneDelay(frequency: Double, azimuth: Double) -> Double {
        let fs = 48000.0
        let dry = Generators.tone(frequency: frequency, sampleRate: fs, count: 24000)
        let signal = Microphones.renderTwoRegimeHead(dry, azimuth: azimuth, headRadius: 0.0875, crossoverHz: 500, sampleRate: fs)
        // Phases over whole periods in the middle (away from the padding's edges).
        func phase(_ x: [Float]) -> Double {
            var re = 0.0, im = 0.0
            let period = fs / frequency, start = 4000, count = Int((Double(16000) / period).rounded(.down) * period)
            for i in start..<(start + count) {
                let w = 2 * Double.pi * frequency * Double(i) / fs
                re += Double(x[i]) * cos(w); im -= Double(x[i]) * sin(w)
            }
            return atan2(im, re)
        }
        var difference = phase(signal.left) - phase(signal.right)
        while difference > .pi { difference -= 2 * .pi }
        while difference < -.pi { difference += 2 * .pi }
        return difference / (2 * Double.pi * frequency)
    }

    @Test("renderTwoRegimeHead: Kuhn's delay below the split, Woodworth's above", arguments: [30.0, -60])
    func regimes(azimuth: Double) {
        let theta = azimuth * Double.pi / 180
        let r = 0.0875, c = 343.0
        // Right minus left arrival: negative for a source on the right. Tones of whole periods
        // (160 and 64 samples) on either side of the 500 Hz split, each with less than half a
        // period of delay.
        let low = toneDelay(frequency: 300, azimuth: azimuth)
        let high = toneDelay(frequency: 750, azimuth: azimuth)
        #expect(abs(low - (-3 * r / c * sin(theta))) < 2e-6, "300 Hz: \(low) s")
        #expect(abs(high - (-r / c * (theta + sin(theta)))) < 2e-6, "750 Hz: \(high) s")
    }
}
