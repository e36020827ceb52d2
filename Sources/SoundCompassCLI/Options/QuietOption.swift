import ArgumentParser

/// `--quiet` (`-q`), shared by every command that reports on stderr: settings lines, progress,
/// reports and summaries are left out; errors and warnings are still written.
struct QuietOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing on stderr but errors and warnings (no settings line, progress, report or summary).")
    var quiet = false
}
