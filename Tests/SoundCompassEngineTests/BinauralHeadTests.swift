import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// The binaural model on real heads: a lag window wide enough for them, the frequency-dependent
/// interaural delay (Kuhn) and level difference (spherical head shadow).
struct BinauralHeadTests {
    @Test("binaural: the lag window covers ±1.0 ms by default; spaced keeps its physical limit")
    func lagWindow() {
        let binaural = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .binaural))
        #expect(binaural.maximumLagSamples >= 48, "\(binaural.maximumLagSamples) samples")
        #expect(abs(ArrayModel(kind: .binaural).lagWindowSeconds - 4 * 0.0875 / 343) < 1e-12)
        let gcc = DirectionEstimator(configuration: binaural).gccPhat
        #expect(gcc.searchLag >= 48, "searches ±\(gcc.searchLag) samples")
        let spaced = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .spaced, spacingMeters: 0.15))
        #expect(abs(spaced.maximumLagSamples - 0.15 / 343 * 48000) < 1e-9)
        let coincident = ArrayModel(kind: .coincident)
        #expect(coincident.lagWindowSeconds == coincident.maximumDelaySeconds)
    }

    @Test("binaural: a 0.8 ms delay at 48 kHz reads ±90° with confidence", arguments: [-1.0, 1.0])
    func delayPastTheSphere(side: Double) throws {
        // 0.8 ms is 38.4 samples, past the sphere's 0.656 ms (Woodworth) and 0.765 ms (Kuhn).
        let dry = Generators.whiteNoise(count: 48000, rms: 0.1, seed: 21)
        let left = FractionalDelay.exact(dry, bySamples: side > 0 ? 19.2 : -19.2)
        let right = FractionalDelay.exact(dry, bySamples: side > 0 ? -19.2 : 19.2)
        let signal = StereoSignal(left: left.map(Float.init), right: right.map(Float.init), sampleRate: 48000)
        let config = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .binaural))
        let records = try analyze(signal, configuration: config).dropFirst(4)
        let azimuth = median(records.map(\.azimuth))
        #expect(abs(azimuth - 90 * side) <= 1, "median azimuth \(azimuth)°")
        #expect(median(records.map(\.confidence)) > 0.5)
    }

    @Test("binaural ITD: Kuhn's low-frequency delay is 1.5× Woodworth's near the front, 1.17× at the side")
    func kuhnRatio() {
        let model = ArrayModel(kind: .binaural, headLaw: .sphere)
        for (degrees, ratio) in [(5.0, 1.5), (20.0, 1.49), (90.0, 3 / (Double.pi / 2 + 1))] {
            let s = sin(degrees * .pi / 180)
            let low = model.delay(lateral: s, lowFrequencyShare: 1), high = model.delay(lateral: s, lowFrequencyShare: 0)
            #expect(abs(low / high - ratio) < 0.01, "\(degrees)°: \(low / high)")
            #expect(abs(high - model.delay(lateral: s)) < 1e-15)
        }
        // The share: Kuhn's low regime below 500 Hz, Woodworth's above 2 kHz (8.75 cm).
        #expect(model.lowFrequencyShare(frequencyHz: 200) > 0.99)
        #expect(model.lowFrequencyShare(frequencyHz: 500) > 0.85)
        #expect(model.lowFrequencyShare(frequencyHz: 2000) < 0.15)
        #expect(model.lowFrequencyShare(frequencyHz: 8000) < 0.01)
        // Round trip at a mixed share, and a delay past the largest reads 90°.
        for degrees in [-70.0, -30, 0, 15, 60, 85] {
            let s = sin(degrees * .pi / 180)
            let tau = model.delay(lateral: s, lowFrequencyShare: 0.4)
            #expect(abs(asin(model.lateral(delay: tau, lowFrequencyShare: 0.4)) * 180 / .pi - degrees) < 1e-6)
        }
        #expect(model.lateral(delay: -0.0009, lowFrequencyShare: 1) == 1)
        #expect(model.lateral(delay: 0.0009, lowFrequencyShare: 0) == -1)
    }

    @Test("binaural ILD: the head shadow grows with frequency and inverts on its rising part")
    func levelModel() {
        let model = ArrayModel(kind: .binaural)
        let frequencies = [200.0, 500, 1000, 2000, 4000, 8000]
        let atSide = frequencies.map { model.levelDifference(lateral: 1, frequencyHz: $0) }
        for i in 1..<atSide.count { #expect(atSide[i] > atSide[i - 1], "\(atSide)") }
        #expect(atSide[0] < 1)
        #expect(atSide[4] > 10 && atSide[4] < 20, "4 kHz: \(atSide[4]) dB")
        #expect(atSide[5] > 10 && atSide[5] < 20, "8 kHz: \(atSide[5]) dB")
        // Right minus left: negative on the left, and ildGain scales it.
        #expect(abs(model.levelDifference(lateral: -1, frequencyHz: 4000) + atSide[4]) < 1e-9)
        let louder = ArrayModel(kind: .binaural, ildGain: 15)
        #expect(abs(louder.levelDifference(lateral: 1, frequencyHz: 4000) - 1.5 * atSide[4]) < 1e-9)
        for degrees in [-40.0, 10, 30, 50] {
            let s = sin(degrees * .pi / 180)
            let ild = model.levelDifference(lateral: s, frequencyHz: 3000)
            #expect(abs(model.lateral(levelDifference: ild, frequencyHz: 3000) - s) < 0.005)
        }
        #expect(model.lateral(levelDifference: 30, frequencyHz: 3000) == 1)
    }

    @Test("binaural: a head with a frequency-dependent delay reads back at ±60° and ±90°",
          arguments: [-90.0, -60, 60, 90])
    func twoRegimeHead(azimuth: Double) throws {
        // Pink noise: most of its power is below the 1 kHz split, where the delay is Kuhn's.
        let dry = Generators.pinkNoise(count: 72000, sampleRate: 48000, rms: 0.1, seed: 33)
        let signal = Microphones.renderTwoRegimeHead(
            dry, azimuth: azimuth, headRadius: 0.0875, ildAt90: 15, crossoverHz: 1000, sampleRate: 48000)
        // A sphere's two regimes, read with the sphere's law.
        let config = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .binaural, headLaw: .sphere))
        let records = try analyze(signal, configuration: config).dropFirst(8)
        let error = median(records.map { abs($0.azimuth - azimuth) })
        #expect(error <= 3, "median error \(error)° at \(azimuth)°")
        #expect(median(records.map(\.confidence)) > 0.5)
    }
}
