import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SoundCompass
import SoundCompassOptions
import TestSignals

extension PCMEncoding: ExpressibleByArgument {
    /// `f32le`, `s16le`, … or the ALSA names `FLOAT_LE`, `S16_LE`, … (any case).
    public init?(argument: String) { self.init(name: argument) }
}

/// A time in a file: seconds ("90", "12.5") or minutes and seconds ("1:30", "1:02:03.5").
struct TimeOffset: ExpressibleByArgument, CustomStringConvertible {
    var seconds: Double

    init?(argument: String) {
        guard let offset = try? Self.parse(argument) else { return nil }
        self = offset
    }

    private init(seconds: Double) { self.seconds = seconds }

    /// Parses a time, saying what is wrong with it.
    static func parse(_ argument: String) throws -> TimeOffset {
        let problem = ArgumentProblem("give seconds (90, 12.5) or minutes and seconds (1:30, 1:02:03.5), not negative")
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw problem }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let v = Double(part), v.isFinite, v >= 0, i == parts.count - 1 || v == v.rounded() else { throw problem }
            if i > 0 && v >= 60 { throw ArgumentProblem("minutes and seconds after a ':' must be below 60") }
            total = total * 60 + v
        }
        return TimeOffset(seconds: total)
    }

    var description: String { formatTrimmed(seconds, 3) }
}

/// The layout of headerless PCM (`--raw-format`, `--rate`, `--raw-channels`), declared once for
/// the commands that read files (through ``InputOptions``) and for live, whose `--input` may be
/// raw PCM and whose `--rate` is also the rate asked of a device.
struct RawPCMOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read the input as headerless interleaved PCM in this encoding: f32le, s32le, s24le, s24_3le or s16le (ALSA names FLOAT_LE, S16_LE, … also), as 'synth --file-format raw-…' writes (live --input: default f32le).",
        valueName: "encoding"))
    var rawFormat: PCMEncoding?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Sample rate of raw PCM, Hz; for live, also the rate asked of the device, which may give the nearest it supports (default 48000).",
        valueName: "Hz"))
    var rate: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Channels per frame of raw PCM (default 2).", valueName: "n"))
    var rawChannels: Int?

    func validate() throws {
        if let rate, !(8000...768_000).contains(rate) { throw ValidationError("--rate must be 8000…768000 Hz, got \(rate)") }
        if let rawChannels, !(1...CaptureLimits.maximumChannelCount).contains(rawChannels) {
            throw ValidationError("--raw-channels must be 1…\(CaptureLimits.maximumChannelCount), got \(rawChannels)")
        }
    }

    /// `--rate`, Hz, or its default, 48000.
    var sampleRate: Int { rate ?? 48000 }
}

/// What the input is and which part of it to analyse: `-` for standard input, raw PCM, and
/// `--start`/`--end`. Shared by analyze, trace and calibrate.
struct InputOptions: ParsableArguments {
    @OptionGroup
    var raw: RawPCMOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Analyse from this time in the file: seconds, or M:SS (records keep the file's time).", valueName: "time"), transform: TimeOffset.parse)
    var start: TimeOffset?

    @Option(parsing: .unconditional, help: ArgumentHelp("Analyse up to this time in the file: seconds, or M:SS.", valueName: "time"), transform: TimeOffset.parse)
    var end: TimeOffset?

    func validate() throws {
        // `raw` has checked the ranges of --rate and --raw-channels.
        if raw.rawFormat == nil {
            if raw.rate != nil { throw ValidationError("--rate applies to raw PCM only: give --raw-format too (a sound file's header says its rate)") }
            if raw.rawChannels != nil { throw ValidationError("--raw-channels applies to raw PCM only: give --raw-format too") }
        }
        if let start, let end, end.seconds <= start.seconds {
            throw ValidationError("--end (\(end) s) must be after --start (\(start) s)")
        }
        if let end, end.seconds <= 0 { throw ValidationError("--end must be after the start of the file, got \(end)") }
    }

    /// The raw layout, with `--raw-format`.
    var rawLayout: RawPCMFormat? {
        raw.rawFormat.map { RawPCMFormat(encoding: $0, sampleRate: raw.sampleRate, channelCount: raw.rawChannels ?? 2) }
    }

    /// Opens `file` (`-`: standard input; nil: the built-in demo scene) and assembles its
    /// analysis; warnings found on the way go to stderr.
    /// - Parameter rereadable: the input must be readable twice (calibrate): a pipe or FIFO is copied
    ///   to an unlinked temporary file as it is read.
    func openSession(
        _ file: String?, analysis: AnalysisOptions, imu: IMUInput? = nil, rereadable: Bool = false
    ) throws -> AnalysisSession {
        guard let file else {
            if start != nil || end != nil || raw.rawFormat != nil {
                throw CLIFailure("--start, --end and --raw-format need a FILE (or - for standard input)", status: .usage)
            }
            return try analysis.openDemoSession(imu: imu)
        }
        Self.noteIfWaitingForWriter(file)
        var settings = analysis.settings
        settings.startSeconds = start?.seconds ?? 0
        settings.endSeconds = end?.seconds
        return try Self.explainingRawErrors {
            let input: AnalysisInput
            if file == "-" && rereadable {
                input = try AnalysisInput.rereadableStandardInput(raw: rawLayout)
            } else if rereadable && Self.isFIFO(file) {
                input = try AnalysisInput.rereadable(fifo: file, raw: rawLayout)
            } else if let rawLayout {
                input = .raw(path: file, format: rawLayout)
            } else {
                input = .file(path: file)
            }
            return try AnalysisSession(
                input: input, channels: try analysis.channelPair(for: input.name), swap: analysis.swap,
                settings: settings, imu: imu, warning: Diagnostics.warning)
        }
    }

    /// Says on stderr that opening `path` waits, when it is a FIFO: opening a FIFO blocks
    /// until a program opens it for writing, which would otherwise look like a hang.
    static func noteIfWaitingForWriter(_ path: String) {
        guard isFIFO(path) else { return }
        Diagnostics.note("\(path): a FIFO: waiting for a program to write to it (Ctrl-C to stop)")
    }

    /// Whether `path` names a FIFO (named pipe); `-` does not.
    static func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return path != "-" && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// Runs `body`, adding to a raw input's errors the option that fixes them.
    static func explainingRawErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SoundFileError {
            switch error {
            case .rawChannelOutOfRange:
                throw CLIFailure("\(error.description); give --raw-channels if the stream has more", status: .dataError)
            case .periodTooLarge:
                throw CLIFailure("\(error.description); give a smaller --period", status: .usage)
            case .tooManyChannels:
                throw CLIFailure(error.description, status: .usage)
            case .implausibleSamples(_, _, _, _, let likely?):
                throw CLIFailure("\(error.description): give --raw-format \(likely.rawValue)", status: .dataError)
            default:
                throw error
            }
        }
    }
}
