import Foundation
import Testing
@testable import SoundCompassEngine
import TestSignals

/// The stationary floor's marks (``StationaryBinFloor``): a steady noise's bins stay unmarked once
/// the floor is learned; a tone that starts is new sound from its first frame, an onset only in
/// its first frames, and new sound as long as it lasts.
struct StationaryBinFloorTests {
    static let sampleRate = 16000.0
    static let frameLength = 512
    static let hop = 256

    /// Runs `seconds` of white noise (RMS 0.05, seeded) through GCC-PHAT frame by frame, with a
    /// 1 kHz tone 30 dB above the noise's per-bin level from `toneStart` s on, and returns, per
    /// frame, the share of marked bins (new sound, onsets) and whether the tone's bin is marked.
    static func marks(seconds: Double, toneStart: Double) -> [(newShare: Double, onsetShare: Double, toneNew: Bool, toneOnset: Bool)] {
        let count = Int(seconds * sampleRate)
        let noiseL = Generators.whiteNoise(count: count, rms: 0.05, seed: 21)
        let noiseR = Generators.whiteNoise(count: count, rms: 0.05, seed: 22)
        let tone = Generators.tone(frequency: 1000, sampleRate: sampleRate, count: count, amplitude: 0.5)
        let start = Int(toneStart * sampleRate)
        let left = (0..<count).map { Float(noiseL[$0] + ($0 >= start ? tone[$0] : 0)) }
        let right = (0..<count).map { Float(noiseR[$0] + ($0 >= start ? tone[$0] : 0)) }
        let gcc = GCCPHAT(frameLength: frameLength, maxLagSamples: 7)
        let floor = StationaryBinFloor(binCount: gcc.fftSize / 2 + 1, stride: 1, hopDuration: Double(hop) / sampleRate)
        let newSound = AlignedFloats(count: gcc.fftSize / 2 + 1), onsets = AlignedFloats(count: gcc.fftSize / 2 + 1)
        let toneBin = Int((1000 / sampleRate * Double(gcc.fftSize)).rounded())
        var out: [(Double, Double, Bool, Bool)] = []
        var frameStart = 0
        while frameStart + frameLength <= count {
            let frame = left[frameStart..<(frameStart + frameLength)].withUnsafeBufferPointer { l in
                right[frameStart..<(frameStart + frameLength)].withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) }
            }
            floor.update(spectra: frame.spectra, newSound: newSound.baseAddress, onsets: onsets.baseAddress)
            let bins = 1..<(gcc.fftSize / 2)
            let newCount = bins.filter { newSound[$0] == 1 }.count, onsetCount = bins.filter { onsets[$0] == 1 }.count
            out.append((Double(newCount) / Double(bins.count), Double(onsetCount) / Double(bins.count),
                        newSound[toneBin] == 1, onsets[toneBin] == 1))
            frameStart += hop
        }
        return out
    }

    // Measured when written: once the floor is learned (2–3.9 s), at most 0.0 % of the noise's
    // bins marked new in any frame; the tone's bin new in every frame from its start to 5.4 s,
    // an onset in its first two frames only (after one frame the smoothed power is 0.2 of the
    // tone's, after two 0.36: its power is 2.8 times that, under the onset ratio of 4), and no
    // longer new from 6 s on, once the floor (the minimum over the last 1.6 s) has learned it.
    @Test("a steady noise stays unmarked; a tone is new sound until the floor learns it, an onset where it starts")
    func steadyNoiseAndTone() {
        let frames = Self.marks(seconds: 7.5, toneStart: 4)
        func frameIndex(_ t: Double) -> Int { Int((t * Self.sampleRate - Double(Self.frameLength)) / Double(Self.hop)) + 1 }
        let learned = frames[frameIndex(2)..<frameIndex(3.9)]
        let worstNewShare = learned.map(\.newShare).max() ?? 1
        print("steady noise: most bins marked new in a frame \(worstNewShare), onsets \(learned.map(\.onsetShare).max() ?? 1)")
        #expect(worstNewShare <= 0.01, "a steady noise's bins stand 16 times above their floor in at most 1 % of a frame's bins")
        // The first frame that holds the tone over at least half its length.
        let first = Int((4 * Self.sampleRate - Double(Self.frameLength) / 2) / Double(Self.hop)) + 1
        let tone = frames[first..<frameIndex(5.4)]
        let newFrames = tone.filter { $0.toneNew }.count
        let laterOnsets = tone.dropFirst(2).filter { $0.toneOnset }.count
        let learnedMarks = frames[frameIndex(6)...].filter { $0.toneNew }.count
        #expect(newFrames == tone.count, "the tone's bin is new sound in every frame (\(newFrames) of \(tone.count))")
        #expect(frames[first].toneOnset, "an onset where it starts")
        #expect(laterOnsets == 0, "no onset after its first two frames (\(laterOnsets))")
        #expect(learnedMarks == 0, "the floor has learned the tone by 6 s (\(learnedMarks) frames still new)")
    }
}
