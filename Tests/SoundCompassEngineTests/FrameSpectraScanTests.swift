import Foundation
import Testing
@testable import SoundCompassEngine
import TestSignals

/// The vectorised scans over a frame's bins against a scan bin by bin.
struct FrameSpectraScanTests {
    /// The spectra of frames of seeded white noise (and one of silence) at several lengths, so
    /// that the eight-bin groups end at every offset and leave tails of every size.
    static func frames(_ body: (FrameSpectra) -> Void) {
        for (i, length) in [16, 40, 64, 100, 256, 1000, 2048].enumerated() {
            let gcc = GCCPHAT(frameLength: length, maxLagSamples: 4)
            for seed in 0..<20 {
                let scale = seed == 0 ? 0 : Double(seed)
                let left = Generators.whiteNoise(count: length, rms: 0.1 * scale, seed: UInt64(100 * i + seed)).map(Float.init)
                let right = Generators.whiteNoise(count: length, rms: 0.05 * scale, seed: UInt64(100 * i + seed + 50)).map(Float.init)
                let frame = left.withUnsafeBufferPointer { l in right.withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) } }
                body(frame.spectra)
            }
        }
    }

    @Test("the strongest bin is the first largest, as a scan bin by bin finds it")
    func strongestBin() {
        Self.frames { spectra in
            let end = spectra.fftSize / 2
            var best = 1
            var power: Float = 0
            for k in 1..<end where spectra.power(k) > power { power = spectra.power(k); best = k }
            let found = spectra.strongestBin(below: end)
            #expect(found.bin == best && found.power == power, "N = \(spectra.fftSize)")
        }
    }

    @Test("the level difference above a bin matches a sum in double precision to 1e-4 dB")
    func levelDifference() {
        Self.frames { spectra in
            for first in [1, 3, spectra.fftSize / 8, spectra.fftSize / 2] {
                var sumL = 0.0, sumR = 0.0
                for k in first...(spectra.fftSize / 2) {
                    sumL += Double(spectra.left[2 * k]) * Double(spectra.left[2 * k]) + Double(spectra.left[2 * k + 1]) * Double(spectra.left[2 * k + 1])
                    sumR += Double(spectra.right[2 * k]) * Double(spectra.right[2 * k]) + Double(spectra.right[2 * k + 1]) * Double(spectra.right[2 * k + 1])
                }
                let scale = 1 / Double(spectra.fftSize * spectra.frameLength)
                let reference = decibelRatio(sumR * scale, sumL * scale)
                #expect(abs(spectra.levelDifferenceDecibels(fromBin: first) - reference) < 1e-4, "N = \(spectra.fftSize), from \(first)")
            }
        }
    }
}
