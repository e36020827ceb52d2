import ArgumentParser
import Foundation
import SoundCompass
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension SoundCompassCommand.Analyze {
    /// `analyze FILE… --output-dir DIR [--jobs N]`: each file's records to a file of its own in
    /// DIR, N files at once. A file that fails is reported (one line) and the others go on; the
    /// exit status is the first failing file's, in command-line order.
    func runFiles() throws {
        var failed: ExitStatus?
        try Diagnostics.reportingFailures {
            let batch = try FileBatch(checking: self)
            let asked = min(self.batch.jobs.value, files.count)
            let jobs = JobCount.fitting(asked)
            if jobs.value < asked {
                Diagnostics.warning(
                    "--jobs \(asked): only \(jobs.descriptorLimit) file descriptors are allowed (ulimit -n), enough for \(jobs.value) file\(jobs.value == 1 ? "" : "s") at once; using \(jobs.value)")
            }
            failed = batch.run(jobs: jobs.value)
        }
        if let failed { throw ExitCode(failed.rawValue) }
    }

    /// The options one recording's side files need, given with several files.
    fileprivate var singleRecordingOptions: [String] {
        [("--imu", imu.imu), ("--truth", trace.truth), ("--plot", trace.plot), ("--summary-json", trace.summaryJSON)]
            .compactMap { name, value in value.map { _ in name } }
    }
}

/// The files of one `analyze --output-dir` run, checked, and the workers that analyse them.
private final class FileBatch: Sendable {
    /// The parsed command and the record options it names: read, never written, by every
    /// worker (each opens its own session and writer).
    private struct Command: @unchecked Sendable {
        let analyze: SoundCompassCommand.Analyze
        let fields: RecordFields?
        let selection: RecordSelection
    }

    private let command: Command
    private let files: [String]
    private let outputs: [String]
    private let format: RecordFormat
    private let columns: Int
    private let reporter: FileBatchReporter
    private let nextFile = Atomic<Int>(0)
    private let results = Mutex<[(status: ExitStatus, seconds: Double)]>([])

    /// Checks the command line (usage errors, exit 64), creates the output directory (73), and
    /// says once what the output options warn about.
    init(checking analyze: SoundCompassCommand.Analyze) throws {
        let files = analyze.files
        let format = analyze.output.format ?? .jsonl
        let ext = FileBatchOptions.fileExtension(for: format)
        guard !files.isEmpty, let directory = analyze.batch.outputDir else {
            throw CLIFailure(
                files.isEmpty
                    ? "--output-dir needs FILE arguments (the built-in demo scene is one run: use -o FILE for its records)"
                    : "\(files.count) files given: add --output-dir DIR to write each file's records to DIR/NAME.\(ext), or analyse one file at a time",
                status: .usage)
        }
        if files.contains("-") {
            throw CLIFailure(
                "-: standard input cannot be analysed with other files or --output-dir; give - alone (and -o FILE for its records)",
                status: .usage)
        }
        if analyze.output.output != nil {
            throw CLIFailure(
                "--output names one file; with --output-dir each file's records go to \(directory)/NAME.\(ext): leave out --output",
                status: .usage)
        }
        let single = analyze.singleRecordingOptions
        if files.count > 1 && !single.isEmpty {
            let names = single.count == 1 ? single[0] : single.dropLast().joined(separator: ", ") + " and " + single.last!
            throw CLIFailure(
                "\(names) belong\(single.count == 1 ? "s" : "") to one recording; with several files, analyse each file on its own to use \(single.count == 1 ? "it" : "them")",
                status: .usage)
        }
        try analyze.trace.checkOutputs(inputs: files + [analyze.imu.imu])
        let outputs = try FileBatchOptions.outputPaths(for: files, in: directory, format: format)
        if let warning = analyze.trace.ignoredOptionsWarning(summaryShown: false) { Diagnostics.warning(warning) }
        let selection = try analyze.output.selection()
        let fields = try analyze.output.fieldSet(for: format)
        if analyze.output.view != .bearing && format != .text {
            Diagnostics.warning("--view applies to text records; ignored for \(format.rawValue)")
        }
        try Self.makeDirectory(directory)
        command = Command(analyze: analyze, fields: fields, selection: selection)
        self.files = files
        self.outputs = outputs
        self.format = format
        columns = terminalColumns()
        let showBar = !analyze.verbosity.quiet && Diagnostics.isTerminal
        reporter = FileBatchReporter(
            fileCount: files.count, totalSeconds: showBar ? Self.totalSeconds(of: files, input: analyze.input) : nil,
            enabled: showBar)
        results.withLock { $0 = Array(repeating: (.success, 0), count: files.count) }
    }

