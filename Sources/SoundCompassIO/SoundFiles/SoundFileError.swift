import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a sound file could not be read or written. Every case names the file.
public enum SoundFileError: Error, Equatable, CustomStringConvertible {
    /// The path does not exist.
    case notFound(path: String)
    /// The path exists but cannot be read (permissions, a directory, …).
    case unreadable(path: String, reason: String)
    /// The file is 0 bytes long.
    case empty(path: String)
    /// libsndfile does not recognise the contents; `reason` is its own message.
    case unrecognized(path: String, reason: String)
    /// The file holds a header but no audio frames.
    case noAudio(path: String)
    /// The file has fewer than two channels.
    case tooFewChannels(path: String, channels: Int)
    /// A requested channel (1-based) is not in the file.
    case channelOutOfRange(path: String, channel: Int, channels: Int)
    /// The two requested channels are the same.
    case sameChannelTwice(path: String, channel: Int)
    /// The sample rate is below what the engine supports.
    case sampleRateTooLow(path: String, rate: Int)
    /// The sample rate is above what the engine supports.
    case sampleRateTooHigh(path: String, rate: Int)
    /// Reading failed part way; `reason` is libsndfile's message.
    case readFailed(path: String, reason: String)
    /// The decoder gave up on the file before any audio (a FLAC that loses sync, say); `reason`
    /// is libsndfile's message. Damage after some audio ends the audio with a warning instead.
    case damaged(path: String, reason: String)
    /// The file could not be created; `reason` is libsndfile's message.
    case cannotCreate(path: String, reason: String)
    /// Writing failed part way; `reason` is libsndfile's message.
    case writeFailed(path: String, reason: String)
    /// A requested channel (1-based) is not in raw PCM of `channels` channels per frame (raw PCM
    /// does not say how many it has: the count was given, or assumed).
    case rawChannelOutOfRange(path: String, channel: Int, channels: Int)
    /// The input is a pipe and its format (`format`, e.g. "Ogg") needs to seek.
    case needsSeeking(path: String, format: String)
    /// Raw PCM whose first block does not decode plausibly as `encoding`: `nonFinitePercent` of
    /// its samples are NaN/Inf, its peak is `peakDBFS` (dB re full scale); `likely` is the
    /// encoding under which it decodes most plausibly, if any does.
    case implausibleSamples(path: String, encoding: PCMEncoding, nonFinitePercent: Double, peakDBFS: Double, likely: PCMEncoding?)
    /// More than 1 % of the samples read so far are NaN/Inf: `count` of `total` (both channels)
    /// in the first `seconds` seconds.
    case mostlyNonFinite(path: String, count: Int, total: Int, seconds: Double)
    /// The part asked for starts at `start` seconds, at or after the input's end (`length` seconds).
    case startBeyondEnd(path: String, start: Double, length: Double)
    /// The header is recognised but states something no audio can have (a WAV saying 0 Hz or
    /// 4 GHz, or 0 channels); `problem` says what.
    case unusableHeader(path: String, problem: String)
    /// Raw PCM said to have more channels per frame than ``CaptureLimits/maximumChannelCount``.
    case tooManyChannels(path: String, channels: Int)
    /// A period of `frames` frames of `channels` channels is above
    /// ``CaptureLimits/maximumPeriodSamples``.
    case periodTooLarge(path: String, frames: Int, channels: Int)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .notFound(let p), .unreadable(let p, _), .empty(let p), .unrecognized(let p, _), .noAudio(let p),
            .tooFewChannels(let p, _), .channelOutOfRange(let p, _, _), .sameChannelTwice(let p, _),
            .sampleRateTooLow(let p, _), .sampleRateTooHigh(let p, _), .readFailed(let p, _), .damaged(let p, _),
            .cannotCreate(let p, _), .writeFailed(let p, _), .needsSeeking(let p, _), .rawChannelOutOfRange(let p, _, _),
            .implausibleSamples(let p, _, _, _, _), .mostlyNonFinite(let p, _, _, _), .startBeyondEnd(let p, _, _),
            .tooManyChannels(let p, _), .periodTooLarge(let p, _, _), .unusableHeader(let p, _):
            p
        }
    }

    /// The problem, without the path.
    public var problem: String {
        switch self {
        case .notFound: "no such file"
        case .unreadable(_, let reason): "cannot be read: \(reason)"
        case .empty: "file is empty (0 bytes)"
        case .unrecognized(_, let reason): "not a sound file libsndfile can read (\(reason))"
        case .noAudio: "holds no audio frames"
        case .tooFewChannels(_, let n):
            "has \(n) channel\(n == 1 ? "" : "s"); a stereo pair needs at least 2"
        case .channelOutOfRange(_, let c, let n), .rawChannelOutOfRange(_, let c, let n): "channel \(c) does not exist (there are \(n) channels, 1…\(n))"
        case .sameChannelTwice(_, let c): "channel \(c) was picked for both left and right"
        case .sampleRateTooLow(_, let rate): "sample rate \(rate) Hz is below the supported minimum of 8000 Hz"
        case .sampleRateTooHigh(_, let rate): "sample rate \(rate) Hz is above the supported maximum of 768000 Hz"
        case .readFailed(_, let reason): "read failed: \(reason)"
        case .damaged(_, let reason): "damaged: no audio could be decoded (\(reason))"
        case .cannotCreate(_, let reason): "cannot be created: \(reason)"
        case .writeFailed(_, let reason): "write failed: \(reason)"
        case .needsSeeking(_, let format):
            "\(format) needs seeking, which a pipe cannot do; give the file name or redirect it (< FILE)"
        case .implausibleSamples(_, let encoding, let percent, let peak, let likely):
            "does not look like \(encoding.rawValue) samples (\(formatTrimmed(percent, 1)) % NaN/Inf, peak "
                + (peak.isFinite ? "\(peak >= 0 ? "+" : "−")\(Int(abs(peak).rounded())) dBFS" : "not finite") + ")"
                + (likely.map { "; it looks like \($0.rawValue)" } ?? "")
        case .mostlyNonFinite(_, let count, let total, let seconds):
            "\(formatTrimmed(100 * Double(count) / Double(max(total, 1)), 1)) % of the samples are NaN/Inf (\(count) of \(total) in the first \(formatTrimmed(seconds, 1)) s); the file is damaged or its header misstates the encoding"
        case .startBeyondEnd(_, let start, let length):
            "the start, \(formatTrimmed(start, 3)) s, is at or after the end (\(formatTrimmed(length, 3)) s)"
        case .unusableHeader(_, let problem): "unusable header: \(problem)"
        case .tooManyChannels(_, let n):
            "\(n) channels per frame is more than the \(CaptureLimits.maximumChannelCount) supported"
        case .periodTooLarge(_, let frames, let channels):
            "a period of \(frames) frames × \(channels) channels is more than the \(CaptureLimits.maximumPeriodSamples) samples a read may hold"
        }
    }

    public var description: String { "\(path): \(problem)" }
}

extension SoundFileError {
    init(path: String, failure: InputFile.Failure) {
        switch failure {
        case .notFound: self = .notFound(path: path)
        case .unreadable(let reason): self = .unreadable(path: path, reason: reason)
        }
    }
}
