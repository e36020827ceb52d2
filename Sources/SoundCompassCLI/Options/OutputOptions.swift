import ArgumentParser
import SoundCompass

#if canImport(Glibc)
import Glibc
#endif

extension TextView: ExpressibleByArgument {}

/// Where and how records are written, and which.
struct OutputOptions: ParsableArguments {
    @Option(help: "Record format (default: text on a terminal, jsonl otherwise).")
    var format: RecordFormat?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write records to this file (default: stdout).", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("What a text record shows: bearing (time, bearing, a left/right bar, side, confidence; more as the width allows) or bands (each band's bearing).", valueName: "view"))
    var view: TextView = .bearing

    @Flag(help: "Write only records of active frames (quiet frames are left out).")
    var activeOnly = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Write only records with at least this confidence, 0…1.", valueName: "C"))
    var minConfidence: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Write one record per interval: the last of each (100ms, 0.5s, or seconds: 2).", valueName: "duration"))
    var every: String?

    @Option(help: ArgumentHelp("JSONL and CSV fields to write, comma-separated JSON keys, e.g. time,azimuth,confidence (bands for the bands).", valueName: "names"))
    var fields: String?

    /// True when records go to standard output and it is a terminal.
    var recordsGoToTerminal: Bool { output == nil && isatty(1) == 1 }

    /// The format records are written in.
    var resolvedFormat: RecordFormat { format ?? (recordsGoToTerminal ? .text : .jsonl) }

    /// A writer for `session`'s records. With `--output`, they go to a temporary file beside
    /// it (see ``StagedOutput``), which the caller commits when the run succeeds and keeps as
    /// partial when it fails (``finishingOutput(_:_:)``).
    /// - Parameter input: the input file, which `--output` must not overwrite.
    func makeWriter(for session: AnalysisSession, input: String?) throws -> (writer: RecordWriter, staged: StagedOutput?) {
        if let output, let input, LineSink.isSameFile(output, input) {
            throw CLIFailure("\(output): --output names the input file; refusing to overwrite it", status: .usage)
        }
        let chosen = resolvedFormat
        let selection = try self.selection()
        let fieldSet = try self.fieldSet(for: chosen)
        if view != .bearing && chosen != .text {
            Diagnostics.warning("--view applies to text records; ignored for \(chosen.rawValue)")
        }
        let staged = try output.map { (path) throws(CLIFailure) in
            do { return try StagedOutput(path: path) } catch { throw CLIFailure(error) }
        }
        let sink = staged?.writingSink ?? .standardOutput()
        let writer = RecordWriter(
            format: chosen, sink: sink, bandNames: session.bandNames, orientation: session.hasOrientation,
            sources: session.tracksSources, fields: fieldSet, columns: terminalColumns(), view: view, selection: selection)
        return (writer, staged)
    }

    /// The selection `--active-only`, `--min-confidence` and `--every` ask for.
    func selection() throws(CLIFailure) -> RecordSelection {
        if let minConfidence, !(minConfidence.isFinite && (0...1).contains(minConfidence)) {
            throw CLIFailure("--min-confidence must be 0…1, got \(formatTrimmed(minConfidence, 3))", status: .usage)
        }
        var interval: Double?
        if let every {
            guard let seconds = Self.seconds(every) else {
                throw CLIFailure(
                    "--every \(every): not a duration; give milliseconds (100ms) or seconds (0.5s, 2)", status: .usage)
            }
            interval = seconds
        }
        return RecordSelection(activeOnly: activeOnly, minimumConfidence: minConfidence ?? 0, interval: interval)
    }

    /// The fields `--fields` names (`nil`: every field).
    func fieldSet(for format: RecordFormat) throws(CLIFailure) -> RecordFields? {
        guard let fields else { return nil }
        let set: RecordFields
        do { set = try RecordFields(parsing: fields) } catch { throw CLIFailure("--fields: \(error.description)", status: .usage) }
        if format == .text {
            Diagnostics.warning("--fields applies to jsonl and csv records; text records show their own columns (see --view)")
        }
        return set
    }

    /// A positive duration in seconds: "100ms", "0.5s", "2".
    static func seconds(_ text: String) -> Double? {
        let lower = text.lowercased().filter { $0 != " " }
        let value: Double?
        if lower.hasSuffix("ms") {
            value = Double(lower.dropLast(2)).map { $0 / 1000 }
        } else if lower.hasSuffix("s") {
            value = Double(lower.dropLast())
        } else {
            value = Double(lower)
        }
        guard let value, value.isFinite, value > 0 else { return nil }
        return value
    }
}

/// Runs `body`, which writes to `staged` (when there is one), and then renames it onto its
/// path. Should `body` fail, the path is left as it was and what was written is kept as
/// `PATH.partial`, which the error line then names; with `keepOnSignal`, a signal that ends the
/// process keeps it the same way (``PartialOutputOnSignal``); without it (a command whose first
/// signal stops it cleanly), the second signal, which ends the process, does.
func finishingOutput<T>(_ staged: StagedOutput?, keepOnSignal: Bool = true, _ body: () throws -> T) throws -> T {
    guard let staged else { return try body() }
    if keepOnSignal { PartialOutputOnSignal.arm(staged) } else { PartialOutputOnSignal.armForSecondSignal(staged) }
    defer { if keepOnSignal { PartialOutputOnSignal.disarm() } else { PartialOutputOnSignal.disarmSecondSignal() } }
    let result: T
    do {
        result = try body()
    } catch {
        var failure = CLIFailure(error)
        if let kept = staged.keepPartial(), failure.status != .success {
            failure.message += " (what was written before it is in \(kept); \(staged.path) is unchanged)"
        }
        throw failure
    }
    do { try staged.commit() } catch { throw CLIFailure(error) }
    return result
}
