import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// The speech-band test of the activity detector: weak voiced syllables under broadband noise.
struct SpeechBandActivityTests {
    struct Scores { var precision: Double; var recall: Double }

    /// Voiced syllables with a known on/off pattern: harmonic complexes (f0 100–220 Hz, harmonics
    /// up to 3 kHz falling 9 dB per octave) on for 0.15–0.4 s with 10 ms ramps, at levels spread
    /// uniformly over 15 dB (speech's syllable-to-syllable range), off for 0.15–0.5 s.
    /// - Returns: the signal (peak syllable amplitude 1) and whether each sample is on.
    static func syllables(count: Int, sampleRate fs: Double, seed: UInt64) -> (signal: [Double], on: [Bool]) {
        var random = SeededRandom(seed: seed)
        var signal = [Double](repeating: 0, count: count), on = [Bool](repeating: false, count: count)
        var position = Int(0.3 * fs)
        while position < count {
            let length = Int((0.15 + 0.25 * random.uniform()) * fs)
            let gain = pow(10, -15 * random.uniform() / 20)
            let f0 = 100 + 120 * random.uniform()
            let ramp = 0.01 * fs
            for i in 0..<length where position + i < count {
                let t = Double(i) / fs
                var x = 0.0
                var h = 1.0
                while h * f0 < 3000 {
                    x += sin(2 * Double.pi * h * f0 * t) / (h * h.squareRoot())
                    h += 1
                }
                let edge = min(1, Double(i) / ramp, Double(length - 1 - i) / ramp)
                signal[position + i] = gain * x * edge
                on[position + i] = true
            }
            position += length + Int((0.15 + 0.35 * random.uniform()) * fs)
        }
        return (signal, on)
    }

    /// The syllables from the right (the right channel leads by 3 samples, about 25°) in
    /// uncorrelated white sensor noise at `snr` dB (power over the on samples / noise power),
    /// 16 kHz, 6 s. Truth per analyzer frame: speech when at least half its samples are on,
    /// for the recall; a frame with no on sample at all that is marked active is a false alarm
    /// (frames straddling an offset count neither way).
    static func score(activity: ActivityConfiguration, snr: Double, seed: UInt64) throws -> Scores {
        let (mixture, on) = scene(snr: snr, seed: seed)
        let config = AnalysisConfiguration(sampleRate: mixture.sampleRate, activity: activity)
        let records = try analyze(mixture, configuration: config)
        var hits = 0, speech = 0, alarms = 0, active = 0
        for r in records {
            let first = r.frame * config.hopLength
            let share = Double((first..<(first + config.frameLength)).filter { on[$0] }.count) / Double(config.frameLength)
            if share >= 0.5 {
                speech += 1
                if r.active { hits += 1 }
            }
            if r.active {
                active += 1
                if share == 0 { alarms += 1 }
            }
        }
        return Scores(precision: 1 - Double(alarms) / Double(max(1, active)), recall: Double(hits) / Double(max(1, speech)))
    }

    /// The scene of ``score(activity:snr:seed:)``: the mixture and whether each sample is on.
    static func scene(snr: Double, seed: UInt64) -> (mixture: StereoSignal, on: [Bool]) {
        let fs = 16000.0
        let n = Int(6 * fs)
        let (dry, on) = syllables(count: n, sampleRate: fs, seed: seed)
        var power = 0.0, onCount = 0
        for i in 0..<n where on[i] { power += dry[i] * dry[i]; onCount += 1 }
        let noiseRMS = (power / Double(onCount) / pow(10, snr / 10)).squareRoot()
        let noiseL = Generators.whiteNoise(count: n, rms: noiseRMS, seed: seed + 1)
        let noiseR = Generators.whiteNoise(count: n, rms: noiseRMS, seed: seed + 2)
        let scale = 0.05
        let lead = 3
        let mixture = StereoSignal(
            left: (0..<n).map { Float(scale * ((($0 >= lead) ? dry[$0 - lead] : 0) + noiseL[$0])) },
            right: (0..<n).map { Float(scale * (dry[$0] + noiseR[$0])) }, sampleRate: fs)
        return (mixture, on)
    }

