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

    @Test("the blocker is y[n] = x[n] − x[n−1] + R·y[n−1] on each channel, bit for bit, across blocks")
    func recursionPerChannel() {
        let left = Generators.whiteNoise(count: 5000, rms: 0.2, seed: 41).map { Float($0 + 0.3) }
        let right = Generators.whiteNoise(count: 5000, rms: 0.1, seed: 42).map { Float($0 - 0.1) }
        var blocker = DCBlocker(cutoffHertz: 20, sampleRate: 48000)
        /// The recursion in double precision, primed with the first sample.
        func reference(_ x: [Float]) -> [Float] {
            var x1 = Double(x[0]), y1 = 0.0
            return x.map { sample in
                let y = Double(sample) - x1 + blocker.pole * y1
                x1 = Double(sample); y1 = y
                return Float(y)
            }
        }
        var filteredLeft = left, filteredRight = right
        // Blocks of uneven sizes, so that the state carries across calls.
        var start = 0
        for size in [1, 7, 1024, 333, 3635] {
            filteredLeft.withUnsafeMutableBufferPointer { l in
                filteredRight.withUnsafeMutableBufferPointer { r in
                    blocker.filter(left: l.baseAddress! + start, right: r.baseAddress! + start, count: size)
                }
            }
            start += size
        }
        #expect(start == 5000)
        #expect(filteredLeft == reference(left))
        #expect(filteredRight == reference(right))
        #expect(filteredLeft != left)
    }
}
