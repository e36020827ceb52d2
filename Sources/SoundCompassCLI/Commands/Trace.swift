import ArgumentParser
import SoundCompass
import SoundCompassOptions
import TestSignals

extension SoundCompassCommand {
    struct Trace: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plot what the engine heard, frame by frame, and summarise the active segments.",
            discussion: """
                Analyzes FILE (default: the built-in demo scene, with its truth) and writes an SVG \
                plot (--plot; default NAME.trace.svg): the tracked azimuth with each frame's own \
                estimate shaded by confidence, activity, one line per band, ILD, ITD and level \
                panels, yaw and front/back with --imu, and the truth and the error with --truth. \
                Prints a table of the active segments on stderr (start, end, median azimuth, spread, \
                mean confidence, dominant band); --summary-json writes it as JSON. No records are \
                written: use analyze --plot for records and a plot. See Docs/Calibration.md.
                """)

        @Argument(help: "Sound file to trace, or - for standard input (default: the built-in demo scene).")
        var file: String?

        @OptionGroup(title: "Input")
        var input: InputOptions

        @OptionGroup(title: "Trace")
        var trace: TraceOptions

        @OptionGroup(title: "Analysis")
        var analysis: AnalysisOptions

        @OptionGroup(title: "What the sound is")
        var classifier: ClassifierOptions

        @OptionGroup(title: "Front/back from an IMU")
        var imu: IMUOptions

        @OptionGroup
        var verbosity: QuietOption

        func run() throws {
            try Diagnostics.reportingFailures {
                let plot = trace.plot ?? SoundCompassCommand.Synth.defaultPath(for: file.map { $0 == "-" ? "stdin" : $0 } ?? "demo", suffix: ".trace.svg")
                try trace.checkOutputs(inputs: [file, imu.imu])
                if let file, plot == file || LineSink.isSameFile(plot, file) {
                    throw CLIFailure("\(plot): the plot would overwrite the input", status: .usage)
                }
                let session = try input.openSession(file, analysis: analysis, imu: imu.logInput)
                try classifier.attach(to: session, writer: nil)
                let demoTruth = file == nil && trace.truth == nil
                    ? try TruthTrack(text: Scene.demo().truthCSV(), name: "demo truth") : nil
                guard let traced = try trace.makeTrace(for: session, plotting: true, defaultTruth: demoTruth, always: true)
                else { return }
                if !verbosity.quiet { Diagnostics.describe(session) }
                try Diagnostics.withProgress(of: session.source, enabled: !verbosity.quiet) { progress in
                    try session.run(trace: traced, progress: progress)
                }
                for warning in session.finalWarnings() { Diagnostics.warning(warning) }
                try trace.finish(traced, of: session, plot: plot, table: !verbosity.quiet)
            }
        }
    }
}
