import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// A talker beside a steady noise (issue 31, item 1): the steady source is a source and stays
/// listed, and the talker is listed too (the excess averages of ``SourceCandidateFinder``, see
/// `SourceCandidates+Excess.swift`, on by default). Free field, 15 cm spaced pair, 48 kHz, 8 s,
/// a speech-like talker and a pink-noise source both at −20 dBFS (the talker's level over its
/// voiced parts), white sensor noise at 20 dB SNR; scored by
/// ``MultiSourceTests/figures(_:configuration:acquired:judged:)`` (every listed source; the
/// first second is warm-up).
struct SteadyNoiseTests {
    /// The defaults (the excess search is on).
    static var configuration: AnalysisConfiguration { AnalysisConfiguration(sampleRate: MultiSourceTests.sampleRate) }

    /// The defaults without the excess search (`--no-steady-sources`).
    static var withoutSearch: AnalysisConfiguration {
        var config = configuration
        config.hearsBesideSteadySources = false
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
    //   (−30°, +40°): 0.747 / 1.000, 0.000;  (+70°, +30°): 0.797 / 1.000, 0.000;
    //   (−10°, +30°): 0.747 / 1.000, 0.000; without the search the talker 0.000 in all three.
    // Before the onset and new-sound marks (the smoothed-power gain, opt-in) 0.646, 0.759 and
    // 0.646; before the excess average, 0.000.
    @Test("a talker beside a steady pink noise as loud: both listed, the talker within 10° in ≥ 65 % of its frames",
          arguments: [(-30.0, 40.0), (70.0, 30.0), (-10.0, 30.0)])
    func talkerBesideSteadyNoise(talker: Double, noise: Double) throws {
        let f = try MultiSourceTests.figures(Self.scene(talker: talker, noise: noise), configuration: Self.configuration)
        print("talker \(talker)°, noise \(noise)°: \(f)")
        #expect(f.hitRates[0] >= 0.65, "talker: \(f)")
        #expect(f.hitRates[1] >= 0.9, "noise: \(f)")
        #expect(f.falseShare <= 0.1, "\(f)")
        // The search is what lists the talker: without it, the plain average's candidates.
        let plain = try MultiSourceTests.figures(Self.scene(talker: talker, noise: noise), configuration: Self.withoutSearch)
        print("  without the search: \(plain)")
        #expect(f.hitRates[0] >= plain.hitRates[0] + 0.3, "with \(f.hitRates[0]), without \(plain.hitRates[0])")
    }

    /// A talker at ±90° and the noise 40° nearer the front, at 16 kHz: 1.6 samples apart, inside
    /// the plain average's separation (2.5 samples); the excess average keeps them apart
    /// (``SourceCandidateFinder/steadySeparationSamples``), and reads the talker's peak between
    /// its lags, unsmoothed, where the smoothed one merges with the noise's leak
    /// (`SourceCandidates+BesideSteady.swift`).
    static func scene16k(talker: Double, noise: Double) -> Scene {
        var scene = Self.scene(talker: talker, noise: noise)
        scene.sampleRate = 16000
        return scene
    }

    // Measured (talker, noise): hit rates talker / noise, false share
    //   (+90°, +50°) and (−90°, −50°): 0.795 / 1.000, 0.000 (2026-11-27, with the reading
    //   between the lags); 0.726 / 1.000, 0.028 and 0.032 before it.
    // Before the onset and new-sound marks 0.219 and 0.274 (the smoothed-power gain); with the
    // plain separation (2.5 samples) from every candidate, 0.000.
    @Test("16 kHz, a talker at ±90° beside a steady noise 40° nearer the front (1.6 samples apart): both listed, the talker in ≥ 75 % of its frames",
          arguments: [(90.0, 50.0), (-90.0, -50.0)])
    func talkerBesideNearbySteadyNoise(talker: Double, noise: Double) throws {
        let config = AnalysisConfiguration(sampleRate: 16000)
        let f = try MultiSourceTests.figures(Self.scene16k(talker: talker, noise: noise), configuration: config)
        print("16 kHz talker \(talker)°, noise \(noise)°: \(f)")
        #expect(f.hitRates[0] >= 0.75, "talker: \(f)")
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
