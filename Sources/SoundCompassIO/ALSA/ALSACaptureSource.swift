import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How to open an ALSA capture device.
public struct ALSACaptureSettings: Sendable {
    /// Any ALSA PCM name, as `arecord -D` takes it: `default`, `hw:1,0`, `plughw:CARD=USB,DEV=0`.
    public var device: String
    /// Sample rate to ask for, Hz; the device may give the nearest it supports.
    public var sampleRate: Int
    /// Period to ask for, frames: the block read at a time (the device may round it).
    public var periodFrames: Int
    /// Periods in the device's buffer: how much audio may wait before an overrun.
    public var periodsPerBuffer: Int
    /// 1-based channels to use as left and right; `nil` for 1 and 2.
    public var channels: (left: Int, right: Int)?
    /// Channels to open; `nil` for the fewest the device takes that include the pair.
    public var channelCount: Int?
    /// Sample encoding; `nil` negotiates in ``PCMEncoding/preference`` order.
    public var encoding: PCMEncoding?
    /// Exchange left and right after picking the channels.
    public var swap: Bool
    /// ALSA configuration text in which ``device`` is defined, instead of the system's
    /// configuration (for example a `file` PCM that replays a recording); `nil` for the system's.
    public var configurationText: String?
    /// For tests of recovery: read calls (1-based) that return this negative errno instead of
    /// reading, as if the device had reported it (`-EPIPE` for an overrun).
    package var injectedFaults: [Int: Int32] = [:]

    /// - Parameters: see the properties.
    public init(
        device: String = "default", sampleRate: Int = 48000, periodFrames: Int = 1024, periodsPerBuffer: Int = 4,
        channels: (left: Int, right: Int)? = nil, channelCount: Int? = nil, encoding: PCMEncoding? = nil,
        swap: Bool = false, configurationText: String? = nil
    ) {
        self.device = device
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.periodsPerBuffer = periodsPerBuffer
        self.channels = channels
        self.channelCount = channelCount
        self.encoding = encoding
        self.swap = swap
        self.configurationText = configurationText
    }

    /// ALSA configuration text defining a capture PCM that replays a raw interleaved PCM file
    /// (ALSA's `file` plugin over a `null` slave). The file's encoding, channel count and rate
    /// are whatever the reader opens the PCM with: pass them to SoundCompass.
    /// - Parameters:
    ///   - name: the PCM's name.
    ///   - rawFile: absolute path of the raw file.
    ///   - refusingFloat: put a `linear` plugin under the replay so the PCM offers integer
    ///     encodings only (a device without float, for tests of format negotiation).
    package static func replayConfiguration(name: String, rawFile: String, refusingFloat: Bool = false) -> String {
        let slave = refusingFloat ? "{ type linear; slave { pcm { type null }; format S16_LE } }" : "{ type null }"
        let quoted = rawFile.replacingBackslashesAndQuotes()
        return "pcm.\(name) { type file; slave.pcm \(slave); file \"/dev/null\"; infile \"\(quoted)\"; format \"raw\" }\n"
    }
}

/// Captures stereo audio from an ALSA PCM period by period (``CaptureSource``).
///
/// Negotiates the sample encoding (float preferred, then 32-, 24- and 16-bit integers, converted
/// to float here), opens as many channels as the chosen pair needs, recovers from overruns
/// (`-EPIPE`) and suspends (`-ESTRPIPE`) and counts them, and ends with
/// ``ALSAError/deviceGone(device:)`` when the device disappears.
///
/// ALSA's `file` plugin (a recording replayed as capture) never signals the end of its file;
/// this source notices when a read leaves its buffer untouched and ends the stream there. That
/// holds for the plugin over a `null` slave, as ``ALSACaptureSettings/replayConfiguration(name:rawFile:refusingFloat:)``
/// writes it; with another plugin under the replay, reads past the end give that plugin's
/// silence, and only a duration limit ends the stream.
public final class ALSACaptureSource: CaptureSource {
    /// The settings asked for.
    public let settings: ALSACaptureSettings
    public var name: String { settings.device }
    public let sampleRate: Double
    public var expectedFrameCount: Int? { nil }
    public private(set) var warnings: [String] = []
    public let periodFrames: Int
    public private(set) var overrunCount = 0
    public private(set) var suspendCount = 0
    public private(set) var lastReadTime: UInt64 = 0
    /// The encoding the device delivers.
    public let encoding: PCMEncoding
    /// Channels opened.
    public let channelCount: Int
    /// The 1-based channels read as left and right.
    public let channelPair: (left: Int, right: Int)
    /// Frames in the device's buffer.
    public let bufferFrames: Int
    /// True when the device replays a file (ALSA's `file` plugin).
    public let isReplay: Bool
    /// Frames delivered so far.
    public private(set) var framesCaptured = 0
    /// Asked on an interrupted read: `true` ends the stream.
    public var stopRequested: @Sendable () -> Bool = { false }

