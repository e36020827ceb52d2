import ArgumentParser
import SoundCompass

/// Where and how records are written.
struct OutputOptions: ParsableArguments {
    @Option(help: "Record format (default: text on a terminal, jsonl otherwise).")
    var format: RecordFormat?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write records to this file (default: stdout).", valueName: "file"))
    var output: String?

    /// A writer for `session`'s records.
    /// - Parameter input: the input file, which `--output` must not overwrite.
    func makeWriter(for session: AnalysisSession, input: String?) throws -> RecordWriter {
        let sink: LineSink
        if let output, let input, LineSink.isSameFile(output, input) {
            throw CLIFailure("\(output): --output names the input file; refusing to overwrite it", status: .usage)
        }
        if let output {
            sink = try createFile(output)
        } else {
            sink = .standardOutput()
        }
        let chosen = format ?? (output == nil && sink.isTerminal ? .text : .jsonl)
        return session.makeRecordWriter(format: chosen, sink: sink)
    }
}

