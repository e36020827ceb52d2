import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads two channels of any file libsndfile understands (WAV incl. 24-bit and WAVE_EXTENSIBLE,
/// FLAC, AIFF, Ogg Vorbis, …) block by block in constant memory.
public final class SoundFileReader: StereoSource {
    /// The file's path.
    public let path: String
    public var name: String { path }
    /// Sample rate in Hz.
    public let sampleRate: Double
    /// Channels in the file.
    public let fileChannels: Int
    /// The 1-based channels read as left and right.
    public let channelPair: (left: Int, right: Int)
    /// Frames the header declares.
    public var expectedFrameCount: Int? { file.declaredFrames }
    /// A human-readable name of the file's format.
    public var formatDescription: String { file.formatDescription }
    /// Frames read so far.
    public private(set) var framesRead = 0
    public private(set) var warnings: [String] = []

    private let file: SoundFile
    private var interleaved: [Float] = []
    private var truncationReported = false

    /// Opens a file and checks that it can feed a stereo analysis.
    /// - Parameters:
    ///   - path: the file.
    ///   - channels: 1-based channel numbers for left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    /// - Throws: ``SoundFileError`` naming the file and the problem.
    public init(path: String, channels: (left: Int, right: Int)? = nil, swap: Bool = false) throws(SoundFileError) {
        let file = try SoundFile.openForReading(path: path)
        guard file.declaredFrames > 0 else { throw .noAudio(path: path) }
        let pair = try Self.channelPair(channels, swap: swap, of: file.channels, path: path)
        guard Double(file.sampleRate) >= AnalysisConfiguration.minimumSampleRate else {
            throw .sampleRateTooLow(path: path, rate: file.sampleRate)
        }
        guard Double(file.sampleRate) <= AnalysisConfiguration.maximumSampleRate else {
            throw .sampleRateTooHigh(path: path, rate: file.sampleRate)
        }
        self.file = file
        self.path = path
        self.sampleRate = Double(file.sampleRate)
        self.fileChannels = file.channels
        self.channelPair = pair
        if let declared = Self.truncationNote(file.logInfo) {
            warnings.append("\(path): file is truncated (\(declared)); analysing the audio that is there")
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

    /// Reads up to `left.count` frames of the chosen channels.
    /// - Returns: frames read; 0 at the end of the file.
    public func read(left: UnsafeMutableBufferPointer<Float>, right: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let frames = min(left.count, right.count)
        let channels = fileChannels
        if interleaved.count < frames * channels {
            interleaved = [Float](repeating: 0, count: frames * channels)
        }
        let l = channelPair.left - 1, r = channelPair.right - 1
        let got = try interleaved.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) -> Int in
            let got = try file.readFrames(into: buffer.baseAddress!, frames: frames)
            for i in 0..<got {
                left[i] = buffer[i * channels + l]
                right[i] = buffer[i * channels + r]
            }
            return got
        }
        framesRead += got
        if got == 0, framesRead < file.declaredFrames, !truncationReported {
            warnings.append(
                "\(path): file is truncated (header declares \(file.declaredFrames) frames, \(framesRead) present); analysed what is there")
            truncationReported = true
        }
        return got
    }

    /// libsndfile writes "data : 384000 (should be 942)" into its log for a short data chunk.
    static func truncationNote(_ log: String) -> String? {
        for line in log.split(whereSeparator: \.isNewline)
        where line.drop(while: \.isWhitespace).hasPrefix("data") && line.contains(": ") && line.contains("(should be") {
            let text = line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            return "libsndfile: \(text)"
        }
        return nil
    }
}

/// Writes stereo (or multichannel) audio files through libsndfile.
public final class SoundFileWriter {
    /// Formats the writer produces.
    public enum Format: String, Sendable, CaseIterable {
        /// WAV, 32-bit float.
        case wavFloat = "wav-float"
        /// WAV, 16-bit PCM.
        case wav16 = "wav16"
        /// WAV, 24-bit PCM.
        case wav24 = "wav24"
        /// WAVE_EXTENSIBLE, 24-bit PCM.
        case wavex24 = "wavex24"
        /// FLAC, 16-bit.
        case flac16 = "flac16"
        /// FLAC, 24-bit.
        case flac24 = "flac24"
        /// AIFF, 16-bit PCM.
        case aiff16 = "aiff16"
        /// Ogg Vorbis (lossy).
        case ogg = "ogg"
        /// Headerless interleaved 32-bit float, little-endian (for replaying through ALSA's
        /// file plugin or `live --input`).
        case rawF32 = "raw-f32le"
        /// Headerless interleaved 16-bit PCM, little-endian.
        case rawS16 = "raw-s16le"
        /// Headerless interleaved 32-bit PCM, little-endian.
        case rawS32 = "raw-s32le"

        /// True for the raw formats, which carry no header and so cannot be read back as a
        /// sound file (read them with ``RawPCMSource``).
        public var isHeaderless: Bool { self == .rawF32 || self == .rawS16 || self == .rawS32 }

        var soundFileFormat: SoundFile.WriteFormat {
            switch self {
            case .wavFloat: .wavFloat
            case .wav16: .wav16
            case .wav24: .wav24
            case .wavex24: .wavex24
            case .flac16: .flac16
            case .flac24: .flac24
            case .aiff16: .aiff16
            case .ogg: .oggVorbis
            case .rawF32: .rawFloat
            case .rawS16: .raw16
            case .rawS32: .raw32
            }
        }
    }

    private let file: SoundFile
    /// Channels per frame.
    public let channels: Int

    /// Creates or replaces `path`.
    /// - Throws: ``SoundFileError/cannotCreate(path:reason:)``.
    public init(path: String, sampleRate: Int, channels: Int = 2, format: Format = .wavFloat) throws(SoundFileError) {
        precondition(channels >= 1)
        self.file = try SoundFile.openForWriting(
            path: path, sampleRate: sampleRate, channels: channels, format: format.soundFileFormat)
        self.channels = channels
    }

    /// Appends frames given as one array per channel (all the same length).
    public func write(channels data: [[Float]]) throws(SoundFileError) {
        precondition(data.count == channels && data.allSatisfy { $0.count == data[0].count })
        let frames = data[0].count
        let block = 8192
        var interleaved = [Float](repeating: 0, count: block * channels)
        var start = 0
        while start < frames {
            let n = min(block, frames - start)
            for i in 0..<n { for c in 0..<channels { interleaved[i * channels + c] = data[c][start + i] } }
            try interleaved.withUnsafeBufferPointer { buffer throws(SoundFileError) in
                try file.writeFrames(buffer.baseAddress!, frames: n)
            }
            start += n
        }
    }

    /// Finishes the file (writes the header sizes). Also done on deinit.
    public func close() { file.close() }
}