    private let pcm: ALSAPCM
    private let raw: UnsafeMutableRawBufferPointer
    private var readCalls = 0
    private var ended = false

    /// Opens and configures the device; nothing is read until the first ``read(left:right:)``.
    /// - Throws: ``ALSAError`` naming the device: unknown, busy, or unable to capture the pair at
    ///   any encoding SoundCompass reads.
    public init(settings: ALSACaptureSettings) throws(ALSAError) {
        precondition(settings.periodFrames > 0 && settings.periodsPerBuffer >= 2)
        self.settings = settings
        let device = settings.device
        let pcm = try ALSAPCM(name: device, configurationText: settings.configurationText)
        let offered = try pcm.capabilities()
        let pair = settings.channels ?? (1, 2)
        let needed = max(pair.left, pair.right, 2)
        guard needed <= CaptureLimits.maximumChannelCount, (settings.channelCount ?? 0) <= CaptureLimits.maximumChannelCount else {
            throw .unsupported(
                device: device,
                problem: "\(max(needed, settings.channelCount ?? 0)) channels is more than the \(CaptureLimits.maximumChannelCount) supported")
        }
        let count = settings.channelCount ?? max(needed, offered.channels.lowerBound)
        guard count >= needed else {
            throw .unsupported(device: device, problem: "channel \(needed) does not exist (opening \(count) channels)")
        }
        guard offered.channels.contains(count) else {
            throw .unsupported(
                device: device,
                problem: "the device captures \(Self.describe(offered.channels)) channels, not \(count)")
        }
        guard pair.left != pair.right else {
            throw .unsupported(device: device, problem: "channel \(pair.left) was picked for both left and right")
        }
        let encoding: PCMEncoding
        if let asked = settings.encoding {
            guard offered.encodings.contains(asked) else {
                throw .unsupported(
                    device: device,
                    problem: "the device does not offer \(asked.alsaName) (it offers \(Self.describe(offered.encodings)))")
            }
            encoding = asked
        } else {
            guard let best = offered.encodings.first else {
                throw .unsupported(
                    device: device,
                    problem: "the device offers none of the sample formats SoundCompass reads (\(PCMEncoding.preference.map(\.alsaName).joined(separator: ", ")))")
            }
            encoding = best
        }
        let stream = try pcm.configure(
            encoding: encoding, channels: count, rate: settings.sampleRate, periodFrames: settings.periodFrames,
            periodsPerBuffer: settings.periodsPerBuffer)
        guard Double(stream.rate) >= AnalysisConfiguration.minimumSampleRate else {
            throw .unsupported(device: device, problem: "the device's nearest rate, \(stream.rate) Hz, is below 8000 Hz")
        }
        guard CaptureLimits.periodFits(frames: stream.periodFrames, channels: count) else {
            throw .unsupported(
                device: device,
                problem: "a period of \(stream.periodFrames) frames × \(count) channels is more than the \(CaptureLimits.maximumPeriodSamples) samples a read may hold")
        }
        if stream.rate != settings.sampleRate {
            warnings.append("\(device): captures at \(stream.rate) Hz, not the \(settings.sampleRate) Hz asked for; analysing at \(stream.rate) Hz")
        }
        self.pcm = pcm
        self.sampleRate = Double(stream.rate)
        self.encoding = encoding
        self.channelCount = count
        self.channelPair = settings.swap ? (pair.right, pair.left) : pair
        self.periodFrames = stream.periodFrames
        self.bufferFrames = stream.bufferFrames
        self.isReplay = pcm.isFilePlugin
        self.raw = UnsafeMutableRawBufferPointer.allocate(
            byteCount: stream.periodFrames * count * encoding.bytesPerSample, alignment: 16)
    }

