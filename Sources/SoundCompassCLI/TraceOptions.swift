import ArgumentParser
import Foundation
import SoundCompass

/// `--plot`, `--truth` and the summary options, shared by `trace` and `analyze`.
struct TraceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Write a trace plot (SVG) of the analysis to this file.", valueName: "file.svg"))
    var plot: String?

    @Option(help: ArgumentHelp("Ground truth, a CSV with time,azimuth columns (as synth writes): drawn on the plot with the error, and added to the summary.", valueName: "file"))
    var truth: String?

    @Option(help: ArgumentHelp("Write the summary of the active segments to this file as JSON.", valueName: "file"))
    var summaryJSON: String?

    @Flag(help: "Print a summary of the active segments on stderr (trace always does).")
    var summary = false

    /// True when anything is asked of the trace.
    var isRequested: Bool { plot != nil || truth != nil || summaryJSON != nil || summary }

    /// A session for the analysis of `source`, or nil when nothing is asked and `always` is false.
    /// - Parameters:
    ///   - plot: where the plot goes (`--plot`, or the command's default).
    ///   - defaultTruth: the truth when `--truth` is not given (the demo scene's).
    func makeSession(
        for source: some StereoSource, bandNames: [String], plot: String?, defaultTruth: TruthTrack? = nil,
        always: Bool = false
    ) throws -> TraceSession? {
        guard always || isRequested else { return nil }
        let track = try truth.map { try TruthTrack(path: $0) } ?? defaultTruth
        return TraceSession(name: source.name, truth: track, bandNames: bandNames, plotting: plot != nil)
    }

    /// Ends a traced analysis: the summary table (when `table`), the summary JSON and the plot.
    func finish(
        _ session: TraceSession, plot: String?, config: AnalysisConfiguration, settings: String,
        duration: Double?, table: Bool
    ) throws {
        let reports = session.finish()
        if table {
            Diagnostics.note("\(session.name): \(reports.count) active segment\(reports.count == 1 ? "" : "s")")
            for line in SegmentReport.table(reports, name: session.name) { Diagnostics.write("  " + line + "\n") }
        }
        if let summaryJSON {
            try createFile(summaryJSON).write(Array(SegmentReport.json(reports, name: session.name).utf8))
        }
        if let plot {
            let options = TracePlot.Options(
                title: session.name, settings: settings, truth: session.truth,
                maximumITD: config.array.maximumDelay * 1e6, gateDBFS: config.silenceGateDBFS,
                bandLabels: config.usableBands.map { "\($0.name) \(Int($0.low))–\(Int($0.high)) Hz" },
                duration: duration)
            let (bytes, seconds) = try session.writePlot(to: plot, options: options)
            if table {
                Diagnostics.note("wrote \(plot) (\(formatFixedCLI(Double(bytes) / 1e6, 2)) MB, rendered in \(formatFixedCLI(seconds, 2)) s)")
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

/// Follows an analysis record by record for a trace: the plot's data, the active segments
/// and the errors against a truth; then writes the plot and the summaries.
final class TraceSession {
    let name: String
    let truth: TruthTrack?
    private let recorder: TraceRecorder?
    private var summarizer = SegmentSummarizer()
    /// Active frames with a truth, in time order: signed error and true azimuth.
    private var compared: [(time: Double, error: Double, truth: Double)] = []

    /// - Parameters:
    ///   - name: the recording, for titles and messages.
    ///   - plotting: whether to keep every frame for a plot.
    init(name: String, truth: TruthTrack?, bandNames: [String], plotting: Bool) {
        self.name = name
        self.truth = truth
        recorder = plotting ? TraceRecorder(bandNames: bandNames) : nil
    }

    func add(_ record: AnalysisRecord) {
        recorder?.add(record)
        summarizer.add(record)
        if record.active, let truth, let value = truth.azimuth(at: record.time) {
            compared.append((record.time, TruthTrack.error(
                azimuth: record.azimuth, truth: value, hemisphereKnown: record.hemisphere != .unknown), value))
        }
    }

    /// Ends the analysis: the segments, each with its truth and error when known.
    func finish() -> [SegmentReport] {
        // Segments and frames are both in time order: one pass over the frames.
        var next = 0
        return summarizer.finish().map { segment in
            while next < compared.count && compared[next].time < segment.start { next += 1 }
            var end = next
            while end < compared.count && compared[end].time <= segment.end { end += 1 }
            let inside = compared[next..<end]
            next = end
            return SegmentReport(
                segment: segment, truthAzimuth: median(inside.map(\.truth)), medianError: median(inside.map { abs($0.error) }))
        }
    }

    /// Writes the plot to `path`; returns the bytes written and the seconds rendering took.
    func writePlot(to path: String, options: TracePlot.Options) throws -> (bytes: Int, seconds: Double) {
        guard let recorder else { return (0, 0) }
        let started = monotonicSeconds()
        let svg = TracePlot.render(recorder, options: options)
        let seconds = monotonicSeconds() - started
        try createFile(path).write(svg)
        return (svg.count, seconds)
    }

    private func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}

/// One segment of the summary, with the truth when one was given.
struct SegmentReport {
    var segment: ActivitySegment
    /// Median true azimuth over the segment's active frames, degrees.
    var truthAzimuth: Double?
    /// Median absolute error of the tracked azimuth, degrees.
    var medianError: Double?

    /// The summary table for stderr.
    static func table(_ reports: [SegmentReport], name: String) -> [String] {
        guard !reports.isEmpty else { return ["\(name): no active segments"] }
        let withTruth = reports.contains { $0.truthAzimuth != nil }
        var header = ["#", "start s", "end s", "azimuth", "spread", "confidence", "band"]
        if withTruth { header += ["truth", "error"] }
        var rows = [header]
        for (i, r) in reports.enumerated() {
            let s = r.segment
            var row = [
                "\(i + 1)", formatFixedCLI(s.start, 2), formatFixedCLI(s.end, 2), signedDegrees(s.medianAzimuth, 1),
                "\(formatFixedCLI(s.spread, 1))°", formatFixedCLI(s.meanConfidence, 2), s.dominantBand ?? "—",
            ]
            if withTruth {
                row += [r.truthAzimuth.map { signedDegrees($0, 1) } ?? "—", r.medianError.map { "\(formatFixedCLI($0, 1))°" } ?? "—"]
            }
            rows.append(row)
        }
        return Table.render(rows)
    }

    /// The summary as JSON text: one segment per line.
    static func json(_ reports: [SegmentReport], name: String) -> String {
        func number(_ x: Double, _ places: Int) -> String { formatFixedCLI(x, places) }
        func string(_ s: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
            let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
            return String(array.dropFirst().dropLast())
        }
        let lines = reports.map { r -> String in
            let s = r.segment
            var fields = [
                "\"start\": \(number(s.start, 3))", "\"end\": \(number(s.end, 3))", "\"frames\": \(s.frames)",
                "\"median_azimuth\": \(number(s.medianAzimuth, 2))", "\"spread\": \(number(s.spread, 2))",
                "\"mean_confidence\": \(number(s.meanConfidence, 3))", "\"confident_frames\": \(s.confidentFrames)",
                "\"dominant_band\": \(s.dominantBand.map(string) ?? "null")",
            ]
            if let t = r.truthAzimuth { fields.append("\"truth_azimuth\": \(number(t, 2))") }
            if let e = r.medianError { fields.append("\"median_error\": \(number(e, 2))") }
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        return "{\n  \"file\": \(string(name)),\n  \"segments\": [\n" + lines.joined(separator: ",\n")
            + (lines.isEmpty ? "" : "\n") + "  ]\n}\n"
    }
}

/// `value` in degrees with a sign: "+12.5°", "−40.0°", "0.0°".
func signedDegrees(_ value: Double, _ places: Int) -> String {
    let text = formatFixedCLI(abs(value), places)
    if Double(text) == 0 { return text + "°" }
    return (value > 0 ? "+" : "−") + text + "°"
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
