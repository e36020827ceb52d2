import SoundCompass
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
        print("calibration: spacing \(fit.array.spacing) m, delay \(fit.array.delayOffset * 1e6) µs, gain \(fit.array.gainOffsetDecibels) dB; frames \(fit.frameCount); median error before \(measurement.before.median)°, after \(after.median)°")
        #expect(abs(fit.array.spacing - 0.12) / 0.12 < 0.02)
        #expect(abs(fit.array.delayOffset - 40e-6) < 5e-6)
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
