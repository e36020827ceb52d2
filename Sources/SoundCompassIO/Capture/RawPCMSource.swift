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
    /// Frames a regular file holds (its size over the frame size); `nil` for a pipe.
    public let expectedFrameCount: Int?
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
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    private var ended = false
    /// Bytes at the front of `buffer` read (by the plausibility check) but not yet delivered.
    private var pending = 0
    private var partialFrameReported = false

    /// - Parameters:
    ///   - path: a file or FIFO to read, or `-` for standard input.
    ///   - encoding: the samples' encoding.
    ///   - sampleRate: the stream's rate, Hz (raw PCM does not say).
    ///   - channelCount: channels per frame in the stream.
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    ///   - periodFrames: frames returned per read.
    /// - Throws: ``SoundFileError`` naming the input: missing, unreadable, a directory, a
    ///   channel choice the stream cannot meet, or a first period that does not decode
    ///   plausibly as `encoding` (``SoundFileError/implausibleSamples(path:encoding:nonFinitePercent:peakDBFS:likely:)``).
    ///   The first period is read here, to check it.
    public convenience init(
        path: String, encoding: PCMEncoding, sampleRate: Int, channelCount: Int = 2,
        channels: (left: Int, right: Int)? = nil, swap: Bool = false, periodFrames: Int = 1024
    ) throws(SoundFileError) {
        try self.init(
            path: path, descriptor: nil, prefix: [], encoding: encoding, sampleRate: sampleRate,
            channelCount: channelCount, channels: channels, swap: swap, periodFrames: periodFrames)
    }

    /// As the public initializer; `descriptor`, when given, is read instead of opening `path`,
    /// after `prefix`: bytes already read from it. The source owns a given descriptor from
    /// the call on, whether it returns or throws: it is closed with the source, or before the
    /// error is thrown (standard input, descriptor 0, never).
    package init(
        path: String, descriptor given: Int32?, prefix: [UInt8], encoding: PCMEncoding, sampleRate: Int,
        channelCount: Int, channels: (left: Int, right: Int)?, swap: Bool, periodFrames: Int
    ) throws(SoundFileError) {
        precondition(periodFrames > 0)
        let pair: (left: Int, right: Int)
        do {
            pair = try Self.validate(
                path: path, channelCount: channelCount, channels: channels, swap: swap,
                sampleRate: sampleRate, periodFrames: periodFrames)
        } catch {
            // Found by the rawpcm fuzz target: each refused stream leaked its descriptor.
            if let given, given != 0 { close(given) }
            throw error
        }
        if let given {
            descriptor = given
        } else if path == "-" {
            descriptor = 0
        } else {
            do { descriptor = try InputFile.open(path) } catch { throw SoundFileError(path: path, failure: error) }
        }
        ownsDescriptor = descriptor != 0
        let frameBytes = channelCount * encoding.bytesPerSample
        // A torn last frame is reported when the read reaches it.
        expectedFrameCount = InputFile.regularFileSize(descriptor).map { ($0 - prefix.count) / frameBytes }
        self.path = path
        self.encoding = encoding
        self.sampleRate = Double(sampleRate)
        self.channelCount = channelCount
        self.channelPair = pair
        self.periodFrames = periodFrames
        self.buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(periodFrames * frameBytes, prefix.count), alignment: 16)
        prefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
        pending = prefix.count
        // A refusal from here on deinitialises the source, which closes the descriptor.
        try checkFirstPeriod()
    }

    /// Checks the stream's layout and rate before anything is opened or allocated.
    /// - Returns: the channel pair to read (0-based left, right).
    private static func validate(
        path: String, channelCount: Int, channels: (left: Int, right: Int)?, swap: Bool, sampleRate: Int, periodFrames: Int
    ) throws(SoundFileError) -> (left: Int, right: Int) {
        let label = path == "-" ? "standard input" : path
        guard channelCount <= CaptureLimits.maximumChannelCount else {
            throw .tooManyChannels(path: label, channels: channelCount)
        }
        guard CaptureLimits.periodFits(frames: periodFrames, channels: channelCount) else {
            throw .periodTooLarge(path: label, frames: periodFrames, channels: channelCount)
        }
        let pair: (left: Int, right: Int)
        do {
            pair = try SoundFileReader.channelPair(channels, swap: swap, of: channelCount, path: label)
        } catch .channelOutOfRange(let path, let channel, let count) {
            throw .rawChannelOutOfRange(path: path, channel: channel, channels: count)
        }
        guard Double(sampleRate) >= AnalysisConfiguration.minimumSampleRate else {
            throw .sampleRateTooLow(path: label, rate: sampleRate)
        }
        guard Double(sampleRate) <= AnalysisConfiguration.maximumSampleRate else {
            throw .sampleRateTooHigh(path: label, rate: sampleRate)
        }
        return pair
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    /// Reads the first period and refuses it when it does not decode plausibly.
    private func checkFirstPeriod() throws(SoundFileError) {
        let wanted = periodFrames * channelCount * encoding.bytesPerSample
        pending = try fill(from: pending, to: max(wanted, pending))
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<pending])
        let decoded = encoding.decoding(of: bytes, channels: channelCount)
        guard !decoded.isPlausible else {
            if let warning = encoding.mismatchWarning(decoded, bytes: bytes, channels: channelCount, name: name) {
                warnings.append(warning)
            }
            return
        }
        throw .implausibleSamples(
            path: name, encoding: encoding, nonFinitePercent: decoded.nonFinitePercent, peakDBFS: decoded.peakDBFS,
            likely: PCMEncoding.likeliest(for: bytes, channels: channelCount))
    }

    /// Reads into `buffer` from byte `have` until byte `wanted`, the end of the stream or a stop.
    /// - Returns: the bytes in `buffer`.
    private func fill(from start: Int, to wanted: Int) throws(SoundFileError) -> Int {
        var have = start
        while have < wanted && !ended {
            switch InputFile.read(descriptor, into: buffer.baseAddress! + have, count: wanted - have, stopRequested: stopRequested) {
            case .bytes(let n): have += n
            case .ended: ended = true
            case .failed(let reason): throw SoundFileError.readFailed(path: name, reason: reason)
            }
        }
        return have
    }

    public var streamDescription: String {
        "\(name): raw \(encoding.rawValue), \(channelCount) channels (left \(channelPair.left), right \(channelPair.right)), \(Int(sampleRate)) Hz, \(periodFrames) frames per read"
    }

    /// Reads the next period (at most `min(left.count, right.count)` frames), blocking until it
    /// is complete or the stream ends.
    /// - Returns: frames read; 0 at the end of the stream.
    /// - Throws: ``SoundFileError/readFailed(path:reason:)`` when reading fails.
    public func read(left: inout MutableSpan<Float>, right: inout MutableSpan<Float>) throws(SoundFileError) -> Int {
        try withBuffers(&left, &right) { (left, right) throws(SoundFileError) -> Int in try read(into: left, right) }
    }

    private func read(into left: UnsafeMutableBufferPointer<Float>, _ right: UnsafeMutableBufferPointer<Float>) throws(SoundFileError) -> Int {
        let frames = min(left.count, right.count, periodFrames)
        guard frames > 0, !ended || pending > 0 else { return 0 }
        let frameBytes = channelCount * encoding.bytesPerSample
        let wanted = frames * frameBytes
        let have = try fill(from: min(pending, wanted), to: wanted)
        let leftOver = pending - min(pending, wanted)
        lastReadTime = MonotonicClock.now()
        let got = have / frameBytes
        if ended, leftOver == 0, have % frameBytes != 0, !partialFrameReported {
            partialFrameReported = true
            warnings.append("\(name): ended part-way through a frame; the last \(have % frameBytes) bytes were ignored")
        }
        guard got > 0 else { pending = 0; return 0 }
        encoding.deinterleave(
            UnsafeRawBufferPointer(buffer), frames: got, channels: channelCount,
            leftChannel: channelPair.left - 1, rightChannel: channelPair.right - 1, left: left, right: right)
        // Bytes the check read beyond this period move to the front for the next read.
        let rest = have - got * frameBytes + leftOver
        if rest > 0 {
            (buffer.baseAddress! + 0).copyMemory(from: buffer.baseAddress! + got * frameBytes, byteCount: rest)
        }
        pending = rest
        framesCaptured += got
        return got
    }
}
