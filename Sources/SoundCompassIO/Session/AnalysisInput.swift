import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a whole recording comes from: a sound file, raw PCM, or samples in memory.
public enum AnalysisInput: Sendable {
    /// A sound file libsndfile reads (WAV, FLAC, AIFF, Ogg, …), block by block; `-` is standard
    /// input (a redirected file, or a pipe read front to back: a format that must seek fails
    /// with ``SoundFileError/needsSeeking(path:format:)``).
    case file(path: String)
    /// Headerless interleaved PCM (as `synth --file-format raw-f32le` writes) from a file, or
    /// `-` for standard input.
    case raw(path: String, format: RawPCMFormat)
    /// A whole sound file's bytes in memory (standard input read to its end, say).
    case encoded(bytes: [UInt8], name: String)
    /// Two channels in memory (a rendered scene, a test signal), at `sampleRate` Hz.
    case samples(left: [Float], right: [Float], sampleRate: Double, name: String)
    /// A sound file on standard input (descriptor 0) that messages call `name`: a FIFO copied
    /// there by ``rereadable(fifo:raw:limit:)``.
    case standardInput(name: String)

    /// The input's name for messages: the path ("standard input" for `-`), or the given name.
    public var name: String {
        switch self {
        case .file(let path), .raw(let path, _): path == "-" ? "standard input" : path
        case .encoded(_, let name), .samples(_, _, _, let name), .standardInput(let name): name
        }
    }

    /// Standard input as an input that can be read more than once (as calibration does), in
    /// bounded memory: a redirected file as it is; a pipe copied, as it is read, to an unlinked
    /// temporary file (in `TMPDIR`, else `/tmp`), which then becomes standard input (descriptor
    /// 0), so that it reads as a redirected file would. The pipe's first mebibyte must open as a
    /// sound file (unless `raw` is given) before the rest is copied, so that a stream of
    /// something else is refused at once.
    /// - Parameters:
    ///   - raw: the layout when standard input is raw PCM; `nil` for a sound file.
    ///   - limit: the most bytes copied.
    /// - Throws: ``SoundFileError`` naming "standard input": a terminal, not a sound file, a read
    ///   error, a copy that cannot be written, or more than `limit` bytes.
    public static func rereadableStandardInput(raw: RawPCMFormat? = nil, limit: Int = 1 << 32) throws(SoundFileError)
        -> AnalysisInput
    {
        try rereadableStandardInput(raw: raw, limit: limit, name: SoundFile.standardInputName)
    }

    /// A FIFO (named pipe) as an input that can be read more than once: it is opened (which waits
    /// for a writer), made standard input and copied as ``rereadableStandardInput(raw:limit:)``
    /// copies a pipe. A FIFO cannot be opened a second time for the same stream: its writer has
    /// gone, and a second open would wait for another writer for ever.
    /// - Parameters:
    ///   - path: the FIFO; errors while it is copied name it.
    ///   - raw: the layout when the FIFO carries raw PCM; `nil` for a sound file.
    ///   - limit: the most bytes copied.
    /// - Throws: ``SoundFileError`` naming `path`.
    public static func rereadable(fifo path: String, raw: RawPCMFormat? = nil, limit: Int = 1 << 32) throws(SoundFileError)
        -> AnalysisInput
    {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard dup2(fd, 0) == 0 else { throw .readFailed(path: path, reason: String(cString: strerror(errno))) }
        return try rereadableStandardInput(raw: raw, limit: limit, name: path)
    }

