import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// Acceptance sweeps: free field, white noise, exact fractional delays for −80…80° in 5° steps.
/// Tolerances (median over the frames of each case): ≤ 0.5° for |az| ≤ 60°, ≤ 2° up to 80°.
struct AccuracyTests {
    struct Setup: Sendable, CustomTestStringConvertible {
        var sampleRate: Double
        var spacing: Double
        var snr: Double?
        var testDescription: String {
            "\(Int(sampleRate)) Hz, d = \(spacing) m" + (snr.map { ", SNR \(Int($0)) dB" } ?? "")
        }
    }

    static let azimuths = stride(from: -80.0, through: 80.0, by: 5.0).map { $0 }

    static func medianErrors(_ setup: Setup) throws -> [(azimuth: Double, error: Double, confidence: Double)] {
        let array = ArrayModel(kind: .spaced, spacingMeters: setup.spacing)
        let config = AnalysisConfiguration(sampleRate: setup.sampleRate, array: array)
        return try azimuths.map { azimuth in
            let signal = stillSource(
                azimuth: azimuth, microphones: .spaced(spacing: setup.spacing), sampleRate: setup.sampleRate,
                duration: 0.5, snr: setup.snr, seed: UInt64(azimuth + 100))
            let records = try analyze(signal, configuration: config)
            return (azimuth, median(records.map { abs($0.azimuth - azimuth) }), median(records.map(\.confidence)))
        }
    }

    @Test("clean white noise", arguments: [
        Setup(sampleRate: 48000, spacing: 0.15), Setup(sampleRate: 44100, spacing: 0.15),
        Setup(sampleRate: 48000, spacing: 0.10), Setup(sampleRate: 44100, spacing: 0.10),
    ])
    func cleanSweep(setup: Setup) throws {
        for result in try Self.medianErrors(setup) {
            let tolerance = abs(result.azimuth) <= 60 ? 0.5 : 2.0
            #expect(result.error <= tolerance, "\(setup.testDescription): \(result.azimuth)° median error \(result.error)°")
            #expect(result.confidence > 0.8, "\(setup.testDescription): \(result.azimuth)° confidence \(result.confidence)")
        }
    }

    @Test("uncorrelated noise at SNR 0 dB: median error ≤ 2° for |az| ≤ 60°", arguments: [
        Setup(sampleRate: 48000, spacing: 0.15, snr: 0), Setup(sampleRate: 44100, spacing: 0.10, snr: 0),
    ])
    func noisySweep(setup: Setup) throws {
        for result in try Self.medianErrors(setup) where abs(result.azimuth) <= 60 {
            #expect(result.error <= 2, "\(setup.testDescription): \(result.azimuth)° median error \(result.error)°")
        }
    }

    @Test("other sample rates keep the accuracy", arguments: [8000.0, 16000, 96000])
    func otherRates(sampleRate: Double) throws {
        let config = AnalysisConfiguration(sampleRate: sampleRate)
        for azimuth in [-60.0, -25, 0, 40] {
            let signal = stillSource(azimuth: azimuth, sampleRate: sampleRate, duration: 0.8)
            let error = median(try analyze(signal, configuration: config).map { abs($0.azimuth - azimuth) })
            #expect(error <= 1.0, "\(Int(sampleRate)) Hz, \(azimuth)°: median error \(error)°")
        }
    }
}
