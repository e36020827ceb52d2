import ArgumentParser

/// The examples that end every `--help` (swift-argument-parser has no epilogue: the entry point
/// appends this section to the help text).
enum HelpExamples {
    /// An `EXAMPLES:` section for `command` (`nil`: the root command).
    static func section(for command: ParsableCommand.Type?) -> String {
        "EXAMPLES:\n" + examples(for: command).map { "  # \($0.comment)\n  \($0.command)" }.joined(separator: "\n\n")
    }

    static func examples(for command: ParsableCommand.Type?) -> [(command: String, comment: String)] {
        switch command {
        case is SoundCompassCommand.Analyze.Type:
            [
                ("soundcompass analyze talk.wav", "a bearing every 21 ms; text on a terminal, JSON lines when piped"),
                ("soundcompass analyze rig.flac --channels 3,4 --spacing 0.2", "a pair of a multichannel recording"),
                ("cat talk.wav | soundcompass analyze - --format csv > trace.csv", "from a pipe, to CSV"),
            ]
        case is SoundCompassCommand.Live.Type:
            [
                ("soundcompass live", "a compass from the default capture device"),
                ("soundcompass live --device hw:1,0 --format jsonl", "records from a sound card's device"),
                ("arecord -f S16_LE -c 2 -r 48000 -t raw |\n      soundcompass live --input - --raw-format s16le", "raw PCM on stdin"),
            ]
        case is SoundCompassCommand.Trace.Type:
            [
                ("soundcompass trace", "the built-in demo scene, with its truth: demo.trace.svg"),
                ("soundcompass trace test.wav --truth test.truth.csv", "test.trace.svg with the error, and a segment table"),
                ("soundcompass trace take.wav --plot take.svg --summary-json take.json", "a plot and the segments as JSON"),
            ]
        case is SoundCompassCommand.Calibrate.Type:
            [
                ("soundcompass calibrate sweep.wav --truth sweep.truth.csv -o rig.json", "a moving source: spacing and channel offsets"),
                ("soundcompass calibrate ahead.wav --truth 0 -o rig.json", "a still source ahead: channel offsets only"),
                ("soundcompass analyze take.wav --profile rig.json", "use the profile"),
            ]
        case is SoundCompassCommand.Head.Type:
            [
                ("soundcompass head kemar.sofa > kemar.csv", "a measured head's delay and level tables"),
                ("soundcompass analyze take.wav --hrtf kemar.sofa", "analyse with that head's own tables"),
            ]
        case is SoundCompassCommand.Devices.Type:
            [
                ("soundcompass devices", "capture devices with their channels, rates and formats"),
                ("soundcompass live --device hw:1,0", "use one of them"),
            ]
        case is SoundCompassCommand.Synth.Type:
            [
                ("soundcompass synth test.wav --duration 8 \\\n      --source speech@-40@0.5-3.5 --source pink@-60:60@4-7.5", "speech, then a sweep; + test.truth.csv"),
                ("soundcompass synth talk.flac --source speech@30 --snr 20", "FLAC, from the extension"),
                ("soundcompass synth turn.wav --source speech@140 --turn 30:4@1", "a turning listener, + turn.imu.csv"),
            ]
        default:
            [
                ("soundcompass", "analyze the built-in demo scene"),
                ("soundcompass analyze talk.wav", "one record per frame of a recording"),
                ("soundcompass live", "a live compass from the default capture device"),
                ("soundcompass help analyze", "the options of a command"),
            ]
        }
    }
}