    private static func rereadableStandardInput(raw: RawPCMFormat?, limit: Int, name: String) throws(SoundFileError)
        -> AnalysisInput
    {
        // Raw PCM from a FIFO is read as standard input, and messages then call it that.
        let input: AnalysisInput = raw.map { .raw(path: "-", format: $0) }
            ?? (name == SoundFile.standardInputName ? .file(path: "-") : .standardInput(name: name))
        if InputFile.regularFileSize(0) != nil { return input }
        if isatty(0) != 0 {
            throw .unreadable(path: name, reason: "it is a terminal; pipe a sound file into it or redirect one (< take.wav)")
        }
        let spool = try Spool(name: name)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        var copied = 0
        var probe: [UInt8]? = raw == nil ? [] : nil
        while true {
            switch InputFile.read(0, into: chunk.baseAddress!, count: chunk.count, stopRequested: { false }) {
            case .failed(let reason): throw .readFailed(path: name, reason: reason)
            case .ended:
                if let probe { try Self.probe(probe, name: name) }
                try spool.becomeStandardInput()
                return input
            case .bytes(let n):
                copied += n
                guard copied <= limit else {
                    throw .unreadable(path: name, reason: "longer than \(InputFile.describe(bytes: limit)); give the file name instead")
                }
                try spool.write(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
                if let bytes = probe {
                    let more = bytes + UnsafeRawBufferPointer(rebasing: chunk[0..<n])
                    if more.count >= 1 << 20 {
                        try Self.probe(more, name: name)
                        probe = nil
                    } else {
                        probe = more
                    }
                }
            }
        }
    }

    /// Refuses, with libsndfile's reason, a stream whose first bytes do not open as a sound file.
    private static func probe(_ bytes: [UInt8], name: String) throws(SoundFileError) {
        if bytes.isEmpty { throw .empty(path: name) }
        do {
            _ = try SoundFile.open(stream: ByteStream(bytes: bytes), name: name)
        } catch {
            if case .unrecognized = error { throw error }
        }
    }

    /// An unlinked temporary file that standard input is copied to.
    private final class Spool {
        let descriptor: Int32
        let directory: String
        let name: String

        init(name: String) throws(SoundFileError) {
            self.name = name
            let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            self.directory = directory
            var template = Array((directory + "/soundcompass-stdin-XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else {
                throw .readFailed(path: name, reason: "cannot create a temporary copy in \(directory): \(String(cString: strerror(errno)))")
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            descriptor = fd
        }

        deinit { if descriptor >= 0 { close(descriptor) } }

        func write(_ bytes: UnsafeRawBufferPointer) throws(SoundFileError) {
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw .readFailed(
                        path: name, reason: "writing a temporary copy in \(directory) failed: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }

        /// Makes the copy descriptor 0, read from its start.
        func becomeStandardInput() throws(SoundFileError) {
            guard lseek(descriptor, 0, SEEK_SET) == 0, dup2(descriptor, 0) == 0 else {
                throw .readFailed(path: name, reason: "cannot read the temporary copy: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Opens the input from its start.
    /// - Parameters:
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    /// - Throws: ``SoundFileError`` naming the input.
    public func open(channels: (left: Int, right: Int)? = nil, swap: Bool = false) throws(SoundFileError)
        -> any StereoSource
    {
        switch self {
        case .file(let path):
            return try SoundFileReader(path: path, channels: channels, swap: swap)
        case .raw(let path, let format):
            return try RawPCMSource(
                path: path, encoding: format.encoding, sampleRate: format.sampleRate, channelCount: format.channelCount,
                channels: channels, swap: swap, periodFrames: 4096)
        case .encoded(let bytes, let name):
            return try SoundFileReader(bytes: bytes, name: name, channels: channels, swap: swap)
        case .standardInput(let name):
            return try SoundFileReader(file: SoundFile.openStandardInput(name: name), path: name, channels: channels, swap: swap)
        case .samples(let left, let right, let sampleRate, let name):
            let pair = try SoundFileReader.channelPair(channels, swap: swap, of: 2, path: name)
            let swapped = pair.left == 2
            return MemoryStereoSource(
                left: swapped ? right : left, right: swapped ? left : right, sampleRate: sampleRate, name: name)
        }
    }
}

/// Where a live stream comes from: raw PCM on a pipe or in a file, or an ALSA capture device.
public enum CaptureInput: Sendable {
    /// Interleaved raw PCM from a file or FIFO, or `-` for standard input. `channelCount` is the
    /// channels per frame; `nil` for 2. When the input starts with a sound file header (WAV,
    /// AIFF, FLAC, Ogg, …) it is read as that file instead (a ``SoundFileCaptureSource``: its
    /// rate and channels come from the header, and `encoding`, `channelCount` and the
    /// `sampleRate` given to ``open(sampleRate:periodFrames:channels:swap:stopRequested:)`` are
    /// not used).
    case rawPCM(path: String, encoding: PCMEncoding, channelCount: Int?)
    /// An ALSA capture device (any PCM name `arecord -D` takes). `encoding` `nil` tries
    /// ``PCMEncoding/preference`` in order; `channelCount` `nil` lets the device choose.
    case device(name: String, encoding: PCMEncoding?, channelCount: Int?)

    /// The input's name for messages.
    public var name: String {
        switch self {
        case .rawPCM(let path, _, _): path == "-" ? "standard input" : path
        case .device(let name, _, _): name
        }
    }

    /// Opens the stream.
    /// - Parameters:
    ///   - sampleRate: Hz (a device may give the nearest it supports).
    ///   - periodFrames: frames read at a time.
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    ///   - stopRequested: asked when a read is interrupted by a signal; `true` ends the stream.
    /// - Throws: ``SoundFileError`` for raw PCM, ``ALSAError`` for a device.
    public func open(
        sampleRate: Int, periodFrames: Int, channels: (left: Int, right: Int)? = nil, swap: Bool = false,
        stopRequested: @escaping @Sendable () -> Bool = { false }
    ) throws -> any CaptureSource {
        try open(
            sampleRate: sampleRate, periodFrames: periodFrames, channels: channels, swap: swap,
            stopRequested: stopRequested, injectedFaults: [:])
    }

    /// Opens the stream, with a device's read calls (1-based) that report these negative errnos
    /// instead of reading (a test seam, see ``ALSACaptureSettings/injectedFaults``; raw PCM
    /// ignores it). Parameters otherwise as ``open(sampleRate:periodFrames:channels:swap:stopRequested:)``.
    package func open(
        sampleRate: Int, periodFrames: Int, channels: (left: Int, right: Int)? = nil, swap: Bool = false,
        stopRequested: @escaping @Sendable () -> Bool = { false }, injectedFaults: [Int: Int32]
    ) throws -> any CaptureSource {
        switch self {
        case .rawPCM(let path, let encoding, let channelCount):
            let source = try SoundFileCaptureSource.open(
                path: path, raw: RawPCMFormat(encoding: encoding, sampleRate: sampleRate, channelCount: channelCount ?? 2),
                channels: channels, swap: swap, periodFrames: periodFrames, stopRequested: stopRequested)
            (source as? RawPCMSource)?.stopRequested = stopRequested
            return source
        case .device(let name, let encoding, let channelCount):
            var settings = ALSACaptureSettings(
                device: name, sampleRate: sampleRate, periodFrames: periodFrames, channels: channels,
                channelCount: channelCount, encoding: encoding, swap: swap)
            settings.injectedFaults = injectedFaults
            let source = try ALSACaptureSource(settings: settings)
            source.stopRequested = stopRequested
            return source
        }
    }
}

/// Where the listener's yaw comes from, to resolve front from back.
public enum IMUInput: Sendable {
    /// A whole IMU log read at once, for a recording; it must overlap the recording when the
    /// recording's length is known.
    case log(path: String, format: IMUFormat)
    /// An IMU log another program is still writing, followed as a live stream plays. `offset`
    /// is the seconds added to IMU time, or `nil` to take the newest row at start as "now"
    /// (the format's own offset is ignored).
    case follow(path: String, format: IMUFormat, offset: Double?)
}
