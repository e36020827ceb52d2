import ArgumentParser
import SoundCompass

struct SoundCompassCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soundcompass",
        abstract: "Tells where a sound comes from, using a stereo pair of microphones.",
        discussion: """
            Run with no arguments to analyze the built-in demo scene. Records go to stdout \
            (one per line), progress and diagnostics to stderr. Exit codes: 0 success, 1 internal \
            error, 64 bad usage, 65 unusable input data, 66 input missing or unreadable, \
            73 output cannot be created, 74 read or write error. See Docs/CLI.md.
            """,
        version: "0.1.0",
        subcommands: [Analyze.self, Live.self, Trace.self, Calibrate.self, Head.self, Devices.self, Synth.self],
        defaultSubcommand: Analyze.self
    )

    /// The subcommands by every name they answer to (their names and aliases).
    static var commandsByName: [(name: String, command: ParsableCommand.Type)] {
        configuration.subcommands.flatMap { command in
            ([command._commandName] + command.configuration.aliases).map { (name: $0, command: command) }
        }
    }
}