    /// Analyses every file with `jobs` workers (this thread and `jobs − 1` more), each taking
    /// the next file in command-line order.
    /// - Returns: the first failing file's exit status, in command-line order; `nil` if none failed.
    func run(jobs: Int) -> ExitStatus? {
        let started = MonotonicClock.now()
        let group = DispatchGroup()
        for _ in 1..<max(1, jobs) {
            group.enter()
            let thread = Thread { [self] in
                work()
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        work()
        group.wait()
        reporter.finish()
        let wall = Double(MonotonicClock.now() - started) * 1e-9
        let results = self.results.withLock { $0 }
        let failures = results.filter { $0.status != .success }
        if !command.analyze.verbosity.quiet {
            let audio = results.reduce(0) { $0 + $1.seconds }
            Diagnostics.note(
                "\(files.count) files\(failures.isEmpty ? "" : " (\(failures.count) failed)"): \(formatFixedCLI(audio, 1)) s of audio in \(formatFixedCLI(wall, 2)) s with \(jobs) job\(jobs == 1 ? "" : "s"), \(formatFixedCLI(Double(files.count) / max(wall, 1e-9), 1)) files/s")
        }
        return failures.first?.status
    }

    /// One worker: takes files until none is left.
    private func work() {
        while true {
            let index = nextFile.add(1, ordering: .relaxed).oldValue
            guard index < files.count else { return }
            let capture = DiagnosticsCapture()
            let result = Diagnostics.$capture.withValue(capture) { analyze(index) }
            results.withLock { $0[index] = result }
            reporter.finished(file: index, diagnostics: capture.contents)
        }
    }

    /// Analyses file `index` into a temporary file beside its output, renamed to the output
    /// when the analysis succeeds and removed when it fails. Diagnostics go to ``Diagnostics``
    /// (captured by the caller).
    private func analyze(_ index: Int) -> (status: ExitStatus, seconds: Double) {
        let analyze = command.analyze
        let file = files[index], output = outputs[index]
        var partial: String?
        do {
            let session = try analyze.input.openSession(file, analysis: analyze.analysis, imu: analyze.imu.logInput)
            let traced = try analyze.trace.makeTrace(for: session)
            let temporary = try WholeFileWriter.temporary(besides: output)
            partial = temporary.path
            let writer = RecordWriter(
                format: format, sink: temporary.sink, bandNames: session.bandNames,
                orientation: session.hasOrientation, sources: session.tracksSources, fields: command.fields, columns: columns, view: analyze.output.view,
                selection: command.selection)
            try analyze.classifier.attach(to: session, writer: writer)
            let rate = session.source.sampleRate
            try session.run(writer: writer, trace: traced) { [reporter] frames in
                reporter.progress(file: index, seconds: Double(frames) / rate)
            }
            if let traced {
                try analyze.trace.finish(traced, of: session, plot: analyze.trace.plot, table: !analyze.verbosity.quiet && analyze.trace.summary)
            }
            for warning in session.finalWarnings() { Diagnostics.warning(warning) }
            let frames = session.analyzer.framesAnalyzed
            try temporary.sink.close()
            partial = nil
            try WholeFileWriter.commit(temporary.path, to: output)
            if !analyze.verbosity.quiet {
                Diagnostics.note(
                    "\(file): \(formatFixedCLI(session.analyzedDuration, 1)) s, \(frames) frame\(frames == 1 ? "" : "s") → \(output)")
            }
            return (.success, session.analyzedDuration)
        } catch {
            if let partial { unlink(partial) }
            let failure = CLIFailure(error)
            Diagnostics.error(failure.message.hasPrefix(file + ":") ? failure.message : "\(file): \(failure.message)")
            return (failure.status, 0)
        }
    }

    /// Creates `path` and its missing parents; 73 when it cannot, or names a non-directory.
    private static func makeDirectory(_ path: String) throws(CLIFailure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                throw CLIFailure("\(path): cannot create the directory: \(String(cString: strerror(errno)))", status: .cannotCreate)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIFailure("\(path): not a directory; give --output-dir a directory", status: .cannotCreate)
        }
    }

    /// The audio in `files`, seconds, from their headers (regular files only: a FIFO must not
    /// be read before its turn), within `--start`/`--end`; `nil` when a length is unknown.
    private static func totalSeconds(of files: [String], input: InputOptions) -> Double? {
        var total = 0.0
        for file in files {
            var info = stat()
            guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let opened = input.rawLayout.map { AnalysisInput.raw(path: file, format: $0) } ?? .file(path: file)
            guard let source = try? opened.open(), let frames = source.expectedFrameCount else { continue }
            let length = Double(frames) / source.sampleRate
            let start = input.start?.seconds ?? 0
            total += max(0, min(input.end?.seconds ?? length, length) - start)
        }
        return total
    }
}
