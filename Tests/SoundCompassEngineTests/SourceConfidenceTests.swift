import Foundation
import Testing
@testable import SoundCompassEngine
import TestSignals
import TestSupport

/// The sources' `confidence` as measured (``SourceConfidenceCalibration``, issue 46 item 3):
/// the model's arithmetic and its ids' ages, and its calibration on TestSignals scenes.
@Suite("A source's confidence, measured")
struct SourceConfidenceTests {
    /// The logistic model by hand: β₀ + β_c·c + β_a·ln(1 + min(age, 10)) + β_l·clamp(Δlevel)/10.
    @Test("the model: its weights, the age capped at 10 s, the level difference clamped to −40…10 dB")
    func model() {
        func logistic(_ z: Double) -> Double { 1 / (1 + exp(-z)) }
        let one = SourceConfidenceCalibration.calibrated(confidence: 0.5, age: 2, levelDBFS: -30, frameLevelDBFS: -25)
        #expect(abs(one - logistic(0.635 + 1.557 * 0.5 + 0.275 * log(3.0) + 0.137 * -0.5)) < 1e-12)
        // Older than 10 s counts as 10 s; a level 60 dB under the frame's as 40 dB under.
        let capped = SourceConfidenceCalibration.calibrated(confidence: 0.2, age: 50, levelDBFS: -90, frameLevelDBFS: -30)
        #expect(abs(capped - logistic(0.635 + 1.557 * 0.2 + 0.275 * log(11.0) + 0.137 * -4)) < 1e-12)
        // More evidence, more age, a louder source: each raises it.
        let base = SourceConfidenceCalibration.calibrated(confidence: 0.3, age: 1, levelDBFS: -30, frameLevelDBFS: -30)
        #expect(SourceConfidenceCalibration.calibrated(confidence: 0.9, age: 1, levelDBFS: -30, frameLevelDBFS: -30) > base)
        #expect(SourceConfidenceCalibration.calibrated(confidence: 0.3, age: 8, levelDBFS: -30, frameLevelDBFS: -30) > base)
        #expect(SourceConfidenceCalibration.calibrated(confidence: 0.3, age: 1, levelDBFS: -25, frameLevelDBFS: -30) > base)
    }

    /// Ages run from each id's first listing; a source listed again keeps its age; an id older
    /// than every remembered one, once the ring is full, counts as old.
    @Test("each id's age runs from its first listing; a forgotten id counts as old")
    func ages() {
        let calibration = SourceConfidenceCalibration()
        func confidence(id: Int, at time: Double) -> Double {
            var sources = [SourceRecord(id: id, azimuth: 0, confidence: 0.5, levelDBFS: -30, active: true)]
            calibration.calibrate(&sources, time: time, frameLevelDBFS: -30)
            return sources[0].confidence
        }
        func expected(age: Double) -> Double {
            SourceConfidenceCalibration.calibrated(confidence: 0.5, age: age, levelDBFS: -30, frameLevelDBFS: -30)
        }
        #expect(confidence(id: 1, at: 3) == expected(age: 0))
        #expect(confidence(id: 1, at: 5.5) == expected(age: 2.5))
        #expect(confidence(id: 2, at: 6) == expected(age: 0))
        #expect(confidence(id: 1, at: 7) == expected(age: 4))
        // Fill the ring with newer ids: id 1 is forgotten, and counts as old.
        for id in 3..<(3 + SourceConfidenceCalibration.capacity) { _ = confidence(id: id, at: 8) }
        #expect(confidence(id: 1, at: 9) == expected(age: SourceConfidenceCalibration.oldSeconds))
        calibration.reset()
        #expect(confidence(id: 1, at: 10) == expected(age: 0))
    }

