import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

struct ArrayModelTests {
    @Test("spaced: delay ↔ lateral round trip, −asin(c·τ/d)", arguments: [-1.0, -0.5, 0, 0.3, 0.99])
    func spacedRoundTrip(lateral: Double) {
        let model = ArrayModel(kind: .spaced, spacingMeters: 0.15)
        let tau = model.delay(lateral: lateral)
        #expect(abs(tau - (-0.15 * lateral / 343)) < 1e-12)
        #expect(abs(model.lateral(delay: tau) - lateral) < 1e-9)
    }

    @Test("binaural: Woodworth delay inverts", arguments: [-80.0, -45, 0, 20, 45, 89])
    func binauralRoundTrip(azimuth: Double) {
        // The sphere's law (the default is fitted to real heads: MeasuredHeadTests).
        let model = ArrayModel(kind: .binaural, headLaw: .sphere)
        let theta = azimuth * .pi / 180
        let tau = -0.0875 / 343 * (theta + sin(theta))
        #expect(abs(model.delay(lateral: sin(theta)) - tau) < 1e-12)
        #expect(abs(asin(model.lateral(delay: tau)) * 180 / .pi - azimuth) < 1e-6)
    }

    @Test("binaural: a Woodworth ITD for +45° reads back within 2°", arguments: [0.0, 7.0])
    func binauralReadsBack(headILD: Double) throws {
        // ITD only (ILD 0), and ITD with a matching broadband level difference of 10·sin θ dB.
        let microphones = Microphones.binaural(headRadius: 0.0875, ildAt90: headILD == 0 ? 0 : 10)
        let signal = stillSource(azimuth: 45, microphones: microphones, duration: 1)
        let config = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .binaural))
        let records = try analyze(signal, configuration: config)
        let error = median(records.map { abs($0.azimuth - 45) })
        #expect(error <= 2, "median error \(error)°")
        #expect(median(records.map(\.confidence)) > 0.8)
    }

    @Test("coincident: a louder left channel gives a negative azimuth")
    func coincidentLouderLeft() throws {
        let mono = Generators.pinkNoise(count: 48000, sampleRate: 48000, rms: 0.1, seed: 4)
        let signal = StereoSignal(
            left: mono.map { Float($0) }, right: mono.map { Float($0 * 0.5) }, sampleRate: 48000)
        let config = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .coincident))
        let records = try analyze(signal, configuration: config)
        #expect(records.allSatisfy { $0.azimuth < -10 }, "azimuths \(records.map(\.azimuth).prefix(5))")
        #expect(records.allSatisfy { $0.ildDecibels < -5.9 && $0.ildDecibels > -6.1 })
        #expect(median(records.map(\.confidence)) > 0.8)
    }

    @Test("coincident: an XY pair's level image follows the source side", arguments: [-60.0, -20, 20, 60])
    func coincidentXY(azimuth: Double) throws {
        let signal = stillSource(azimuth: azimuth, microphones: .coincident(halfAngle: 45), duration: 0.5)
        let config = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .coincident))
        let records = try analyze(signal, configuration: config)
        let azimuths = records.map(\.azimuth)
        #expect(median(azimuths).sign == azimuth.sign)
        // Monotonic enough to tell 20° from 60°.
        #expect(abs(median(azimuths)) > (abs(azimuth) > 30 ? 45 : 10))
    }

    @Test("calibration offsets are removed from the cues and the records")
    func offsets() throws {
        // Hardware: right channel 3 dB hot and 40 µs late. The profile's offsets undo both.
        let mono = Generators.pinkNoise(count: 48000, sampleRate: 48000, rms: 0.1, seed: 8)
        let late = FractionalDelay.exact(mono, bySamples: 0.00004 * 48000)
        let gain = pow(10, 3.0 / 20)
        let signal = StereoSignal(left: mono.map { Float($0) }, right: late.map { Float($0 * gain) }, sampleRate: 48000)
        for kind in ArrayModel.Kind.allCases {
            let model = ArrayModel(kind: kind, delayOffsetSeconds: 0.00004, gainOffsetDecibels: 3)
            let records = try analyze(signal, configuration: AnalysisConfiguration(sampleRate: 48000, array: model))
            #expect(abs(median(records.map(\.azimuth))) < 0.5, "\(kind)")
            #expect(abs(median(records.map(\.ildDecibels))) < 0.05, "\(kind)")
            #expect(abs(median(records.map(\.itdMicroseconds))) < 1, "\(kind)")
        }
    }

    @Test("spaced: the level difference carries no weight")
    func spacedIgnoresLevel() throws {
        var signal = stillSource(azimuth: 30, duration: 0.5)
        signal.left = signal.left.map { $0 * 4 }  // +12 dB on the left
        let records = try analyze(signal)
        #expect(abs(median(records.map(\.azimuth)) - 30) < 0.5)
        #expect(records.allSatisfy { $0.ildConfidence == 0 })
    }

    @Test("fusion: inverse-variance direction, 1 − Π(1 − share·c) confidence")
    func fusionArithmetic() {
        let binaural = ArrayModel(kind: .binaural, headLaw: .sphere)
        let fused = CueFusion.fuse(time: Cue(lateral: 0.7, confidence: 1), level: Cue(lateral: 0, confidence: 1), model: binaural)
        // Weights 1/σ² and 1/0.25² with the binaural time cue's σ = 0.02·2cos θ/(1 + cos θ) at
        // sin θ = 0.7 (0.0167): the ITD dominates.
        let cosine = (1 - 0.49).squareRoot()
        let sigma = 0.02 * 2 * cosine / (1 + cosine)
        let expected = (0.7 / (sigma * sigma)) / (1 / (sigma * sigma) + 1 / 0.0625)
        #expect(abs(fused.lateral - expected) < 1e-12)
        #expect(abs(fused.confidence - 1) < 1e-12)
        let levelOnly = CueFusion.fuse(time: Cue(lateral: 0.9, confidence: 0), level: Cue(lateral: -0.4, confidence: 1), model: binaural)
        #expect(abs(levelOnly.lateral + 0.4) < 1e-12)
        #expect(abs(levelOnly.confidence - 0.6) < 1e-12)
        let nothing = CueFusion.fuse(time: Cue(lateral: 0.2, confidence: 0), level: Cue(lateral: 0.5, confidence: 0), model: binaural)
        #expect(nothing.confidence == 0)
    }
}
