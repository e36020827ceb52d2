import SoundCompassEngine

/// One analysis of one source, assembled: the source, the calibration profile, the
/// configuration for the source's sample rate, the IMU log or follower and the analyzer.
/// `analyze`, `trace`, `calibrate` and `live` are each a few calls into it:
///
/// ```swift
/// let session = try AnalysisSession(input: .file(path: "take1.wav"), settings: AnalysisSettings())
/// let writer = session.makeRecordWriter(format: .jsonl, sink: .standardOutput())
/// try session.run(writer: writer)
/// ```
///
/// Opening reads, in this order: the source, the IMU log, the profile; then checks that the
/// settings suit the source's sample rate.
public final class AnalysisSession {
    /// The audio analysed.
    public let source: any StereoSource
    /// The settings the session was opened with.
    public let settings: AnalysisSettings
    /// The calibration profile read from ``AnalysisSettings/profilePath``, if any.
    public let profile: ArrayProfile?
    /// The analysis settings for the source's sample rate (checked).
    public let configuration: AnalysisConfiguration
    /// The analyzer, fed by ``run(writer:trace:progress:)`` or ``runLive(duration:realTime:shouldStop:imuWarnings:emit:periodDone:periodStarted:)``.
    public let analyzer: StreamingAnalyzer
    /// The whole IMU log, with ``IMUInput/log(path:format:)``.
    public let imuLog: IMULog?
    /// The followed IMU log, with ``IMUInput/follow(path:format:offset:)``.
    package let imuFollower: IMUFollower?

    /// Labels every record (the sound classifier, `--classify`); `nil`: records as the
    /// analyzer makes them.
    public var labeler: (any RecordLabeler)?

    private let input: AnalysisInput?
    private let channels: (left: Int, right: Int)?
    private let swap: Bool
    private var reportedSourceWarnings = 0

    /// Opens a recording and assembles its analysis.
    /// - Parameters:
    ///   - input: the file or samples.
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    ///   - settings: the analysis settings.
    ///   - imu: the listener's yaw, for front/back.
    ///   - warning: called with each warning found while opening (skipped IMU rows, a profile
    ///     fitted at another sample rate), in order.
    /// - Throws: ``SoundFileError``, ``IMUError``, ``ProfileError``, ``SOFAError``, or
    ///   ``AnalysisSessionError/unsuitableSettings(source:problem:)``.
    public convenience init(
        input: AnalysisInput, channels: (left: Int, right: Int)? = nil, swap: Bool = false,
        settings: AnalysisSettings, imu: IMUInput? = nil, warning: (String) -> Void = { _ in }
    ) throws {
        let source = try Self.excerpt(of: try input.open(channels: channels, swap: swap), settings: settings)
        try self.init(
            source: source, input: input, channels: channels, swap: swap, settings: settings, imu: imu,
            warning: warning)
    }

    /// Assembles the analysis of a source already open (a capture stream, a custom source).
    /// - Parameters: see ``init(input:channels:swap:settings:imu:warning:)``.
    public convenience init(
        source: any StereoSource, settings: AnalysisSettings, imu: IMUInput? = nil,
        warning: (String) -> Void = { _ in }
    ) throws {
        try self.init(source: source, input: nil, channels: nil, swap: false, settings: settings, imu: imu, warning: warning)
    }

    private init(
        source: any StereoSource, input: AnalysisInput?, channels: (left: Int, right: Int)?, swap: Bool,
        settings: AnalysisSettings, imu: IMUInput?, warning: (String) -> Void
    ) throws {
        self.source = source
        self.input = input
        self.channels = channels
        self.swap = swap
        self.settings = settings
        var log: IMULog?
        var follower: IMUFollower?
        switch imu {
        case .log(let path, let format):
            let whole = try IMULog(path: path, format: format)
            for line in whole.warnings { warning(line) }
            if let frames = source.expectedFrameCount {
                try whole.checkOverlap(audioDuration: Double(frames) / source.sampleRate, offset: format.offsetSeconds)
            }
            log = whole
        case .follow(let path, let format, let offset):
            follower = try IMUFollower(path: path, format: format, offset: offset)
        case nil:
            break
        }
        imuLog = log
        imuFollower = follower
        let loaded = try settings.profilePath.map { try ArrayProfile.load(path: $0) }
        profile = loaded
        var config = settings.configuration(sampleRate: source.sampleRate, array: loaded?.model)
        if let path = settings.profilePath, let loaded, loaded.sampleRate != source.sampleRate {
            warning(
                "\(path): fitted at \(formatHertz(loaded.sampleRate)), but \(source.name) is \(formatHertz(source.sampleRate)); a different interface setting may delay the channels differently")
        }
        do { try config.validate() } catch {
            throw AnalysisSessionError.unsuitableSettings(source: source.name, problem: error)
        }
        if let hrtf = settings.hrtfPath {
            guard config.array.kind == .binaural else {
                throw SOFAError.unusable(
                    path: hrtf, problem: "a measured head needs the binaural array model, but the profile sets \(config.array.kind.rawValue)")
            }
            // The head's own tables, measured by the engine for this configuration.
            config.array.measuredHead = try SOFAFile.measuredHead(path: hrtf, configuration: config)
        }
        configuration = config
        // The default bands above 0.45·fs are left out quietly (documented); bands the user
        // named are not dropped without a word.
        if settings.bands != BandSpec.defaults {
            let kept = config.usableBands
            for band in config.bands where !kept.contains(band) {
                warning(
                    "\(source.name): band \(band.description) reaches above 0.45 × \(formatHertz(source.sampleRate)) = \(formatHertz(0.45 * source.sampleRate)); left out")
            }
        }
        analyzer = try StreamingAnalyzer(configuration: config, orientation: log?.timeline ?? follower?.timeline)
        analyzer.timeOrigin = settings.startSeconds
    }

