import ArgumentParser
import SoundCompass
import SoundCompassOptions
import TestSignals

extension SoundCompassCommand {
    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Analyze a sound file and print one record per analysis frame.",
            discussion: """
                Reads any format libsndfile understands (WAV incl. 24-bit and WAVE_EXTENSIBLE, FLAC, \
                AIFF, Ogg) block by block in constant memory, at any sample rate from 8 kHz. With no \
                FILE, analyzes the built-in demo scene. Several files need --output-dir DIR: each \
                file's records go to DIR/NAME.jsonl (.csv, .txt), --jobs N files at once; a file that \
                fails is reported and the others go on (exit status: the first failing file's).
                """,
            aliases: ["analyse"])

        @Argument(help: ArgumentHelp(
            "Sound files to analyze (several need --output-dir), or - for standard input (default: the built-in demo scene).",
            valueName: "file"))
        var files: [String] = []

        /// The one file of a single-file run (`nil`: the demo scene).
        var file: String? { files.first }

        @OptionGroup(title: "Input")
        var input: InputOptions

        @OptionGroup(title: "Analysis")
        var analysis: AnalysisOptions

        @OptionGroup(title: "Front/back from an IMU")
        var imu: IMUOptions

        @OptionGroup(title: "Output")
        var output: OutputOptions

        @OptionGroup(title: "What the sound is")
        var classifier: ClassifierOptions

        @OptionGroup(title: "Trace")
        var trace: TraceOptions

        @OptionGroup(title: "Several files")
        var batch: FileBatchOptions

        @OptionGroup
        var verbosity: QuietOption

        func run() throws {
            if batch.applies(to: files) { return try runFiles() }
            try Diagnostics.reportingFailures {
                let session = try input.openSession(file, analysis: analysis, imu: imu.logInput)
                if let path = imu.imu, let out = output.output, LineSink.isSameFile(out, path) {
                    throw CLIFailure("\(out): --output names the IMU log; refusing to overwrite it", status: .usage)
                }
                try trace.checkOutputs(inputs: [file, imu.imu, output.output])
                // On a terminal, text records end with the summary of the active segments.
                let endSummary = !verbosity.quiet && output.recordsGoToTerminal && output.resolvedFormat == .text
                if let warning = trace.ignoredOptionsWarning(summaryShown: endSummary) { Diagnostics.warning(warning) }
                let traced = try trace.makeTrace(for: session, always: endSummary)
                let (writer, staged) = try output.makeWriter(for: session, input: file)
                try classifier.attach(to: session, writer: writer)
                if file == nil && !verbosity.quiet {
                    Diagnostics.note(
                        "no FILE given: analysing the built-in demo scene (15 cm pair; speech at −50°, noise at +35°, a source moving −70° → +70°)")
                }
                if !verbosity.quiet && Diagnostics.isTerminal { Diagnostics.describe(session) }
                // No progress bar between records on the terminal.
                try finishingOutput(staged) {
                    try Diagnostics.withProgress(of: session.source, enabled: !verbosity.quiet && !output.recordsGoToTerminal) { progress in
                        try session.run(writer: writer, trace: traced, progress: progress)
                    }
                }
                if let traced { try trace.finish(traced, of: session, plot: trace.plot, table: !verbosity.quiet && (trace.summary || endSummary)) }
                for warning in session.finalWarnings() { Diagnostics.warning(warning) }
            }
        }
    }
}
