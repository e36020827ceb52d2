import ArgumentParser
import SoundCompass
import SoundCompassOptions

#if canImport(Glibc)
import Glibc
#endif

extension SoundCompassCommand {
    struct Live: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Live bearings from an ALSA capture device, or from raw PCM on standard input.",
            discussion: """
                On a terminal, draws a compass that redraws in place (up to 20 times a second). \
                With --imu, follows an IMU log that another program is still writing (as tail -f \
                does) and resolves front/back from the listener's turning. \
                Piped or with --format, writes one record per analysis frame, as analyze does. \
                Ctrl-C stops and prints a summary on stderr (stream time, frames, overruns, \
                processing latency). ALSA's file plugin can replay a recording as a capture \
                device: see Docs/Live.md. With --serve, also serves the records (Server-Sent \
                Events, NDJSON) and a compass page over HTTP: see Docs/Serve.md.
                """)

        @Option(help: ArgumentHelp("ALSA capture device, any PCM name arecord -D takes (default: default). See 'soundcompass devices'.", valueName: "name"))
        var device: String?

        @Option(help: ArgumentHelp("Read interleaved raw PCM, or a sound file (recognised by its WAV, AIFF, FLAC or Ogg header), from this file or FIFO instead of a device; '-' for standard input (default: the device).", valueName: "path|-"))
        var input: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("Frames read at a time (default: the analysis hop).", valueName: "frames"))
        var period: Int?

        @Option(help: ArgumentHelp(
            "Device sample format: auto (f32le, else s32le, s24le, s24_3le, s16le) or one of those; ALSA's names (FLOAT_LE, S16_LE, …) also accepted.",
            valueName: "format"))
        var sampleFormat: String = "auto"

        @OptionGroup
        var raw: RawPCMOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this much stream time (samples captured), seconds (default: until the stream ends or Ctrl-C).", valueName: "seconds"))
        var duration: Double?

        @Flag(help: "Pace the analysis to real time: for a replayed recording, which ALSA delivers as fast as it can. With --serve, an --input that is a regular file is paced without it.")
        var realTime = false

        /// Test seam: read calls (1-based) that report an overrun instead of reading.
        @Option(name: .customLong("inject-overrun"), help: ArgumentHelp(visibility: .private))
        var injectedOverruns: [Int] = []

        /// Test seam: the read call (1-based) at which the device disappears (`-ENODEV`).
        @Option(name: .customLong("inject-unplug"), help: ArgumentHelp(visibility: .private))
        var injectedUnplug: Int?

        @OptionGroup(title: "Analysis")
        var analysis: AnalysisOptions

        @OptionGroup(title: "Front/back from an IMU")
        var imu: IMUOptions

        @OptionGroup(title: "Output")
        var output: OutputOptions

        @OptionGroup(title: "Serving over HTTP")
        var serving: ServeOptions

        /// Off by default, as in `analyze`: the model is a separate download (scripts/fetch-model)
        /// that `live` must not need, and naming sounds costs several times the localisation's
        /// CPU (Docs/Classification.md).
        @OptionGroup(title: "What the sound is")
        var classifier: ClassifierOptions

        @OptionGroup
        var verbosity: QuietOption

        func validate() throws {
            if device != nil && input != nil { throw ValidationError("--device and --input cannot be used together") }
            if let period, !(16...1 << 20).contains(period) {
                throw ValidationError("--period must be 16…1048576 frames, got \(period)")
            }
            if let duration, !(duration.isFinite && duration > 0) {
                throw ValidationError("--duration must be a positive number of seconds, got \(duration)")
            }
            if sampleFormat.lowercased() != "auto" && PCMEncoding(name: sampleFormat) == nil {
                throw ValidationError(
                    "--sample-format must be auto or one of \(PCMEncoding.preference.map(\.rawValue).joined(separator: ", ")), got \(sampleFormat)")
            }
            // `raw` has checked the ranges of --rate and --raw-channels.
            if let period, let rawChannels = raw.rawChannels, !CaptureLimits.periodFits(frames: period, channels: rawChannels) {
                throw ValidationError(
                    "--period \(period) × --raw-channels \(rawChannels) is more than the \(CaptureLimits.maximumPeriodSamples) samples a read may hold: give a smaller --period")
            }
            if input == nil && raw.rawChannels != nil { throw ValidationError("--raw-channels applies to --input only") }
            if input == nil && raw.rawFormat != nil { throw ValidationError("--raw-format applies to --input only (a device's format is --sample-format)") }
        }

        func run() throws {
            // Before the device is opened, so that an early Ctrl-C also ends cleanly.
            Interrupt.install()
            if input != nil && sampleFormat.lowercased() != "auto" {
                Diagnostics.warning("--sample-format \(sampleFormat) is ignored: it applies to a capture device; --raw-format gives the encoding of --input")
            }
            try Diagnostics.reportingFailures {
                // Ctrl-C or SIGTERM while a device or input opens ends the process at once.
                let source = try Interrupt.whileOpening { try openSource() }
                let session = try AnalysisSession(
                    source: source, settings: analysis.settings, imu: imu.followInput, warning: Diagnostics.warning)
                let server = try serving.serve == nil
                    ? nil : serving.startServing(session: session, input: inputName, paced: paced)
                defer { server?.stop() }
                try analyze(session, server: server)
            }
        }

        // MARK: - Source

        private var inputName: String { input.map { $0 == "-" ? "standard input" : $0 } ?? device ?? "default" }

        /// Whether periods are held back to real time: `--real-time`, or `--serve` with an
        /// `--input` that is a regular file (a recording, which would otherwise be served in a
        /// few milliseconds). A pipe, a FIFO or a device sets its own pace.
        private var paced: Bool {
            realTime || (serving.serve != nil && inputIsRegularFile)
        }

        /// Whether `--input` names a regular file (not standard input, a pipe, a FIFO or a device).
        private var inputIsRegularFile: Bool {
            guard let input, input != "-" else { return false }
            var info = stat()
            return stat(input, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }

        private func openSource() throws -> any CaptureSource {
            let selection = try analysis.channelSelection(for: inputName)
            // The default period is the analysis hop, so every read completes one frame.
            // The hop does not depend on the array model, so the profile is not needed here.
            let period = self.period ?? analysis.settings.configuration(sampleRate: Double(raw.sampleRate)).hopLength
            if let input { InputOptions.noteIfWaitingForWriter(input) }
            let capture: CaptureInput = if let input {
                .rawPCM(path: input, encoding: raw.rawFormat ?? .float32, channelCount: raw.rawChannels ?? selection.count)
            } else {
                .device(name: device ?? "default", encoding: PCMEncoding(name: sampleFormat), channelCount: selection.count)
            }
            let injectedFaults = Dictionary(
                injectedOverruns.map { ($0, -EPIPE) } + (injectedUnplug.map { [($0, -ENODEV)] } ?? []),
                uniquingKeysWith: { a, _ in a })
            let source = try InputOptions.explainingRawErrors {
                try capture.open(
                    sampleRate: raw.sampleRate, periodFrames: period, channels: selection.pair, swap: analysis.swap,
                    stopRequested: { Interrupt.isRequested }, injectedFaults: injectedFaults)
            }
            if source is SoundFileCaptureSource { warnIgnoredRawOptions(for: source.name) }
            return source
        }

        /// Raw-PCM options given for an input that turned out to be a sound file.
        private func warnIgnoredRawOptions(for name: String) {
            let given = CommandLine.arguments.dropFirst()
            let ignored = ["--rate", "--raw-format", "--raw-channels"].filter { option in
                given.contains { $0 == option || $0.hasPrefix(option + "=") }
            }
            guard !ignored.isEmpty else { return }
            Diagnostics.warning(
                "\(name): \(ignored.joined(separator: ", ")) ignored: the input has a sound file header, which gives its rate, channels and encoding")
        }

        // MARK: - Run

        private func analyze(_ session: AnalysisSession, server: (any LiveRecordPublisher)?) throws {
            let stdout = LineSink.standardOutput()
            let showCompass = stdout.isTerminal && (output.format == nil || output.output != nil)
            let made = output.output != nil || !showCompass ? try output.makeWriter(for: session, input: input) : nil
            let writer = made?.writer
            // The forward passes run off the analysis thread so that the bearing never waits for
            // them, except for a regular file read unpaced: nothing then waits on the bearing, and
            // the file would be read to its end before the first label came (`analyze`'s way:
            // every record labelled).
            try classifier.attach(to: session, writer: writer, asynchronous: paced || !inputIsRegularFile)
            // What is served is what stdout prints, labels and alerts included.
            if classifier.enabled { server?.servesLabels() }
            // Ctrl-C is live's normal end (the records are then complete); a failure keeps
            // what was written as partial.
            try finishingOutput(made?.staged, keepOnSignal: false) {
                try stream(session, writer: writer, showCompass: showCompass, server: server)
            }
        }

        private func stream(_ session: AnalysisSession, writer: RecordWriter?, showCompass: Bool, server: (any LiveRecordPublisher)?) throws {
            let stdout = LineSink.standardOutput()
            let compass = showCompass
                ? TerminalCompass(sink: stdout, columns: terminalColumns(), bandNames: session.bandNames) : nil
            for warning in session.newSourceWarnings() { Diagnostics.warning(warning) }
            if !verbosity.quiet {
                if let capture = session.captureSource { Diagnostics.note(capture.streamDescription) }
                Diagnostics.note("analysis: \(session.settingsDescription)")
                if paced && !realTime { Diagnostics.note("\(inputName): paced to real time (--serve with a file)") }
                if let follower = session.imuFollower {
                    Diagnostics.note(
                        "following \(follower.path) for yaw"
                            + (imu.imuOffset == nil ? " (its newest row at start is 'now')" : " (--imu-offset \(imu.imuOffset!) s)"))
                }
            }
            // The address is written even with --quiet: with port 0 it is the only way to know it.
            if let server { Diagnostics.note("serving \(server.url) (records: events, records; status: status)") }
            if compass != nil { Interrupt.restoreTerminalOnSignal() }
            defer { compass?.finish() }

            try writer?.writeHeader()
            var lastDraw: UInt64 = 0
            let analyzer = session.analyzer, source = session.source
            let capture = session.captureSource
            func status() -> TerminalCompass.Status {
                TerminalCompass.Status(
                    streamSeconds: Double(analyzer.samplesProcessed) / source.sampleRate,
                    frames: analyzer.framesAnalyzed, overruns: capture?.overrunCount ?? 0)
            }
            // Under the compass, IMU warnings wait for the end: they would scroll it away.
            let summary = try session.runLive(
                duration: duration, realTime: paced, shouldStop: { Interrupt.isRequested },
                imuWarnings: compass == nil ? { for warning in $0 { Diagnostics.warning(warning) } } : nil,
                emit: { record in
                    try writer?.write(record)
                    compass?.update(record)
                    server?.publish(record)
                },
                periodDone: {
                    server?.periodDone(overruns: capture?.overrunCount ?? 0)
                    guard let compass else { return }
                    let now = MonotonicClock.now()
                    // At most 20 drawings a second.
                    if now &- lastDraw >= 50_000_000 {
                        try compass.draw(status: status())
                        lastDraw = now
                    }
                },
                periodStarted: { server?.periodStarted($0) })
            try compass?.draw(status: status())
            compass?.finish()
            try writer?.finish()
            for warning in session.finalWarnings(stopped: summary.ending == .stopped) { Diagnostics.warning(warning) }
            if let warning = classifier.fellBehindWarning(session) { Diagnostics.warning(warning) }
            if !verbosity.quiet { Diagnostics.note(Self.describe(summary)) }
        }

        static func describe(_ summary: LiveAnalysis.Summary) -> String {
            func ms(_ seconds: Double?) -> String {
                guard let seconds else { return "–" }
                return String(Double(Int((seconds * 1e5).rounded())) / 100)
            }
            let ending = switch summary.ending {
            case .duration: "duration reached"
            case .endOfStream: "end of stream"
            case .stopped: "stopped"
            }
            let l = summary.latency
            return "\(ending): stream \(String(Double(Int((summary.streamSeconds * 1000).rounded())) / 1000)) s, "
                + "\(summary.frames) frames, \(summary.overruns) overrun\(summary.overruns == 1 ? "" : "s")"
                + (summary.suspends > 0 ? ", \(summary.suspends) suspend\(summary.suspends == 1 ? "" : "s")" : "")
                + "; processing latency p50 \(ms(l.quantile(0.5))) ms, p99 \(ms(l.quantile(0.99))) ms, "
                + "max \(ms(l.count > 0 ? l.maximum : nil)) ms over \(summary.periods) periods"
        }
    }
}
