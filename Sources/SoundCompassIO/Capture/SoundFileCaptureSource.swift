import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A sound file (WAV, AIFF, FLAC, Ogg, …) read period by period as a live stream
/// (``CaptureSource``): `live --input take.wav`, or a sound file piped into standard input. The
/// rate and channels come from its header.
public final class SoundFileCaptureSource: CaptureSource {
    /// The file read.
    public let reader: SoundFileReader
    public let periodFrames: Int
    public var name: String { reader.name }
    public var sampleRate: Double { reader.sampleRate }
    public var expectedFrameCount: Int? { reader.expectedFrameCount }
    public var warnings: [String] { reader.warnings }
    public var overrunCount: Int { 0 }
    public var suspendCount: Int { 0 }
    public private(set) var lastReadTime: UInt64 = 0

    /// - Parameters:
    ///   - reader: the open file.
    ///   - periodFrames: frames returned per read at most.
    public init(reader: SoundFileReader, periodFrames: Int) {
        precondition(periodFrames > 0)
        self.reader = reader
        self.periodFrames = periodFrames
    }

    public var streamDescription: String {
        "\(name): \(reader.formatDescription), \(reader.fileChannels) channels (left \(reader.channelPair.left), right \(reader.channelPair.right)), \(Int(sampleRate)) Hz, \(periodFrames) frames per read"
    }

    /// Reads the next period (at most `min(left.count, right.count)` frames).
    /// - Returns: frames read; 0 at the end of the file.
    /// - Throws: ``SoundFileError/readFailed(path:reason:)`` when libsndfile fails part way.
    public func read(left: inout MutableSpan<Float>, right: inout MutableSpan<Float>) throws(SoundFileError) -> Int {
        let reader = self.reader
        let n = try withPrefixes(&left, &right, frames: periodFrames) { (left, right) throws(SoundFileError) -> Int in
            try reader.read(left: &left, right: &right)
        }
        lastReadTime = MonotonicClock.now()
        return n
    }

    /// Opens `path` (`-`: standard input) as a sound file when its first bytes are a sound file
    /// header, else as raw PCM; the bytes looked at are not lost on a pipe.
    /// - Parameter stopRequested: asked when a read from a pipe or FIFO is interrupted by a
    ///   signal; `true` ends the stream (Ctrl-C on a stream that stalls), for a sound file as for
    ///   raw PCM.
    static func open(
        path: String, raw: RawPCMFormat, channels: (left: Int, right: Int)?, swap: Bool, periodFrames: Int,
        stopRequested: @escaping @Sendable () -> Bool = { false }
    ) throws(SoundFileError) -> any CaptureSource {
        let name = path == "-" ? SoundFile.standardInputName : path
        let descriptor: Int32
        if path == "-" {
            descriptor = 0
        } else {
            do { descriptor = try InputFile.open(path) } catch { throw SoundFileError(path: path, failure: error) }
        }
        var prefix = [UInt8](repeating: 0, count: 12)
        var have = 0
        if InputFile.regularFileSize(descriptor) != nil {
            have = max(0, prefix.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 12, 0) })
            if path != "-" { close(descriptor) }
            prefix.removeLast(12 - have)
            if SoundFile.hasSoundFileHeader(prefix) {
                let reader = try SoundFileReader(path: path, channels: channels, swap: swap)
                return SoundFileCaptureSource(reader: reader, periodFrames: periodFrames)
            }
            return try RawPCMSource(
                path: path, encoding: raw.encoding, sampleRate: raw.sampleRate, channelCount: raw.channelCount,
                channels: channels, swap: swap, periodFrames: periodFrames)
        }
        // A pipe, FIFO or device: what is read to look is handed on.
        while have < 12 {
            let n = prefix.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + have, 12 - have) }
            if n > 0 { have += n; continue }
            if n < 0 && (errno == EINTR || errno == EAGAIN) {
                if stopRequested() { break }
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&request, 1, 100)
                continue
            }
            break
        }
        prefix.removeLast(12 - have)
        if SoundFile.hasSoundFileHeader(prefix) {
            let stream = ByteStream(descriptor: descriptor, prefix: prefix)
            stream.stopRequested = stopRequested
            let file = try SoundFile.open(stream: stream, name: name)
            let reader = try SoundFileReader(file: file, path: path, channels: channels, swap: swap)
            return SoundFileCaptureSource(reader: reader, periodFrames: periodFrames)
        }
        return try RawPCMSource(
            path: path, descriptor: descriptor, prefix: prefix, encoding: raw.encoding, sampleRate: raw.sampleRate,
            channelCount: raw.channelCount, channels: channels, swap: swap, periodFrames: periodFrames)
    }
}
