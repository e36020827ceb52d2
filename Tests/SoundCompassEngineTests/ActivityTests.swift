import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

struct ActivityTests {
    struct Scores { var precision: Double; var recall: Double; var frames: Int }

    /// Speech-like sound at −30° from `start` s, plus uncorrelated sensor noise at `noiseDBFS`
    /// in each channel, scored on the analyzer's own frames against where the source is, by
    /// the rule of issue 31 (as `Benchmarks/accuracy/evaluate.py` scores the rooms; in free
    /// field the source's image at the microphones is the delayed dry source), however weak it
    /// is against the noise:
    /// - recall: of the frames where the image is within 30 dB of its loudest frame, the share
    ///   marked active;
    /// - precision: 1 − the share of the active frames where the source is absent (its image
    ///   more than 60 dB below its loudest frame, far below the noise). Frames between (the
    ///   speech present, 30–60 dB down, syllable onsets and tails) count neither way, as
    ///   frames straddling an offset do in `SpeechBandActivityTests`: marking them is no false
    ///   alarm, missing them no miss.
    static func score(start: Double, duration: Double, speechDBFS: Double, noiseDBFS: Double, noisePink: Bool = false,
                      seed: UInt64, activity: ActivityConfiguration = ActivityConfiguration()) throws -> Scores {
        let fs = 48000.0
        let speech = Scene(
            sampleRate: fs, duration: duration,
            sources: [Source(.speech, azimuth: -30, start: start, levelDBFS: speechDBFS, seed: seed)]).render()
        let n = speech.count
        let rms = pow(10, noiseDBFS / 20)
        let noiseL = noisePink ? Generators.pinkNoise(count: n, sampleRate: fs, rms: rms, seed: seed + 1) : Generators.whiteNoise(count: n, rms: rms, seed: seed + 1)
        let noiseR = noisePink ? Generators.pinkNoise(count: n, sampleRate: fs, rms: rms, seed: seed + 2) : Generators.whiteNoise(count: n, rms: rms, seed: seed + 2)
        let mixture = StereoSignal(
            left: (0..<n).map { speech.left[$0] + Float(noiseL[$0]) }, right: (0..<n).map { speech.right[$0] + Float(noiseR[$0]) },
            sampleRate: fs)
        let config = AnalysisConfiguration(sampleRate: fs, activity: activity)
        let records = try analyze(mixture, configuration: config)
        let speechPower = records.map { r in
            let first = r.frame * config.hopLength
            return (first..<(first + config.frameLength)).reduce(0.0) { sum, i in
                sum + Double(speech.left[i] * speech.left[i] + speech.right[i] * speech.right[i])
            }
        }
        let loudest = speechPower.max() ?? 0
        var hits = 0, audible = 0, alarms = 0, active = 0
        for (r, power) in zip(records, speechPower) {
            if power > loudest * 1e-3 {
                audible += 1
                if r.active { hits += 1 }
            }
            if r.active {
                active += 1
                if power <= loudest * 1e-6 { alarms += 1 }
            }
        }
        return Scores(
            precision: 1 - Double(alarms) / Double(max(1, active)), recall: Double(hits) / Double(max(1, audible)),
            frames: records.count)
    }

    // Measured when written (speech at −30 dBFS, white noise; the speech band at 4 dB, the
    // default): after noise at −55 and −50 dBFS, precision 1.000 and 1.000, recall 1.000 and
    // 1.000; with pauses (−50 dBFS, seeds 5, 6, 7) precision 1.000, recall 0.985, 0.990, 0.996.
    // Scored by the older truth (a frame is speech when the dry speech beats the noise over the
    // whole spectrum) the band's precision was 0.75–0.90; by the 30 dB rule counting every
    // frame below it as a false alarm, 0.79–0.88: the frames it adds are speech 30–38 dB below
    // its loudest frame (local SNR −8 to −0.5 dB), present but under the rule's floor.
    @Test("speech after 3 s of noise only: precision ≥ 95 %, recall ≥ 90 %", arguments: [(-30.0, -55.0, false), (-30, -50, false)])
    func speechAfterNoise(speech: Double, noise: Double, pink: Bool) throws {
        let s = try Self.score(start: 3, duration: 12, speechDBFS: speech, noiseDBFS: noise, noisePink: pink, seed: 41)
        print("after noise \(speech)/\(noise) dBFS: precision \(s.precision), recall \(s.recall)")
        #expect(s.precision >= 0.95 && s.recall >= 0.90, "precision \(s.precision), recall \(s.recall)")
    }

    @Test("speech with pauses from the first sample: precision ≥ 95 %, recall ≥ 90 %", arguments: [UInt64(5), 6, 7])
    func speechWithPauses(seed: UInt64) throws {
        let s = try Self.score(start: 0, duration: 12, speechDBFS: -30, noiseDBFS: -50, seed: seed)
        print("pauses seed \(seed): precision \(s.precision), recall \(s.recall)")
        #expect(s.precision >= 0.95 && s.recall >= 0.90, "precision \(s.precision), recall \(s.recall)")
    }

    // Measured when written: margins of 0 dB (level and speech band) give precision 0.827 and
    // 0.853 (seeds 5, 6), recall 1.000: noise-only frames in the pauses marked active.
    @Test("the cases above can fail: a detector that marks noise as speech misses the precision", arguments: [UInt64(5), 6])
    func brokenDetectorFails(seed: UInt64) throws {
        let eager = ActivityConfiguration(marginDecibels: 0, speechBandMarginDecibels: 0)
        let s = try Self.score(start: 0, duration: 12, speechDBFS: -30, noiseDBFS: -50, seed: seed, activity: eager)
        print("margins 0 dB, seed \(seed): precision \(s.precision), recall \(s.recall)")
        #expect(s.precision < 0.95, "precision \(s.precision)")
    }

    @Test("a silent file gives no active frame; noise alone hardly any")
    func silenceAndNoise() throws {
        let zeros = [Float](repeating: 0, count: 96000)
        #expect(try analyze(StereoSignal(left: zeros, right: zeros, sampleRate: 48000)).allSatisfy { !$0.active })
        let noise = try analyze(uncorrelatedNoise(duration: 10, seed: 3))
        let share = Double(noise.filter(\.active).count) / Double(noise.count)
        #expect(share < 0.05, "\(share * 100) % of noise-only frames active")
    }

    @Test("the noise floor learns the noise level")
    func floorLevel() throws {
        let records = try analyze(uncorrelatedNoise(duration: 5, seed: 4))  // 0.1 RMS: −20 dBFS
        let floor = median(records.suffix(100).map(\.noiseFloorDBFS))
        #expect(abs(floor - -20) < 2, "floor \(floor) dBFS")
    }
}
