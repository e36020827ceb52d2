import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads interleaved raw PCM from standard input, a pipe or a file, period by period
/// (``CaptureSource``): `arecord -t raw … | soundcompass live --input -`.
public final class RawPCMSource: CaptureSource {
    /// The path read, or `-` for standard input.
    public let path: String
    public var name: String { path == "-" ? "standard input" : path }
    public let sampleRate: Double
    public var expectedFrameCount: Int? { nil }
    public private(set) var warnings: [String] = []
    public let periodFrames: Int
    public var overrunCount: Int { 0 }
    public var suspendCount: Int { 0 }
    public private(set) var lastReadTime: UInt64 = 0
    /// The encoding of the samples.
    public let encoding: PCMEncoding
    /// Channels per frame in the stream.
    public let channelCount: Int
    /// The 1-based channels read as left and right.
    public let channelPair: (left: Int, right: Int)
    /// Frames delivered so far.
    public private(set) var framesCaptured = 0
    /// Asked when a read is interrupted by a signal: `true` ends the stream.
    public var stopRequested: @Sendable () -> Bool = { false }

    private let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private var ended = false

    /// - Parameters:
    ///   - path: a file or FIFO to read, or `-` for standard input.
    ///   - encoding: the samples' encoding.
    ///   - sampleRate: the stream's rate, Hz (raw PCM does not say).
    ///   - channelCount: channels per frame in the stream.
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    ///   - periodFrames: frames returned per read.
    /// - Throws: ``SoundFileError`` naming the input: missing, unreadable, a directory, or a
    ///   channel choice the stream cannot meet.
    public init(
        path: String, encoding: PCMEncoding, sampleRate: Int, channelCount: Int = 2,
        channels: (left: Int, right: Int)? = nil, swap: Bool = false, periodFrames: Int = 1024
    ) throws(SoundFileError) {
        precondition(periodFrames > 0)
        let label = path == "-" ? "standard input" : path
        let pair = try SoundFileReader.channelPair(channels, swap: swap, of: channelCount, path: label)
        guard Double(sampleRate) >= AnalysisConfiguration.minimumSampleRate else {
            throw .sampleRateTooLow(path: label, rate: sampleRate)
        }
        guard Double(sampleRate) <= AnalysisConfiguration.maximumSampleRate else {
            throw .sampleRateTooHigh(path: label, rate: sampleRate)
        }
        if path == "-" {
            descriptor = 0
        } else {
            do { descriptor = try InputFile.open(path) } catch { throw SoundFileError(path: path, failure: error) }
        }
        self.path = path
        self.encoding = encoding
        self.sampleRate = Double(sampleRate)
        self.channelCount = channelCount
        self.channelPair = pair
        self.periodFrames = periodFrames
        self.buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: periodFrames * channelCount * encoding.bytesPerSample, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        if descriptor != 0 { close(descriptor) }
    }

    public var streamDescription: String {
        "\(name): raw \(encoding.rawValue), \(channelCount) channels (left \(channelPair.left), right \(channelPair.right)), \(Int(sampleRate)) Hz, \(periodFrames) frames per read"
    }

    /// Reads the next period (at most `left.count` frames), blocking until it is complete or
    /// the stream ends.
    /// - Returns: frames read; 0 at the end of the stream.
    /// - Throws: ``SoundFileError/readFailed(path:reason:)`` when reading fails.
    public func read(left: UnsafeMutableBufferPointer<Float>, right: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let frames = min(left.count, right.count, periodFrames)
        guard frames > 0, !ended else { return 0 }
        let frameBytes = channelCount * encoding.bytesPerSample
        let wanted = frames * frameBytes
        var have = 0
        while have < wanted {
            let n = Glibc.read(descriptor, buffer.baseAddress! + have, wanted - have)
            if n > 0 { have += n; continue }
            if n == 0 { ended = true; break }
            let code = errno
            if code == EINTR || code == EAGAIN {
                if stopRequested() { ended = true; break }
                // A non-blocking descriptor (inherited that way): wait for data, not in a spin.
                // `poll` also returns on a signal, so Ctrl-C is still seen.
                if code == EAGAIN {
                    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&request, 1, -1)
                }
                continue
            }
            throw SoundFileError.readFailed(path: name, reason: String(cString: strerror(code)))
        }
        lastReadTime = MonotonicClock.now()
        let got = have / frameBytes
        if ended, have % frameBytes != 0 {
            warnings.append("\(name): ended part-way through a frame; the last \(have % frameBytes) bytes were ignored")
        }
        guard got > 0 else { return 0 }
        encoding.deinterleave(
            UnsafeRawBufferPointer(buffer), frames: got, channels: channelCount,
            leftChannel: channelPair.left - 1, rightChannel: channelPair.right - 1, left: left, right: right)
        framesCaptured += got
        return got
    }
}