    /// `source`, or the part of it ``AnalysisSettings/startSeconds`` and
    /// ``AnalysisSettings/endSeconds`` name.
    private static func excerpt(of source: any StereoSource, settings: AnalysisSettings) throws -> any StereoSource {
        guard settings.startSeconds > 0 || settings.endSeconds != nil else { return source }
        return try ExcerptSource(source, startSeconds: settings.startSeconds, endSeconds: settings.endSeconds)
    }

    /// Samples analysed before the share of NaN/Inf ones is judged, seconds.
    static let nonFiniteGraceSeconds = 0.5

    /// Throws when more than 1 % of the samples so far (after the first half second) were NaN/Inf.
    package func checkNonFinite() throws {
        let count = analyzer.nonFiniteSampleCount
        guard count > 0 else { return }
        let frames = analyzer.samplesProcessed
        guard Double(frames) >= Self.nonFiniteGraceSeconds * source.sampleRate, count * 100 > 2 * frames else { return }
        throw SoundFileError.mostlyNonFinite(
            path: source.name, count: count, total: 2 * frames, seconds: Double(frames) / source.sampleRate)
    }

    // MARK: - Outputs

    /// The source as a live stream, when it is one.
    public var captureSource: (any CaptureSource)? { source as? any CaptureSource }

    /// The names of the bands every record carries, in order.
    public var bandNames: [String] { configuration.usableBands.map(\.name) }

    /// True when records carry a yaw (an IMU log or follower is given).
    public var hasOrientation: Bool { imuLog != nil || imuFollower != nil }

    /// True when records carry tracked sources (``AnalysisConfiguration/maxSources`` > 0).
    public var tracksSources: Bool { configuration.maxSources > 0 }

    /// A writer for this session's records (its bands, yaw columns with an IMU, the sources
    /// when tracked).
    public func makeRecordWriter(format: RecordFormat, sink: LineSink) -> RecordWriter {
        RecordWriter(format: format, sink: sink, bandNames: bandNames, orientation: hasOrientation, sources: tracksSources)
    }

    /// A trace of this session's records: segments, errors against `truth`, and the frames a
    /// plot needs when `plotting`.
    package func makeTrace(truth: TruthTrack?, plotting: Bool) -> TraceSession {
        TraceSession(name: source.name, truth: truth, bandNames: bandNames, plotting: plotting)
    }

    /// Stream time analysed so far, seconds.
    public var analyzedDuration: Double { Double(analyzer.samplesProcessed) / source.sampleRate }

    /// The settings in one line: "frame 2048 (43 ms), hop 1024 (21 ms), spaced 0.15 m", with the
    /// profile's path when one is used.
    package var settingsDescription: String {
        let ms = { (n: Int) in String(Int((Double(n) / self.configuration.sampleRate * 1000).rounded())) }
        return "frame \(configuration.frameLength) (\(ms(configuration.frameLength)) ms), hop \(configuration.hopLength) (\(ms(configuration.hopLength)) ms), "
            + Self.describe(configuration.array) + (settings.profilePath.map { " (profile \($0))" } ?? "")
    }

    /// The settings line under a trace plot's title: rate, framing, array, and the IMU log.
    package var plotSettings: String {
        let imuPath = imuLog?.path ?? imuFollower?.path
        return "\(Int(configuration.sampleRate)) Hz; \(settingsDescription)" + (imuPath.map { "; IMU \($0)" } ?? "")
    }

