import ArgumentParser
import Foundation
import SoundCompass
import SoundCompassOptions

#if canImport(Glibc)
import Glibc
#endif

/// The program: parses the command line, runs the command, and reports every failure in one
/// voice: one line `soundcompass: error: …` on stderr and a documented exit code. `--help`
/// stays the place for usage, and ends with examples.
@main
enum Entry {
    static func main() {
        // A reader that goes away (`soundcompass … | head`) must end the run quietly: get EPIPE
        // from write(2) instead of being killed by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if reportMistypedCommand(in: arguments) { exit(ExitStatus.usage.rawValue) }
        do {
            var command = try SoundCompassCommand.parseAsRoot(arguments)
            try command.run()
        } catch {
            exit(report(error, arguments: arguments))
        }
    }

    /// Reports a mistyped subcommand ("did you mean …?"), if the first word is one.
    /// - Returns: whether it reported one. (The message is made and released here, not held by
    ///   `main` across `exit`, which LeakSanitizer would report as a leak in an optimised build.)
    private static func reportMistypedCommand(in arguments: [String]) -> Bool {
        guard let typo = CommandSuggestion.mistypedCommand(in: arguments) else { return false }
        Diagnostics.error(typo)
        return true
    }

    /// Prints what `error` says where it belongs and returns the exit code.
    static func report(_ error: any Error, arguments: [String]) -> Int32 {
        let code = SoundCompassCommand.exitCode(for: error)
        let subcommand = CommandSuggestion.subcommand(in: arguments)
        if code == .success {
            // --help, help, --version: the text goes to stdout.
            var text = SoundCompassCommand.fullMessage(for: error)
            if text.hasPrefix("OVERVIEW:") || text.hasPrefix("USAGE:") {
                while text.last?.isWhitespace == true { text.removeLast() }
                text += "\n\n" + HelpExamples.section(for: subcommand) + "\n"
            }
            if !text.isEmpty { Diagnostics.writeStandardOutput(text.hasSuffix("\n") ? text : text + "\n") }
            return 0
        }
        // Our own failures have been reported already (Diagnostics.reportingFailures).
        if error is ExitCode { return code.rawValue }
        let message = SoundCompassCommand.message(for: error)
        if !message.isEmpty {
            let help = "soundcompass" + (subcommand.map { " \($0._commandName)" } ?? "") + " --help"
            Diagnostics.error(oneLineMessage(message) + " (see '\(help)')")
        }
        return code.rawValue
    }
}