    // Measured when written (seeds 21, 22): with the speech band at 4 dB (the default since
    // issue 31), precision 1.000 and 1.000, recall 0.988 and 0.994; without it (level and phase
    // consistency only, all that main had before the test existed) precision 1.000 and 1.000,
    // recall 0.720 and 0.800, which fails this test.
    @Test("weak syllables at 5 dB SNR in white noise: the speech band finds ≥ 90 % at ≥ 95 % precision",
          arguments: [UInt64(21), 22])
    func speechBandAtFiveDecibels(seed: UInt64) throws {
        let on = try Self.score(activity: ActivityConfiguration(), snr: 5, seed: seed)
        #expect(ActivityConfiguration().speechBandMarginDecibels == 4)
        let off = try Self.score(activity: ActivityConfiguration(speechBandMarginDecibels: .infinity), snr: 5, seed: seed)
        print("seed \(seed): speech band P \(on.precision) R \(on.recall); without P \(off.precision) R \(off.recall)")
        #expect(on.recall >= 0.9, "recall \(on.recall)")
        #expect(on.precision >= 0.95, "precision \(on.precision)")
    }

    @Test("uncorrelated noise alone: the speech band marks hardly any frame active")
    func noiseAlone() throws {
        let config = AnalysisConfiguration(sampleRate: 16000, activity: ActivityConfiguration(speechBandMarginDecibels: 4))
        let records = try analyze(uncorrelatedNoise(sampleRate: 16000, duration: 10, seed: 3), configuration: config)
        let share = Double(records.filter(\.active).count) / Double(records.count)
        #expect(share < 0.05, "\(share * 100) % of noise-only frames active")
    }

    // Measured when written (seed 21): at 5 dB SNR the band adds 45 frames, at 0 dB 94, none
    // lost; every bearing and confidence is the one without the band. At full weight 4 and 3 of
    // the added frames carry a confidence (all below the tracker's 0.2 here, so no bearing moves).
    @Test("frames active by the band alone carry no confidence: every bearing is the one without the band",
          arguments: [5.0, 0.0])
    func bandOnlyFramesLeaveTheBearings(snr: Double) throws {
        let (mixture, _) = Self.scene(snr: snr, seed: 21)
        func run(_ activity: ActivityConfiguration) throws -> [AnalysisRecord] {
            try analyze(mixture, configuration: AnalysisConfiguration(sampleRate: mixture.sampleRate, activity: activity))
        }
        let withBand = try run(ActivityConfiguration())
        let without = try run(ActivityConfiguration(speechBandMarginDecibels: .infinity))
        let fullWeight = try run(ActivityConfiguration(speechBandOnlyWeight: 1))
        #expect(withBand.count == without.count && withBand.count == fullWeight.count)
        let added = zip(withBand, without).filter { $0.active && !$1.active }
        let lost = zip(withBand, without).filter { !$0.active && $1.active }.count
        let sameBearings = zip(withBand, without).allSatisfy { $0.azimuth == $1.azimuth && $0.confidence == $1.confidence }
        let confidentAtFullWeight = zip(fullWeight, without).filter { $0.active && !$1.active && $0.confidence > 0 }.count
        print("\(snr) dB: \(added.count) frames added by the band, \(lost) lost; at full weight \(confidentAtFullWeight) of them carry a confidence")
        #expect(added.count >= 10, "the band added only \(added.count) frames")
        #expect(lost == 0)
        #expect(added.allSatisfy { $0.0.confidence == 0 })
        #expect(sameBearings)
        // The checks can fail: at full weight the added frames carry their confidence.
        #expect(confidentAtFullWeight > 0)
    }
}
