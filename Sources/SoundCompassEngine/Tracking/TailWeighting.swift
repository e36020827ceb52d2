/// Lowers the confidence of frames whose level is falling: in a room they are mostly the
/// reverberant tail of a sound that has ended.
///
/// The direct sound of a source reaches the pair first; its reflections arrive later, from other
/// directions, and outlast it. A frame at an onset or in a sustained sound carries the direct
/// sound; a frame whose level falls, after a syllable or a note has stopped, holds the room's
/// decay, whose time difference points at the reflections (towards 0° for a spaced pair, whose
/// diffuse field is coherent with zero phase at low frequencies). Weighting frames by whether
/// new sound arrives is the precedence effect of hearing, in its simplest form.
///
/// The weight of a frame is `clamp(1 + slope/rate)`, with `slope` the change of the frame level
/// from the previous frame in dB per second (negative when falling) and `rate` the
/// ``AnalysisConfiguration/tailDecayRate`` (125 dB/s by default, the decay of a room with an
/// RT60 of about 0.5 s): a frame falling at that rate or faster gets 0, a steady or rising frame
/// 1. A steady source (noise, a held tone) keeps its confidence, since its level only jitters.
/// In free field the weight costs a speech track only frames whose direction the onsets already
/// gave.
package struct TailWeighting: Sendable {
    /// Fall rate at which a frame's weight reaches 0, dB/s (0: off).
    package let decayRate: Double
    private let hopDuration: Double
    private var previousLevel: Double?

    /// - Parameters:
    ///   - decayRate: dB/s; 0 turns the weighting off.
    ///   - hopDuration: seconds between frames.
    package init(decayRate: Double, hopDuration: Double) {
        self.decayRate = decayRate
        self.hopDuration = hopDuration
    }

    /// Forgets the previous frame.
    package mutating func reset() { previousLevel = nil }

    /// The weight of the next frame, 0…1.
    /// - Parameter levelDBFS: the frame's level (both channels), dBFS.
    package mutating func weight(levelDBFS: Double) -> Double {
        defer { previousLevel = levelDBFS }
        guard decayRate > 0, let previousLevel, levelDBFS.isFinite, previousLevel.isFinite else { return 1 }
        let slope = (levelDBFS - previousLevel) / hopDuration
        return max(0, min(1, 1 + slope / decayRate))
    }
}
