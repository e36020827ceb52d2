import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads two channels of any file libsndfile understands (WAV incl. 24-bit and WAVE_EXTENSIBLE,
/// FLAC, AIFF, Ogg Vorbis, …) block by block in constant memory.
public final class SoundFileReader: StereoSource {
    /// The file's path (`-` for standard input).
    public let path: String
    /// The path, or "standard input".
    public var name: String { file.path }
    /// Sample rate in Hz.
    public let sampleRate: Double
    /// Channels in the file.
    public let fileChannels: Int
    /// The 1-based channels read as left and right.
    public let channelPair: (left: Int, right: Int)
    /// Frames the header declares (`nil` when it cannot say: Ogg on a pipe).
    public var expectedFrameCount: Int? { file.declaredFrames >= 0 ? file.declaredFrames : nil }
    /// True when ``skip(frames:)`` seeks rather than reads (a file; not a pipe).
    public var isSeekable: Bool { file.seekable }
    /// A human-readable name of the file's format.
    public var formatDescription: String { file.formatDescription }
    /// Frames read so far.
    public private(set) var framesRead = 0
    public private(set) var warnings: [String] = []

    private let file: SoundFile
    private var interleaved: [Float] = []
    private var truncationReported = false
    /// True once the end of the audio was checked for what was lost.
    private var endChecked = false

    /// Opens a file and checks that it can feed a stereo analysis.
    /// - Parameters:
    ///   - path: the file, or `-` for standard input (a redirected file, or a pipe read front
    ///     to back; messages call it "standard input").
    ///   - channels: 1-based channel numbers for left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    /// - Throws: ``SoundFileError`` naming the file and the problem.
    public convenience init(path: String, channels: (left: Int, right: Int)? = nil, swap: Bool = false) throws(SoundFileError) {
        let file = path == "-" ? try SoundFile.openStandardInput() : try SoundFile.openForReading(path: path)
        try self.init(file: file, path: path, channels: channels, swap: swap)
    }

    /// Reads a whole sound file's bytes held in memory.
    /// - Parameters:
    ///   - bytes: the file's bytes (any format libsndfile reads).
    ///   - name: a name for messages.
    ///   - channels: 1-based channel numbers for left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    /// - Throws: ``SoundFileError`` naming `name` and the problem.
    public convenience init(bytes: [UInt8], name: String, channels: (left: Int, right: Int)? = nil, swap: Bool = false)
        throws(SoundFileError)
    {
        let file = try SoundFile.open(stream: ByteStream(bytes: bytes), name: name)
        try self.init(file: file, path: name, channels: channels, swap: swap)
    }

    init(file: SoundFile, path given: String, channels: (left: Int, right: Int)?, swap: Bool) throws(SoundFileError) {
        let path = file.path
        guard file.declaredFrames != 0 else { throw .noAudio(path: path) }
        let pair = try Self.channelPair(channels, swap: swap, of: file.channels, path: path)
        guard Double(file.sampleRate) >= AnalysisConfiguration.minimumSampleRate else {
            throw .sampleRateTooLow(path: path, rate: file.sampleRate)
        }
        guard Double(file.sampleRate) <= AnalysisConfiguration.maximumSampleRate else {
            throw .sampleRateTooHigh(path: path, rate: file.sampleRate)
        }
        self.file = file
        self.path = given
        self.sampleRate = Double(file.sampleRate)
        self.fileChannels = file.channels
        self.channelPair = pair
        if let declared = Self.truncationNote(file.logInfo) {
            warnings.append("\(file.path): file is truncated (\(declared)); analysing the audio that is there")
            truncationReported = true
        }
    }

    /// Checks a choice of two channels against a stream's channel count and applies `swap`.
    /// - Parameters:
    ///   - requested: 1-based channel numbers for left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    ///   - channels: how many channels the stream has.
    ///   - path: the stream's name, for the error.
    /// - Returns: the 1-based channels to read as left and right.
    /// - Throws: ``SoundFileError`` when the stream has fewer than two channels, a channel does
    ///   not exist or both sides pick the same one.
    public static func channelPair(
        _ requested: (left: Int, right: Int)?, swap: Bool, of channels: Int, path: String
    ) throws(SoundFileError) -> (left: Int, right: Int) {
        guard channels >= 2 else { throw .tooFewChannels(path: path, channels: channels) }
        let pair = requested ?? (1, 2)
        for c in [pair.left, pair.right] where c < 1 || c > channels {
            throw .channelOutOfRange(path: path, channel: c, channels: channels)
        }
        guard pair.left != pair.right else { throw .sameChannelTwice(path: path, channel: pair.left) }
        return swap ? (pair.right, pair.left) : pair
    }

    /// Reads up to `min(left.count, right.count)` frames of the chosen channels.
    /// - Returns: frames read; 0 at the end of the file.
    /// - Throws: ``SoundFileError/readFailed(path:reason:)`` when libsndfile fails part way.
    public func read(left: inout MutableSpan<Float>, right: inout MutableSpan<Float>) throws(SoundFileError) -> Int {
        try withBuffers(&left, &right) { (left, right) throws(SoundFileError) -> Int in try read(into: left, right) }
    }

    private func read(into left: UnsafeMutableBufferPointer<Float>, _ right: UnsafeMutableBufferPointer<Float>) throws(SoundFileError) -> Int {
        let frames = min(left.count, right.count)
        let channels = fileChannels
        if interleaved.count < frames * channels {
            interleaved = [Float](repeating: 0, count: frames * channels)
        }
        let l = channelPair.left - 1, r = channelPair.right - 1
        let framesBefore = framesRead
        let got = try interleaved.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) -> Int in
            let got: Int
            do throws(SoundFileError) {
                got = try file.readFrames(into: buffer.baseAddress!, frames: frames)
            } catch {
                // The decoder gave up part way (a FLAC that loses sync): the audio ends here.
                guard case .damaged(_, let reason) = error, framesBefore > 0 else { throw error }
                noteLoss("decoding stopped (\(reason))")
                return 0
            }
            var i = 0
            if channels == 2, l == 0, r == 1, let lp = left.baseAddress, let rp = right.baseAddress {
                // A stereo file in order: eight frames at a time.
                let raw = UnsafeRawPointer(buffer.baseAddress!)
                while i + 8 <= got {
                    let pair = raw.loadUnaligned(fromByteOffset: 2 * i * MemoryLayout<Float>.stride, as: SIMD16<Float>.self)
                    UnsafeMutableRawPointer(lp + i).storeBytes(of: pair.evenHalf, as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(rp + i).storeBytes(of: pair.oddHalf, as: SIMD8<Float>.self)
                    i += 8
                }
            }
            while i < got {
                left[i] = buffer[i * channels + l]
                right[i] = buffer[i * channels + r]
                i += 1
            }
            return got
        }
        framesRead += got
        if got == 0, !endChecked, !truncationReported, !file.stoppedEarly {
            endChecked = true
            // Once, at the end: only Ogg needs its log read (no allocation for the others).
            if file.isOgg, let loss = Self.lossNote(file.logInfo) {
                noteLoss(loss)
            } else if framesRead < file.declaredFrames {
                warnings.append(
                    "\(name): file is truncated (header declares \(file.declaredFrames) frames, \(framesRead) present); analysed what is there")
                truncationReported = true
            }
        }
        return got
    }

    /// One warning for audio lost to damage or truncation the header's frame count does not
    /// show: what was lost, and how much was analysed.
    private func noteLoss(_ what: String) {
        guard !truncationReported else { return }
        truncationReported = true
        let seconds = formatTrimmed(Double(framesRead) / sampleRate, 3)
        let declared = file.declaredFrames > framesRead ? "; the header declares \(file.declaredFrames)" : ""
        warnings.append("\(name): file is damaged or truncated: \(what); analysed the \(framesRead) frames that decoded (\(seconds) s\(declared))")
    }

    /// What libsndfile's log says was lost in a container whose header gives no frame count to
    /// check (Ogg): a stream that ends without its end-of-stream page (cut short), or bytes
    /// skipped as unreadable (damaged pages).
    static func lossNote(_ log: String) -> String? {
        var skipped = 0, holes = 0, unterminated = false
        for line in log.split(whereSeparator: \.isNewline) {
            if line.contains("without an End-Of-Stream flag") { unterminated = true }
            if line.contains("reports a hole") { holes += 1 }
            if line.contains("Skipped"), line.contains("looking for the next page") {
                skipped += line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.first ?? 0
            }
        }
        var parts: [String] = []
        if skipped > 0 || holes > 0 {
            parts.append("\(skipped) bytes in \(max(holes, 1)) place\(max(holes, 1) == 1 ? "" : "s") could not be decoded and were skipped")
        }
        if unterminated { parts.append("the Ogg stream ends without its end-of-stream page (cut short)") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Passes over the next `frames` frames: seeks in a file, reads and discards from a pipe.
    /// - Returns: frames passed over (fewer at the end of the input).
    public func skip(frames: Int) throws -> Int {
        if file.seekable, let total = expectedFrameCount {
            let target = min(framesRead + frames, total)
            if file.seek(toFrame: target) {
                defer { framesRead = target }
                return target - framesRead
            }
        }
        return try discard(frames: frames)
    }

    /// libsndfile writes "data : 384000 (should be 942)" into its log for a short data chunk:
    /// the header's byte count, then what the file holds. Returns them in words.
    static func truncationNote(_ log: String) -> String? {
        for line in log.split(whereSeparator: \.isNewline)
        where line.drop(while: \.isWhitespace).hasPrefix("data") && line.contains(": ") && line.contains("(should be") {
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count >= 2 else { return "the header declares more audio than the file holds" }
            return "the header declares \(numbers[0]) bytes of audio, the file holds \(numbers[1])"
        }
        return nil
    }
}
