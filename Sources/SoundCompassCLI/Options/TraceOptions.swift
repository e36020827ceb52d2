import ArgumentParser
import Foundation
import SoundCompass

/// `--plot`, `--truth` and the summary options, shared by `trace` and `analyze`.
struct TraceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Write a trace plot (SVG) of the analysis to this file.", valueName: "file.svg"))
    var plot: String?

    @Option(help: ArgumentHelp("Ground truth, a CSV with time,azimuth columns (as synth writes): drawn on the plot with the error, and added to the summary. A per-source truth (time,id,azimuth,active: synth's NAME.truth.sources.csv, also read next to a NAME.truth.csv) scores each tracked source in the summary.", valueName: "file"))
    var truth: String?

    @Option(help: ArgumentHelp("Write the summary of the active segments to this file as JSON.", valueName: "file"))
    var summaryJSON: String?

    @Flag(help: "Print a summary of the active segments on stderr (trace always does).")
    var summary = false

    /// A warning for options that nothing uses: `--truth` feeds only the plot and the summaries.
    /// - Parameter summaryShown: the summary table is printed anyway (analyze's text records
    ///   on a terminal end with it).
    func ignoredOptionsWarning(summaryShown: Bool) -> String? {
        guard let truth, plot == nil, summaryJSON == nil, !summary, !summaryShown else { return nil }
        return "--truth \(truth) is ignored: it is drawn by --plot and scored by --summary and --summary-json"
    }

    /// True when anything is asked of the trace.
    var isRequested: Bool { plot != nil || truth != nil || summaryJSON != nil || summary }

    /// A trace of `session`'s records, or nil when nothing is asked and `always` is false.
    /// - Parameters:
    ///   - plotting: whether to keep the frames for a plot (default: when `--plot` is given).
    ///   - defaultTruth: the truth when `--truth` is not given (the demo scene's).
    func makeTrace(
        for session: AnalysisSession, plotting: Bool? = nil, defaultTruth: TruthTrack? = nil, always: Bool = false
    ) throws -> TraceSession? {
        guard always || isRequested else { return nil }
        let (track, perSource) = try truth.map { try Self.readTruth($0) } ?? (defaultTruth, nil)
        let trace = session.makeTrace(truth: track, plotting: plotting ?? (plot != nil))
        trace.sourceScoring = perSource.map { SourceScoring(truth: $0) }
        return trace
    }

    /// Ends a traced analysis: the summary table (when `table`), the summary JSON and the plot.
    func finish(_ trace: TraceSession, of session: AnalysisSession, plot: String?, table: Bool) throws {
        let reports = trace.finish()
        if table {
            Diagnostics.note("\(trace.name): \(reports.count) active segment\(reports.count == 1 ? "" : "s")")
            for line in SegmentReport.table(reports, name: trace.name) { Diagnostics.write("  " + Diagnostics.escaped(line) + "\n") }
        }
        if let scoring = trace.sourceScoring, table || summary {
            Diagnostics.note("\(trace.name): sources against \(scoring.truth.name)")
            for line in scoring.summaryLines { Diagnostics.write("  " + Diagnostics.escaped(line) + "\n") }
        }
        if let summaryJSON {
            try writeWholeFile(summaryJSON, Array(SegmentReport.json(reports, name: trace.name).utf8))
        }
        if let plot, let (svg, seconds) = trace.renderPlot(options: session.plotOptions(for: trace)) {
            try writeWholeFile(plot, svg)
            if table {
                Diagnostics.note("wrote \(plot) (\(formatFixedCLI(Double(svg.count) / 1e6, 2)) MB, rendered in \(formatFixedCLI(seconds, 2)) s)")
            }
        }
    }

    /// Refuses an output that would overwrite one of `inputs`, or two outputs that are one file.
    func checkOutputs(inputs: [String?]) throws {
        let outputs = [("--plot", plot), ("--summary-json", summaryJSON)].compactMap { name, path in path.map { (name, $0) } }
        for (name, path) in outputs {
            for case let input? in inputs + [truth] where path == input || LineSink.isSameFile(path, input) {
                throw CLIFailure("\(path): \(name) names an input file; refusing to overwrite it", status: .usage)
            }
        }
        if outputs.count == 2, outputs[0].1 == outputs[1].1 {
            throw CLIFailure("\(outputs[0].1): --plot and --summary-json name the same file", status: .usage)
        }
    }
}
