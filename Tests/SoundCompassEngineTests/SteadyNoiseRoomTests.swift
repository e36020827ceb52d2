import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// A talker beside a steady noise in a reverberant room (issue 31, item 1, RT60 0.6 s): the
/// relative steady test of ``SourceCandidateFinder`` (`markSteadyCandidates()` in
/// `SourceCandidates+Excess.swift`). At RT60 0.6 s the stationary floor rises under a talker's
/// continuing reverberant speech, so the new-sound ratio of every peak sinks, the talker's
/// with it; the talker's own peak keeps a clearly higher ratio than the noise's, and that is
/// what tells them apart.
///
/// Synthetic rooms (``Reverberation``: RT60 0.6 s, direct-to-reverberant −7 dB, each source its
/// own seeded reflections), 15 cm spaced pair at 16 kHz, 8 s: a speech-like talker (pauses on)
/// and a pink noise of the same RMS, white sensor noise 30 dB below them. The talker is judged on
/// the frames where its dry signal is within 15 dB of its RMS, after the first second; a hit is
/// a listed source within 10° of it.
struct SteadyNoiseRoomTests {
    static let sampleRate = 16000.0

    /// The scene, and the talker's dry signal.
    static func render(talker: Double, noise: Double, rt60: Double = 0.6, drr: Double = -7) -> (signal: StereoSignal, dryTalker: [Double]) {
        let n = Int(8 * sampleRate)
        let speech = Generators.speechLike(count: n, sampleRate: sampleRate, rms: 0.05, seed: 11)
        let pink = Generators.pinkNoise(count: n, sampleRate: sampleRate, rms: 0.05, seed: 12)
        var left = [Double](repeating: 0, count: n), right = left
        for (signal, azimuth, seed) in [(speech, talker, UInt64(21)), (pink, noise, UInt64(22))] {
            let heard = Reverberation.render(
                signal, azimuth: azimuth, microphones: .spaced(spacing: 0.15), sampleRate: sampleRate,
                rt60: rt60, directToReverberantDecibels: drr, seed: seed)
            for i in 0..<n { left[i] += heard.left[i]; right[i] += heard.right[i] }
        }
        let sensor = Generators.whiteNoise(count: 2 * n, rms: 0.05 * pow(10, -30.0 / 20), seed: 5)
        for i in 0..<n { left[i] += sensor[i]; right[i] += sensor[n + i] }
        return (StereoSignal(left: left.map { Float($0) }, right: right.map { Float($0) }, sampleRate: sampleRate), speech)
    }

    /// The talker's hit rate and the noise's, over the talker's active frames (after the first
    /// second).
    static func hitRates(talker: Double, noise: Double, rt60: Double = 0.6, drr: Double = -7) throws -> (talker: Double, noise: Double) {
        let (signal, dry) = render(talker: talker, noise: noise, rt60: rt60, drr: drr)
        let configuration = AnalysisConfiguration(sampleRate: sampleRate)
        let records = try analyze(signal, configuration: configuration)
        let threshold = pow(0.05 * pow(10, -15.0 / 20), 2)
        var judged = 0, talkerHits = 0, noiseHits = 0
        for (i, record) in records.enumerated() where record.time >= 1 {
            let start = i * configuration.hopLength, end = min(dry.count, start + configuration.frameLength)
            guard end > start else { continue }
            let power = dry[start..<end].reduce(0) { $0 + $1 * $1 } / Double(end - start)
            guard power >= threshold else { continue }
            judged += 1
            if record.sources.contains(where: { abs($0.azimuth - talker) <= 10 }) { talkerHits += 1 }
            if record.sources.contains(where: { abs($0.azimuth - noise) <= 10 }) { noiseHits += 1 }
        }
        return (Double(talkerHits) / Double(max(1, judged)), Double(noiseHits) / Double(max(1, judged)))
    }

    // Measured when written (the noise at every 20° from −70° to +70°, the talker 40–100° away
    // on either side: 44 layouts, as `evaluate.py --steady`), mean over the layouts of the
    // talker's / the noise's hit rate:
    //   RT60 0.6 s: 0.387 / 0.914; before the relative test (the absolute one alone) 0.374 / 0.914.
    //   RT60 0.3 s (direct-to-reverberant −4 dB; not asserted): 0.599 / 0.880; before 0.563 / 0.885.
    // Single layouts move both ways; the mean gains. These rooms are harsher than
    // pyroomacoustics' shoebox of the same RT60 (every reflection in the horizontal plane, so
    // each one's delay between the microphones is as large as a source's): `evaluate.py
    // --steady` reads the talker within 10° in 60 % of its frames at RT60 0.6 s.
    @Test("RT60 0.6 s, 44 layouts of a talker beside a steady pink noise as loud: the talker listed within 10° in ≥ 38 % of its frames on average, the noise in ≥ 90 %")
    func talkerBesideSteadyNoiseInRooms() throws {
        var talkerSum = 0.0, noiseSum = 0.0, layouts = 0
        for noise in stride(from: -70.0, through: 70.0, by: 20.0) {
            for talker in stride(from: -90.0, through: 90.0, by: 20.0) where (40...100).contains(abs(talker - noise)) {
                let rates = try Self.hitRates(talker: talker, noise: noise)
                talkerSum += rates.talker
                noiseSum += rates.noise
                layouts += 1
            }
        }
        let talker = talkerSum / Double(layouts), noise = noiseSum / Double(layouts)
        print("RT60 0.6 s, \(layouts) layouts: talker \(String(format: "%.3f", talker)), noise \(String(format: "%.3f", noise))")
        #expect(layouts == 44)
        #expect(talker >= 0.38, "talker \(talker)")
        #expect(noise >= 0.9, "noise \(noise)")
    }
}
