import ArgumentParser
import SoundCompass
import SoundCompassOptions

#if canImport(Glibc)
import Glibc
#endif

/// Documented exit codes (sysexits.h numbering). See Docs/CLI.md.
enum ExitStatus: Int32 {
    case success = 0
    case internalError = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
    case ioError = 74
}

/// A failure the CLI reports as one line on stderr with a documented exit code.
struct CLIFailure: Error {
    var message: String
    var status: ExitStatus

    init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// Maps a library error to its line and exit code.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self = failure
        case let failure as OptionFailure:
            self.init(failure.description, status: .usage)
        case let failure as WholeFileWriter.Failure:
            self.init(failure)
        case let error as SoundFileError:
            if case .unrecognized(let path, _) = error, Self.looksHeaderless(path) {
                // `synth take.raw` writes headerless PCM, which only its format options can read.
                self.init(
                    "\(error.description); it looks like headerless PCM: give --raw-format f32le (as synth writes .raw; with --rate and --raw-channels if not 48000 Hz stereo), or read it with live --input",
                    status: .dataError)
                return
            }
            let status: ExitStatus = switch error {
            case .notFound, .unreadable: .noInput
            case .readFailed: .ioError
            case .cannotCreate: .cannotCreate
            case .writeFailed: .ioError
            default: .dataError
            }
            self.init(error.description, status: status)
        case let error as ALSAError:
            switch error {
            case .noSuchDevice where !ALSADevices.hasSoundCard:
                self.init(
                    "\(error.description); this machine has no sound card (to replay a recording instead, see Docs/Live.md)",
                    status: .noInput)
            case .noSuchDevice, .busy, .unsupported:
                self.init("\(error.description) (run 'soundcompass devices' to list capture devices)", status: .noInput)
            case .permissionDenied, .unusableConfiguration:
                self.init(error.description, status: .noInput)
            case .failed(_, let operation, _) where !operation.hasPrefix("reading") && !operation.hasPrefix("recovering"):
                // Opening or setting up the device: the input cannot be used.
                self.init(error.description, status: .noInput)
            case .deviceGone, .failed:
                self.init(error.description, status: .ioError)
            }
        case let error as IMUError:
            switch error {
            case .notFound, .unreadable: self.init(error.description, status: .noInput)
            case .noOverlap(let path, let first, let last, let start, let end, let audioEnd, let offset):
                let s = formatSeconds
                let rows = first == last ? "line \(first) is at \(s(start)) s" : "lines \(first)–\(last) cover \(s(start))…\(s(end)) s"
                self.init(
                    "\(path): \(rows) on the audio clock (--imu-offset \(s(offset))), which misses the audio (0…\(s(audioEnd)) s); set --imu-offset to the audio time of the IMU's time 0",
                    status: .dataError)
            default: self.init(error.description, status: .dataError)
            }
        case let error as ConfigurationError:
            self.init(error.description, status: .usage)
        case let error as AnalysisSessionError:
            switch error {
            case .unsuitableSettings: self.init(error.description, status: .usage)
            case .calibrationRefused(let source, let reason):
                self.init("\(source): \(Self.message(for: reason))", status: .dataError)
            }
        case let error as TruthError:
            self.init(error.description, status: error.isUnreadable ? .noInput : .dataError)
        case let error as ProfileError:
            self.init(error.description, status: error.isUnreadable ? .noInput : .dataError)
        case let error as SOFAError:
            self.init(error.description, status: error.isUnreadable ? .noInput : .dataError)
        case let error as LineSink.Failure:
            switch error {
            case .closedByReader: self.init("", status: .success)
            case .failed(let reason): self.init("write failed: \(reason)", status: .ioError)
            }
        default:
            self.init("internal error: \(error)", status: .internalError)
        }
    }
}

extension CLIFailure {
    /// True when `path` is named as headerless PCM usually is (`.raw`, `.pcm`: what `synth`
    /// writes raw by extension).
    static func looksHeaderless(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return ["raw", "pcm"].contains(path[path.index(after: dot)...].lowercased())
    }

    /// A calibration refusal with the option that gets around it.
    static func message(for error: CalibrationError) -> String {
        switch error {
        case .narrowTruth: withHint(error.description, "(--fit delay,gain)")
        case .cannotFit: error.description.contains("swapped") ? withHint(error.description, "(--swap)") : error.description
        default: error.description
        }
    }