    /// The active listed sources of `signal` from 1 s on: their mean reported confidence, and the
    /// share within 10° of one of `azimuths`.
    static func reported(_ signal: StereoSignal, azimuths: [Double]) throws -> (count: Int, mean: Double, real: Double) {
        var confidences: [Double] = [], real = 0
        for record in try analyze(signal).filter({ $0.time >= 1 }) {
            for source in record.sources where source.active {
                confidences.append(source.confidence)
                if azimuths.contains(where: { abs($0 - source.azimuth) <= 10 }) { real += 1 }
            }
        }
        #expect(confidences.allSatisfy { (0...1).contains($0) && $0.isFinite })
        let n = max(1, confidences.count)
        return (confidences.count, confidences.reduce(0, +) / Double(n), Double(real) / Double(n))
    }

    /// Speech-like talkers in a synthetic room (``Reverberation``: RT60 0.3 s, direct-to-
    /// reverberant −4 dB, 15 cm pair, 16 kHz, each talker its own seeded reflections), scored
    /// like `confidence.py`. Measured when written: two talkers at −40°/+30°: mean 0.765, real
    /// 0.820 (890 entries); at −60°/+20°: 0.753, 0.832 (892). With the tracker's stand-ins held
    /// and the weights refitted: 0.781, 0.820 (890); 0.772, 0.859 (864; with the old weights
    /// 0.758, 0.859, just outside). The model was fitted on other rooms (pyroomacoustics'
    /// shoeboxes): within 0.1 here, a little under.
    @Test("talkers in a synthetic room: the mean confidence within 0.1 of the share of real sources", arguments: [[-40.0, 30.0], [-60.0, 20.0]])
    func calibratedInARoom(azimuths: [Double]) throws {
        let rate = 16000.0
        var left = [Double](repeating: 0, count: Int(8 * rate)), right = left
        for (i, azimuth) in azimuths.enumerated() {
            // The talker's dry signal: heard from straight ahead, both channels are it.
            let dry = Scene(
                sampleRate: rate, duration: 8, sources: [Source(.speech, azimuth: 0, levelDBFS: -20, seed: UInt64(11 + i))]
            ).render().left.map(Double.init)
            let heard = Reverberation.render(
                dry, azimuth: azimuth, microphones: .spaced(spacing: 0.15), sampleRate: rate, rt60: 0.3,
                directToReverberantDecibels: -4, seed: UInt64(31 + i))
            for n in left.indices { left[n] += heard.left[n]; right[n] += heard.right[n] }
        }
        var random = SeededRandom(seed: 5)
        let signal = StereoSignal(
            left: left.map { Float($0 + 0.003 * random.gaussian()) }, right: right.map { Float($0 + 0.003 * random.gaussian()) },
            sampleRate: rate)
        let r = try Self.reported(signal, azimuths: azimuths)
        print("room, talkers at \(azimuths): \(r.count) active entries, mean confidence \(r.mean), real \(r.real)")
        #expect(r.count > 300)
        #expect(abs(r.mean - r.real) <= 0.1)
    }

    /// On the free-field talker scenes of `MultiSourceTests` (one, two and three speech-like
    /// talkers, 48 kHz). Free field is easier than the rooms the model was fitted on (real 77 %
    /// of the entries there): nearly every listed source is real here, and the model reads under
    /// the truth, never above it. Measured when written: one talker at 20°: mean 0.834, real
    /// 1.000; two at −40°/+30°: 0.763, 0.964; three at −50°/0°/+45°: 0.747, 0.996 (with the
    /// weights refitted: 0.846, 0.778, 0.756).
    @Test("free-field talkers: the mean confidence under the share of real sources, by at most 0.3", arguments: [[20.0], [-40.0, 30.0], [-50.0, 0.0, 45.0]])
    func conservativeInFreeField(azimuths: [Double]) throws {
        let r = try Self.reported(MultiSourceTests.scene(azimuths).render(), azimuths: azimuths)
        print("free field, talkers at \(azimuths): \(r.count) active entries, mean confidence \(r.mean), real \(r.real)")
        #expect(r.count > 100)
        #expect(r.mean <= r.real + 0.02)
        #expect(r.mean >= r.real - 0.3)
    }
}
