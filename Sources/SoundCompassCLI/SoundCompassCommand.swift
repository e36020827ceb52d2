import ArgumentParser
import SoundCompass

#if canImport(Glibc)
import Glibc
#endif

@main
enum Main {
    static func main() {
        // A reader that goes away (`soundcompass … | head`) must end the run quietly: get EPIPE
        // from write(2) instead of being killed by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        SoundCompassCommand.main()
    }
}

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
        subcommands: [Analyze.self, Live.self, Trace.self, Calibrate.self, Devices.self, Synth.self],
        defaultSubcommand: Analyze.self
    )
}