    deinit { raw.deallocate() }

    public var streamDescription: String {
        let ms = Double(periodFrames) / sampleRate * 1000
        return "\(name): \(encoding.alsaName), \(channelCount) channels (left \(channelPair.left), right \(channelPair.right)), "
            + "\(Int(sampleRate)) Hz, period \(periodFrames) frames (\((ms * 10).rounded() / 10) ms), buffer \(bufferFrames) frames"
            + (isReplay ? "; replaying a file" : "")
    }

    /// Reads the next period (at most `min(left.count, right.count)` frames), converted to float. Blocks until the
    /// device delivers it. Overruns and suspends are recovered from and counted; the audio lost
    /// in them is not replaced, so stream time counts the samples captured.
    /// - Returns: frames read; 0 when the stream has ended (a replayed file is exhausted, or
    ///   ``stopRequested`` said so on an interrupted read).
    /// - Throws: ``ALSAError/deviceGone(device:)`` when the device disappears; ``ALSAError`` for
    ///   a failure that cannot be recovered from.
    public func read(left: inout MutableSpan<Float>, right: inout MutableSpan<Float>) throws(ALSAError) -> Int {
        try withBuffers(&left, &right) { (left, right) throws(ALSAError) -> Int in try read(into: left, right) }
    }

    private func read(into left: UnsafeMutableBufferPointer<Float>, _ right: UnsafeMutableBufferPointer<Float>) throws(ALSAError) -> Int {
        let frames = min(left.count, right.count, periodFrames)
        guard frames > 0, !ended else { return 0 }
        let frameBytes = channelCount * encoding.bytesPerSample
        while true {
            readCalls += 1
            let result: Int
            if let fault = settings.injectedFaults[readCalls] {
                result = Int(fault)
            } else {
                if isReplay { memset(raw.baseAddress!, Self.untouched, frames * frameBytes) }
                result = pcm.readInterleaved(into: raw.baseAddress!, frames: frames)
            }
            lastReadTime = MonotonicClock.now()
            if result >= 0 {
                var got = result
                if isReplay { got = framesWritten(got, frameBytes: frameBytes) }
                if got == 0 {
                    if isReplay { ended = true; return 0 }
                    continue
                }
                encoding.deinterleave(
                    UnsafeRawBufferPointer(raw), frames: got, channels: channelCount,
                    leftChannel: channelPair.left - 1, rightChannel: channelPair.right - 1, left: left, right: right)
                framesCaptured += got
                return got
            }
            let code = Int32(result)
            switch -code {
            case EPIPE:
                overrunCount += 1
                try recover(code)
            case ESTRPIPE:
                suspendCount += 1
                try recover(code)
            case EINTR, EAGAIN:
                if stopRequested() { return 0 }
            case ENODEV, EBADFD, ENXIO:
                throw ALSAError.deviceGone(device: name)
            default:
                throw ALSAError.failed(device: name, operation: "reading", code: code)
            }
        }
    }

    private func recover(_ code: Int32) throws(ALSAError) {
        let result = pcm.recover(from: code)
        guard result == 0 else {
            if -result == ENODEV { throw .deviceGone(device: name) }
            throw .failed(device: name, operation: "recovering from \(code == -EPIPE ? "an overrun" : "a suspend")", code: result)
        }
    }

    /// The byte a replayed read leaves in place where the file had nothing more to give.
    private static let untouched: Int32 = 0xA5

    /// Frames at the start of the buffer that the replay wrote: trailing frames still holding
    /// only the fill byte were past the end of the file.
    private func framesWritten(_ frames: Int, frameBytes: Int) -> Int {
        let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var count = frames
        while count > 0 {
            let start = bytes + (count - 1) * frameBytes
            var allFill = true
            for i in 0..<frameBytes where start[i] != UInt8(Self.untouched) { allFill = false; break }
            if !allFill { break }
            count -= 1
        }
        return count
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)–\(range.upperBound)"
    }

    private static func describe(_ encodings: [PCMEncoding]) -> String {
        encodings.isEmpty ? "none SoundCompass reads" : encodings.map(\.alsaName).joined(separator: ", ")
    }
}

extension String {
    /// Escapes `\` and `"` for a double-quoted ALSA configuration string.
    fileprivate func replacingBackslashesAndQuotes() -> String {
        var out = ""
        for c in self {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
