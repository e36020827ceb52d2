import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// A talker beside a steady noise (issue 31, item 1): the steady source is a source and stays
/// listed, and the talker is listed too (the excess average of ``SourceCandidateFinder``, see
/// `SourceCandidates+Excess.swift`). Free field, 15 cm spaced pair, 48 kHz, 8 s, a speech-like
/// talker and a pink-noise source both at −20 dBFS (the talker's level over its voiced parts),
/// white sensor noise at 20 dB SNR; scored by ``MultiSourceTests/figures(_:configuration:acquired:judged:)``
/// (every listed source; the first second is warm-up).
struct SteadyNoiseTests {
    /// The defaults with the excess search on (`--steady-sources`).
    static var configuration: AnalysisConfiguration {
        var config = AnalysisConfiguration(sampleRate: MultiSourceTests.sampleRate)
        config.hearsBesideSteadySources = true
        return config
    }

    static func scene(talker: Double, noise: Double) -> Scene {
        Scene(
            sampleRate: MultiSourceTests.sampleRate, duration: 8,
            sources: [
                Source(.speech, azimuth: talker, levelDBFS: -20, seed: 11),
                Source(.pinkNoise, azimuth: noise, levelDBFS: -20, seed: 12),
            ],
            noise: SensorNoise(snrDecibels: 20, seed: 5))
    }

    // Measured when written (talker, noise): hit rates talker / noise, false share
    //   (−30°, +40°): 0.646 / 1.000, 0.000;  (+70°, +30°): 0.759 / 1.000, 0.000;
    //   (−10°, +30°): 0.646 / 1.000, 0.000.
    // Main before this change listed the talker in none of its frames (0.000) in all three,
    // the noise in every frame.
    @Test("a talker beside a steady pink noise as loud: both listed, the talker within 10° in ≥ 60 % of its frames",
          arguments: [(-30.0, 40.0), (70.0, 30.0), (-10.0, 30.0)])
    func talkerBesideSteadyNoise(talker: Double, noise: Double) throws {
        let f = try MultiSourceTests.figures(Self.scene(talker: talker, noise: noise), configuration: Self.configuration)
        print("talker \(talker)°, noise \(noise)°: \(f)")
        #expect(f.hitRates[0] >= 0.6, "talker: \(f)")
        #expect(f.hitRates[1] >= 0.9, "noise: \(f)")
        #expect(f.falseShare <= 0.1, "\(f)")
    }

    /// A talker at ±90° and the noise 40° nearer the front, at 16 kHz: 1.6 samples apart, inside
    /// the plain average's separation (2.5 samples); the excess average keeps them apart
    /// (``SourceCandidateFinder/steadySeparationSamples``).
    static func scene16k(talker: Double, noise: Double) -> Scene {
        var scene = Self.scene(talker: talker, noise: noise)
        scene.sampleRate = 16000
        return scene
    }

    // Measured when written (talker, noise): hit rates talker / noise, false share
    //   (+90°, +50°): 0.219 / 1.000, 0.013;  (−90°, −50°): 0.274 / 1.000, 0.006.
    // With the plain separation (2.5 samples, before) the talker was listed in none of its
    // frames (0.000 on the same scenes made by `soundcompass synth --rate 16000`). The floor of
    // 0.15 keeps the gain honest; it is far below the 48 kHz cases' 0.6 (at 16 kHz the excess
    // peak of a talker at the end-fire edge of the lag window stands out in few windows).
    @Test("16 kHz, a talker at ±90° beside a steady noise 40° nearer the front (1.6 samples apart): both listed, the talker in ≥ 15 % of its frames",
          arguments: [(90.0, 50.0), (-90.0, -50.0)])
    func talkerBesideNearbySteadyNoise(talker: Double, noise: Double) throws {
        var config = AnalysisConfiguration(sampleRate: 16000)
        config.hearsBesideSteadySources = true
        let f = try MultiSourceTests.figures(Self.scene16k(talker: talker, noise: noise), configuration: config)
        print("16 kHz talker \(talker)°, noise \(noise)°: \(f)")
        #expect(f.hitRates[0] >= 0.15, "talker: \(f)")
        #expect(f.hitRates[1] >= 0.9, "noise: \(f)")
        #expect(f.falseShare <= 0.1, "\(f)")
    }

    // Measured when written: hit rate 1.000, a second source in 0.000 of the frames, false 0.000.
    @Test("a steady pink noise alone stays one source (no second one from the excess average)")
    func steadyNoiseAlone() throws {
        let scene = Scene(
            sampleRate: MultiSourceTests.sampleRate, duration: 8,
            sources: [Source(.pinkNoise, azimuth: 35, levelDBFS: -20, seed: 12)],
            noise: SensorNoise(snrDecibels: 20, seed: 5))
        let f = try MultiSourceTests.figures(scene, configuration: Self.configuration)
        print("pink noise alone: \(f)")
        #expect(f.hitRates[0] >= 0.95, "\(f)")
        #expect(f.multipleShare <= 0.05, "\(f)")
        #expect(f.falseShare <= 0.05, "\(f)")
    }
}