    /// What a plot of ``makeTrace(truth:plotting:)``'s trace says besides the data.
    package func plotOptions(for trace: TraceSession) -> TracePlot.Options {
        TracePlot.Options(
            title: trace.name, settings: plotSettings, truth: trace.truth,
            maximumITDMicroseconds: configuration.array.maximumDelaySeconds * 1e6, gateDBFS: configuration.silenceGateDBFS,
            bandLabels: configuration.usableBands.map { "\($0.name) \(Int($0.low))–\(Int($0.high)) Hz" },
            duration: analyzedDuration)
    }

    /// The array model in a few words: "spaced 0.15 m", "binaural head radius 0.0875 m, ILD gain 10 dB",
    /// with the channel offsets when they are not zero.
    package static func describe(_ model: ArrayModel) -> String {
        var text = model.kind.rawValue
        switch model.kind {
        case .spaced: text += " \(formatTrimmed(model.spacingMeters, 4)) m"
        case .coincident:
            let pair = model.coincidentPair
            text += " pattern \(formatTrimmed(pair.pattern, 3)), angle \(formatTrimmed(pair.includedAngleDegrees, 1))°"
                + (model.channelsAreMidSide ? ", Mid-Side decoded" : "")
        case .binaural where model.measuredHead != nil:
            text += " measured head \(model.measuredHead!.name) (\(model.measuredHead!.azimuths.count) directions)"
        case .binaural:
            text += " head radius \(formatTrimmed(model.headRadiusMeters, 4)) m, ILD gain \(formatTrimmed(model.ildGain, 2)) dB"
        }
        if model.delayOffsetSeconds != 0 || model.gainOffsetDecibels != 0 {
            text += ", channel offsets \(formatTrimmed(model.delayOffsetSeconds * 1e6, 1)) µs \(formatTrimmed(model.gainOffsetDecibels, 2)) dB"
        }
        return text
    }

    // MARK: - Running

    /// Analyzes the whole source, block by block in constant memory.
    /// - Parameters:
    ///   - writer: where records go (its header first; ``RecordWriter/finish()`` at the end).
    ///   - progress: called after every block with the frames read so far.
    /// - Throws: what the source or the writer throws.
    public func run(writer: RecordWriter? = nil, progress: ((Int) -> Void)? = nil) throws {
        try run(writer: writer, trace: nil, progress: progress)
    }

    /// Analyzes the whole source, block by block in constant memory, following the records
    /// with a trace (the command-line tool's `trace` and `--summary`).
    /// - Parameters:
    ///   - writer: where records go (its header first; ``RecordWriter/finish()`` at the end).
    ///   - trace: follows the records for a plot and a summary.
    ///   - progress: called after every block with the frames read so far.
    /// - Throws: what the source or the writer throws.
    package func run(writer: RecordWriter? = nil, trace: TraceSession?, progress: ((Int) -> Void)? = nil) throws {
        try writer?.writeHeader()
        try source.forEachBlock(progress: progress) { left, right in
            try analyzer.process(left: left, right: right, labeler: labeler) { record in
                try checkNonFinite()
                try writer?.write(record)
                trace?.add(record)
            }
        }
        try writer?.finish()
    }

    /// Analyzes a live stream period by period (the source must be a ``CaptureSource``), polling
    /// the IMU follower before each period's analysis.
    /// - Parameters:
    ///   - duration: stream time to analyze, seconds (`nil`: until the stream ends or a stop).
    ///   - realTime: pace a faster-than-real-time source to real time.
    ///   - shouldStop: polled once per period.
    ///   - imuWarnings: called after each poll with the follower's new warnings; `nil` keeps
    ///     them for ``finalWarnings()``.
    ///   - emit: called with each record, in order.
    ///   - periodDone: called after the records of each period.
    ///   - periodStarted: called before each period's analysis with the monotonic time its
    ///     records end at (see ``LiveAnalysis/run(shouldStop:periodRead:emit:periodDone:periodStarted:)``).
    /// - Returns: the run's figures.
    package func runLive(
        duration: Double? = nil, realTime: Bool = false, shouldStop: () -> Bool = { false },
        imuWarnings: (([String]) -> Void)? = nil, emit: (AnalysisRecord) throws -> Void,
        periodDone: () throws -> Void = {}, periodStarted: (UInt64) -> Void = { _ in }
    ) throws -> LiveAnalysis.Summary {
        guard let capture = captureSource else {
            preconditionFailure("runLive needs a CaptureSource")
        }
        let live = LiveAnalysis(source: capture, analyzer: analyzer, duration: duration, realTime: realTime)
        live.labeler = labeler
        let follower = imuFollower
        return try live.run(
            shouldStop: shouldStop,
            periodRead: { streamSeconds in
                guard let follower else { return }
                try follower.poll(now: streamSeconds)
                if let imuWarnings { imuWarnings(follower.newWarnings()) }
            },
            emit: emit, periodDone: periodDone, periodStarted: periodStarted)
    }

