import SoundCompass
import TestSignals

extension SoundCompassCommand.Synth {
    /// The warning for sources that play at once: the truth names one of them there.
    static func overlapWarning(_ overlap: Scene.Overlap) -> String {
        let followed = overlap.followed + 1, hidden = overlap.hidden + 1
        return "sources \(min(followed, hidden)) and \(max(followed, hidden)) play together from "
            + "\(formatSeconds(overlap.start)) s to \(formatSeconds(overlap.end)) s: the truth follows source \(followed) there, "
            + "while the engine follows whichever dominates each frame (usually the broadband one); "
            + "give them separate times (KIND@AZIMUTH@START-END) for a truth that holds throughout"
    }
}