    /// `text` with `hint` at its end (before a final question mark), unless it already says it.
    /// The engine names no option: the hint is the command line's own.
    private static func withHint(_ text: String, _ hint: String) -> String {
        if text.contains(hint) { return text }
        return text.hasSuffix("?") ? "\(text.dropLast()) \(hint)?" : "\(text) \(hint)"
    }
}

/// Creates (or replaces) an output file; failure is exit code 73 with the path and the reason.
func createFile(_ path: String) throws(CLIFailure) -> LineSink {
    do {
        return try LineSink(path: path)
    } catch {
        switch error {
        case .failed(let reason): throw CLIFailure(reason, status: .cannotCreate)
        case .closedByReader: throw CLIFailure("\(path): closed", status: .ioError)
        }
    }
}

/// Writes a plot, summary or profile whole (see ``WholeFileWriter``): a file that cannot be
/// created is exit code 73, a write that fails (a full disk) 74, each with the path and the
/// reason; either way no partial file is left.
func writeWholeFile(_ path: String, _ bytes: [UInt8]) throws(CLIFailure) {
    do { try WholeFileWriter.write(bytes, to: path) } catch { throw CLIFailure(error) }
}

extension CLIFailure {
    /// A file that cannot be created is 73, a write that fails part way 74.
    init(_ failure: WholeFileWriter.Failure) {
        switch failure {
        case .cannotCreate(let reason): self.init(reason, status: .cannotCreate)
        case .writeFailed(let reason): self.init(reason, status: .ioError)
        }
    }
}

/// Writes diagnostics to stderr, one line each.
enum Diagnostics {
    /// Writes straight to file descriptor 2 (no stdio buffering, and no crash when stderr is
    /// closed: the write simply fails).
    static func write(_ text: String) {
        if let capture { return capture.append(text) }
        write(text, to: 2)
    }

    /// Writes `text` to stdout (help and version text).
    static func writeStandardOutput(_ text: String) { write(text, to: 1) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    // Every message is one line; what it quotes from outside (a file name, a CSV cell, an
    // option's value) has its control characters escaped here, the one place all pass through.
    static func error(_ message: String) { writeLine("soundcompass: error: \(escaped(message))") }
    static func warning(_ message: String) { writeLine("soundcompass: warning: \(escaped(message))") }
    static func note(_ message: String) { writeLine("soundcompass: \(escaped(message))") }

    /// `text` with control characters (newlines, ESC, BEL, …) shown as escapes (see ``MessageText``).
    static func escaped(_ text: String) -> String { MessageText.escaped(text) }

    /// Writes `line` and a newline; on a terminal, broken at spaces to fit its width (the
    /// continuations indented), so that no line wraps mid-word. A pipe or file gets it whole.
    static func writeLine(_ line: String) {
        if capture == nil, let columns = standardErrorColumns() {
            write(wrapLines(line, columns: columns) + "\n")
        } else {
            write(line + "\n")
        }
    }

    static var isTerminal: Bool { isatty(2) == 1 }

    /// The source, its rate and the settings of `session`, and its IMU log.
    static func describe(_ session: AnalysisSession) {
        note("\(session.source.name): \(Int(session.source.sampleRate)) Hz; \(session.settingsDescription)")
        if let log = session.imuLog { note(IMUOptions.describe(log)) }
    }

    /// Runs `body` with a progress bar for `source` on stderr (when `enabled` and stderr is a
    /// terminal), and clears the bar when it ends.
    static func withProgress<T>(
        of source: any StereoSource, enabled: Bool, _ body: (@escaping (Int) -> Void) throws -> T
    ) rethrows -> T {
        let progress = ProgressBar(
            totalFrames: source.expectedFrameCount, sampleRate: source.sampleRate, enabled: enabled && isTerminal)
        defer { progress.finish() }
        return try body(progress.update)
    }

    /// Runs `body`; any error becomes one line on stderr and its documented exit code.
    static func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ExitCode {
            throw error
        } catch {
            let failure = CLIFailure(error)
            if failure.status == .success { return }
            self.error(failure.message)
            throw ExitCode(failure.status.rawValue)
        }
    }
}
