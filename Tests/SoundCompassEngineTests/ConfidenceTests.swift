import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

struct ConfidenceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var kind: ArrayModel.Kind
        var sampleRate: Double
        var testDescription: String { "\(kind.rawValue) at \(Int(sampleRate)) Hz" }
    }

    @Test("uncorrelated noise: confidence < 0.2 on ≥ 95 % of frames", arguments: [
        Case(kind: .spaced, sampleRate: 48000), Case(kind: .spaced, sampleRate: 44100), Case(kind: .spaced, sampleRate: 8000),
        Case(kind: .spaced, sampleRate: 16000), Case(kind: .binaural, sampleRate: 48000), Case(kind: .coincident, sampleRate: 48000),
    ])
    func uncorrelatedNoiseIsNotConfident(testCase: Case) throws {
        let signal = uncorrelatedNoise(sampleRate: testCase.sampleRate, duration: 10, seed: 21)
        let config = AnalysisConfiguration(sampleRate: testCase.sampleRate, array: ArrayModel(kind: testCase.kind))
        let records = try analyze(signal, configuration: config)
        let share = Double(records.filter { $0.confidence < 0.2 }.count) / Double(records.count)
        #expect(records.count > 100)
        #expect(share >= 0.95, "\(testCase.testDescription): \(share * 100)% of \(records.count) frames below 0.2")
        for band in config.usableBands.map(\.name) {
            let quiet = records.filter { r in r.bands.first { $0.name == band }!.confidence < 0.2 }.count
            #expect(Double(quiet) / Double(records.count) >= 0.95, "\(testCase.testDescription), band \(band): \(quiet) of \(records.count)")
        }
    }

    @Test("coherence weighting finds quiet syllables of speech in white noise that plain PHAT loses")
    func coherenceWeighting() throws {
        let signal = stillSource(azimuth: -40, duration: 12, signal: .speech, snr: 10, seed: 31)
        func confidentFrames(_ smoothing: Double) throws -> (count: Int, medianError: Double) {
            let config = AnalysisConfiguration(sampleRate: 48000, coherenceSmoothing: smoothing)
            let confident = try analyze(signal, configuration: config).filter { $0.itdConfidence > 0.3 }
            return (confident.count, median(confident.map { abs($0.azimuth + 40) }))
        }
        let plain = try confidentFrames(0), weighted = try confidentFrames(0.5)
        #expect(weighted.medianError < 0.5 && plain.medianError < 0.5)
        // Measured when written: 63 confident frames against 39 for plain PHAT (seed 31).
        #expect(Double(weighted.count) > 1.3 * Double(plain.count), "confident frames: \(weighted.count) vs \(plain.count)")
    }

    @Test("digital silence: no confidence, level −160 dBFS, not active")
    func silence() throws {
        let zeros = [Float](repeating: 0, count: 48000)
        let records = try analyze(StereoSignal(left: zeros, right: zeros, sampleRate: 48000))
        #expect(!records.isEmpty)
        for r in records {
            #expect(r.confidence == 0 && !r.active && r.levelDBFS == -160 && r.azimuth == 0 && r.ildDecibels == 0)
        }
    }

    @Test("a source below the silence gate earns no confidence")
    func belowGate() throws {
        var signal = stillSource(azimuth: 20, duration: 0.5)
        signal.left = signal.left.map { $0 * 1e-3 }  // −80 dBFS
        signal.right = signal.right.map { $0 * 1e-3 }
        let records = try analyze(signal)
        #expect(records.allSatisfy { $0.confidence == 0 && !$0.active })
        // The direction is still measured.
        #expect(abs(median(records.map(\.azimuth)) - 20) < 1)
    }
}
