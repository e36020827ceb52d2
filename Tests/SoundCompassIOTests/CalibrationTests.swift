import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

/// A rig whose pair is 0.12 m apart, whose right channel lags by 40 µs and is 3 dB louder,
/// analysed as a nominal 0.15 m pair.
private let rig = ChannelMismatch(delay: 40e-6, gainDecibels: 3)
private let nominal = AnalysisConfiguration(sampleRate: 48000)

/// A recording of the rig: `sources` at 0.12 m, 20 dB SNR, through the mismatched channels.
private func recording(_ sources: [Source], duration: Double, seed: UInt64) -> (StereoSignal, Scene) {
    let scene = Scene(
        duration: duration, microphones: .spaced(spacing: 0.12), sources: sources,
        noise: SensorNoise(snrDecibels: 20, seed: seed))
    return (rig.apply(to: scene.render()), scene)
}

private func source(_ signal: StereoSignal) -> MemoryStereoSource {
    MemoryStereoSource(left: signal.left, right: signal.right, sampleRate: signal.sampleRate)
}

private func truth(_ scene: Scene) throws -> TruthTrack {
    try TruthTrack(text: scene.truthCSV(), name: "truth.csv")
}

@Suite("Calibration")
struct CalibrationTests {
    @Test("recovers spacing, delay and gain from a swept source; the profile fixes a second recording")
    func recoversRig() throws {
        // Calibration: pink noise swept −70° → +70° over 8 s.
        let (signal, scene) = recording(
            [Source(.pinkNoise, path: .sweep(from: -70, to: 70, between: 0, and: 8), levelDBFS: -24, seed: 3)],
            duration: 8, seed: 31)
        let measurement = try Calibrator.measure(source(signal), configuration: nominal, truth: try truth(scene))
        let fit = try ArrayCalibration.fit(
            measurement.observations, nominal: nominal.array, parameters: [.spacing, .delay, .gain],
            sampleRate: 48000, activeFrames: measurement.activeFrames)
        var corrected = nominal
        corrected.array = fit.array
        let after = try Calibrator.errors(source(signal), configuration: corrected, truth: try truth(scene))
        print("calibration: spacing \(fit.array.spacingMeters) m, delay \(fit.array.delayOffsetSeconds * 1e6) µs, gain \(fit.array.gainOffsetDecibels) dB; frames \(fit.frameCount); median error before \(measurement.before.median)°, after \(after.median)°")
        #expect(abs(fit.array.spacingMeters - 0.12) / 0.12 < 0.02)
        #expect(abs(fit.array.delayOffsetSeconds - 40e-6) < 5e-6)
        #expect(abs(fit.array.gainOffsetDecibels - 3) < 0.3)
        #expect(measurement.before.median > 3, "the uncalibrated rig is visibly off")

        // A second recording of the same rig: speech at still and moving bearings.
        let (second, secondScene) = recording([
            Source(.speech, azimuth: -35, start: 0, end: 3, levelDBFS: -22, seed: 41),
            Source(.speech, path: .sweep(from: 50, to: -20, between: 3.2, and: 6.5), start: 3.2, end: 6.5, levelDBFS: -22, seed: 42),
            Source(.whiteNoise, azimuth: 65, start: 6.7, end: 8, levelDBFS: -26, seed: 43),
        ], duration: 8, seed: 44)
        let secondTruth = try truth(secondScene)
        let without = try Calibrator.errors(source(second), configuration: nominal, truth: secondTruth)
        let with = try Calibrator.errors(source(second), configuration: corrected, truth: secondTruth)
        print("second recording: median error \(without.median)° without the profile, \(with.median)° with it (\(with.count) frames)")
        #expect(with.median < 1)
        #expect(without.median > 2 * with.median)
    }
}

@Suite("Calibration of level-cue arrays")
struct LevelCalibrationTests {
    /// A source swept across −80…+80° through `microphones`, a channel gain offset of 2 dB.
    private func sweep(_ microphones: Microphones) -> (StereoSignal, Scene) {
        let scene = Scene(
            duration: 6, microphones: microphones,
            sources: [Source(.pinkNoise, path: .sweep(from: -80, to: 80, between: 0, and: 6), levelDBFS: -24, seed: 8)],
            noise: SensorNoise(snrDecibels: 25, seed: 9))
        return (ChannelMismatch(gainDecibels: 2).apply(to: scene.render()), scene)
    }

    private func calibrate(_ microphones: Microphones, nominal model: ArrayModel) throws
        -> (fit: CalibrationFit, before: Double, after: Double)
    {
        let (signal, scene) = sweep(microphones)
        let truth = try TruthTrack(text: scene.truthCSV(), name: "truth.csv")
        let config = AnalysisConfiguration(sampleRate: 48000, array: model)
        let m = try Calibrator.measure(
            MemoryStereoSource(left: signal.left, right: signal.right, sampleRate: 48000), configuration: config, truth: truth)
        let fit = try ArrayCalibration.fit(
            m.observations, nominal: model, parameters: ArrayCalibration.parameters(for: model.kind), sampleRate: 48000,
            activeFrames: m.activeFrames)
        var corrected = config
        corrected.array = fit.array
        let after = try Calibrator.errors(
            MemoryStereoSource(left: signal.left, right: signal.right, sampleRate: 48000), configuration: corrected, truth: truth)
        return (fit, m.before.median, after.median)
    }

    @Test("binaural: head radius, gain offset and the ILD gain of a head with 8 dB at 90°")
    func binaural() throws {
        // A spherical head (TestSignals' binaural microphones), calibrated with the sphere's law.
        let result = try calibrate(.binaural(headRadius: 0.095, ildAt90: 8), nominal: ArrayModel(kind: .binaural, headLaw: .sphere))
        let a = result.fit.array
        print("binaural: head radius \(a.headRadiusMeters) m, gain \(a.gainOffsetDecibels) dB, ILD gain \(a.ildGain) dB; median error \(result.before)° → \(result.after)°")
        #expect(abs(a.headRadiusMeters - 0.095) / 0.095 < 0.03)
        #expect(abs(a.gainOffsetDecibels - 2) < 0.3)
        #expect(abs(a.ildGain - 8) < 0.8)
        #expect(result.after < result.before / 2)
    }

    @Test("coincident: the pattern, included angle and gain offset of a pair", arguments: [
        (0.5, 90.0), (0.25, 110.0), (0.0, 90.0), (0.37, 130.0),
    ])
    func coincident(pattern: Double, angle: Double) throws {
        // Analysed as the default XY cardioids at 90°, whatever the pair is.
        let result = try calibrate(
            .coincident(pattern: pattern, includedAngle: angle), nominal: ArrayModel(kind: .coincident))
        let a = result.fit.array
        let pair = a.coincidentPair
        print("coincident a \(pattern) at \(angle)°: fitted a \(pair.pattern) ± \(result.fit.standardErrors[.pattern] ?? .nan), angle \(pair.includedAngleDegrees)° ± \(result.fit.includedAngleStandardError ?? .nan), gain \(a.gainOffsetDecibels) dB; median error \(result.before)° → \(result.after)°")
        #expect(result.fit.fitted.contains(.pattern))
        #expect(abs(pair.pattern - pattern) <= 0.03)
        #expect(abs(pair.includedAngleDegrees - angle) <= 3)
        #expect(abs(a.gainOffsetDecibels - 2) < 0.3)
        #expect(result.after < 1)
        #expect(result.after < result.before / 2 || result.before < 1)
    }
}
