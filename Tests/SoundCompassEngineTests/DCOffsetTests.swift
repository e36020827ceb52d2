import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// A DC offset (a recorder's bias) is no sound and has no direction (issue 19, item 6).
/// Before the fix a constant 0.3 in both channels was marked active in every frame with
/// confidence up to 0.72 at 0°, and `calibrate --truth 30` fitted a profile from it.
struct DCOffsetTests {
    static func constant(_ value: Float, seconds: Double = 3, rate: Double = 48000) -> StereoSignal {
        let n = Int(seconds * rate)
        return StereoSignal(left: [Float](repeating: value, count: n), right: [Float](repeating: value, count: n), sampleRate: rate)
    }

    @Test("a constant offset alone: no active frame, no confidence, no level", arguments: [0.3, -0.05] as [Float])
    func offsetAlone(value: Float) throws {
        let records = try analyze(Self.constant(value))
        #expect(records.count == 139)
        #expect(records.allSatisfy { !$0.active && $0.confidence == 0 })
        // The level is that of the sound about the mean: none (float rounding leaves < −120 dBFS).
        #expect(records.allSatisfy { $0.levelDBFS < -120 }, "\(records.map(\.levelDBFS).max() ?? 0)")
    }

    @Test("a source with a DC offset added reads as without it (within 0.05°), in every array model",
          arguments: [ArrayModel.Kind.spaced, .binaural, .coincident])
    func offsetUnderSource(kind: ArrayModel.Kind) throws {
        let microphones: Microphones = switch kind {
        case .spaced: .spaced(spacing: 0.15)
        case .binaural: .binaural(headRadius: 0.0875, ildAt90: 10)
        case .coincident: .coincident(halfAngle: 45)
        }
        let clean = Scene(duration: 2, microphones: microphones, sources: [Source(.pinkNoise, azimuth: 35, levelDBFS: -30)]).render()
        var biased = clean
        // Different offsets in the two channels, ten times the source's RMS.
        biased.left = clean.left.map { $0 + 0.3 }
        biased.right = clean.right.map { $0 - 0.2 }
        let config = AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: kind))
        let a = try analyze(clean, configuration: config).filter(\.active)
        let b = try analyze(biased, configuration: config).filter(\.active)
        try #require(a.count > 60)
        #expect(a.count == b.count)
        #expect(abs(median(a.map(\.azimuth)) - median(b.map(\.azimuth))) <= 0.05,
                "\(median(a.map(\.azimuth))) vs \(median(b.map(\.azimuth)))")
        #expect(abs(median(a.map(\.levelDBFS)) - median(b.map(\.levelDBFS))) <= 0.05)
    }
}