    // MARK: - Warnings

    /// The source's warnings not returned before (a truncated file, a partial frame at the end).
    public func newSourceWarnings() -> [String] {
        let all = source.warnings
        defer { reportedSourceWarnings = all.count }
        return Array(all.dropFirst(reportedSourceWarnings))
    }

    /// What to say at the end: the source's new warnings, samples that had to be replaced,
    /// the IMU follower's remaining warnings, and an input that ended before one analysis frame
    /// (no records).
    /// - Parameter stopped: the run was stopped (Ctrl-C) rather than reaching the end of its
    ///   input; a stop before the first frame is not the input's shortness.
    public func finalWarnings(stopped: Bool = false) -> [String] {
        var lines = newSourceWarnings()
        if analyzer.nonFiniteSampleCount > 0 {
            lines.append("\(source.name): \(analyzer.nonFiniteSampleCount) NaN/Inf samples were replaced by 0")
        }
        if let imuFollower { lines += imuFollower.newWarnings() + imuFollower.finalWarnings() }
        if analyzer.framesAnalyzed == 0 && !stopped {
            lines.append(
                "\(source.name): shorter than one analysis frame (\(configuration.frameLength) samples); no records"
                    + (analyzer.samplesProcessed == 0 ? " (the input ended before its first sample)" : ""))
        }
        return lines
    }

    // MARK: - Calibration

    /// What ``calibrate(truth:parameters:)`` found.
    public struct Calibration: Sendable {
        /// The fitted model and its figures.
        public var fit: CalibrationFit
        /// The first reading: the cues as measured and the errors with the nominal settings.
        package var measurement: Calibrator.Measurement
        /// Errors of an analysis with the fitted model.
        package var after: AzimuthErrors
        /// The profile to write.
        public var profile: ArrayProfile
    }

    /// Fits the array to a recording of a sound whose direction is known: reads the recording
    /// once to measure the cues, fits `parameters`, then reads it again with the fitted model
    /// for the error after. The session must have been opened from an ``AnalysisInput``.
    /// - Throws: ``AnalysisSessionError/calibrationRefused(source:reason:)`` when the recording
    ///   cannot support the fit, or what the source throws.
    public func calibrate(truth: TruthTrack, parameters: [CalibrationParameter]) throws -> Calibration {
        guard let input else { preconditionFailure("calibrate needs a session opened from an AnalysisInput") }
        let measurement = try Calibrator.measure(
            source, configuration: configuration, truth: truth, timeOrigin: settings.startSeconds)
        guard measurement.frames > 0 else {
            throw AnalysisSessionError.calibrationRefused(
                source: source.name, reason: .shorterThanOneFrame(frameLength: configuration.frameLength))
        }
        guard measurement.activeFrames > 0 else {
            throw AnalysisSessionError.calibrationRefused(
                source: source.name, reason: .noActiveFrames(frames: measurement.frames))
        }
        let fitted: CalibrationFit
        do throws(CalibrationError) {
            fitted = try ArrayCalibration.fit(
                measurement.observations, nominal: configuration.array, parameters: parameters,
                sampleRate: configuration.sampleRate, activeFrames: measurement.activeFrames)
        } catch {
            throw AnalysisSessionError.calibrationRefused(source: source.name, reason: error)
        }
        var corrected = configuration
        corrected.array = fitted.array
        let after = try Calibrator.errors(
            try Self.excerpt(of: try input.open(channels: channels, swap: swap), settings: settings),
            configuration: corrected, truth: truth, timeOrigin: settings.startSeconds)
        let profile = ArrayProfile(
            model: fitted.array, sampleRate: configuration.sampleRate, fitted: parameters, recording: input.name,
            medianErrorBeforeDegrees: measurement.before.median, medianErrorAfterDegrees: after.median)
        return Calibration(fit: fitted, measurement: measurement, after: after, profile: profile)
    }
}

/// Why an ``AnalysisSession`` cannot go on. Each description is one line naming the source.
public enum AnalysisSessionError: Error, CustomStringConvertible {
    /// The settings do not suit the source (its sample rate, usually).
    case unsuitableSettings(source: String, problem: ConfigurationError)
    /// The recording cannot support a calibration.
    case calibrationRefused(source: String, reason: CalibrationError)

    /// The source the error is about.
    public var source: String {
        switch self {
        case .unsuitableSettings(let source, _), .calibrationRefused(let source, _): source
        }
    }

    public var description: String {
        switch self {
        case .unsuitableSettings(let source, let problem): "\(source): \(problem.description)"
        case .calibrationRefused(let source, let reason): "\(source): \(reason.description)"
        }
    }
}
