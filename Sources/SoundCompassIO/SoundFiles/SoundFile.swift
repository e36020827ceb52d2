import SoundCompassEngine
import CSndFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An open libsndfile handle. Every libsndfile call of the package is in this file.
final class SoundFile {
    private var handle: OpaquePointer?
    let path: String
    let channels: Int
    let sampleRate: Int
    /// Frames the header declares (may exceed what a truncated file holds).
    let declaredFrames: Int
    /// The major format and subtype codes (`SF_FORMAT_*`).
    let format: Int32
    /// True when ``seek(toFrame:)`` can work (a file, or bytes in memory; not a pipe).
    let seekable: Bool
    /// The bytes read through virtual I/O (a pipe, memory), kept alive with the handle.
    private let stream: ByteStream?
    /// True for an Ogg container (Vorbis, Opus), whose header declares no frame count to check.
    var isOgg: Bool { format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_OGG) }
    /// True when a pipe's stream ended because a stop was asked for (Ctrl-C), not at its end.
    var stoppedEarly: Bool { stream?.stopped ?? false }

    private init(handle: OpaquePointer, path: String, info: SF_INFO, seekable: Bool = true, stream: ByteStream? = nil) {
        self.handle = handle
        self.path = path
        self.channels = Int(info.channels)
        self.sampleRate = Int(info.samplerate)
        // Ogg read from a pipe cannot find its length and says INT64_MAX.
        self.declaredFrames = info.frames >= sf_count_t(Int32.max) * 1024 ? -1 : Int(info.frames)
        self.format = info.format
        self.seekable = seekable
        self.stream = stream
    }

    /// The name messages give standard input.
    static let standardInputName = "standard input"

    /// Opens standard input: a redirected file through its descriptor (seekable), a pipe through
    /// a ``ByteStream`` read front to back.
    /// - Throws: ``SoundFileError`` naming "standard input": a terminal, empty, not a sound
    ///   file, or a format that needs seeking.
    /// - Parameter name: what messages call it (a FIFO copied to standard input keeps its path).
    static func openStandardInput(name: String = standardInputName) throws(SoundFileError) -> SoundFile {
        if isatty(0) != 0 {
            throw .unreadable(
                path: name, reason: "it is a terminal; pipe a sound file into it or redirect one (< take.wav)")
        }
        if let size = InputFile.regularFileSize(0) {
            if size == 0 { throw .empty(path: name) }
            lseek(0, 0, SEEK_SET)
            var info = SF_INFO()
            guard let handle = sf_open_fd(0, Int32(SFM_READ), &info, 0) else {
                throw .unrecognized(path: name, reason: lastErrorMessage(nil))
            }
            return SoundFile(handle: handle, path: name, info: info)
        }
        return try open(stream: ByteStream(descriptor: 0), name: name)
    }

    /// Opens a sound file read through `stream` (libsndfile's virtual I/O). The corresponding C
    /// function is `sf_open_virtual`.
    static func open(stream: ByteStream, name: String) throws(SoundFileError) -> SoundFile {
        if stream.peek(1).isEmpty {
            if let reason = stream.readError { throw .readFailed(path: name, reason: reason) }
            throw .empty(path: name)
        }
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in
                // A pipe's length is unknown: a huge one makes every format read on.
                sf_count_t(ByteStream.from(user).knownLength ?? 4_294_967_295)
            },
            seek: { offset, whence, user in sf_count_t(ByteStream.from(user).seek(Int(offset), whence: whence)) },
            read: { pointer, count, user in
                guard let pointer else { return 0 }
                return sf_count_t(ByteStream.from(user).read(into: pointer, count: Int(count)))
            },
            write: nil,
            tell: { user in sf_count_t(ByteStream.from(user).position) })
        var info = SF_INFO()
        let user = Unmanaged.passUnretained(stream).toOpaque()
        guard let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, user) else {
            let reason = lastErrorMessage(nil)
            if stream.refusedSeek { throw .needsSeeking(path: name, format: formatName(of: stream.peek(12))) }
            throw .unrecognized(path: name, reason: reason)
        }
        return SoundFile(handle: handle, path: name, info: info, seekable: stream.knownLength != nil, stream: stream)
    }

    /// The format a file's first bytes announce, for messages.
    static func formatName(of bytes: [UInt8]) -> String {
        let tag = String(decoding: bytes.prefix(4), as: UTF8.self)
        switch tag {
        case "RIFF", "RIFX", "RF64": return "WAV"
        case "FORM": return bytes.count >= 12 && bytes[8...11].elementsEqual("AIFC".utf8) ? "AIFF-C" : "AIFF"
        case "fLaC": return "FLAC"
        case "OggS": return "Ogg"
        case "caff": return "CAF"
        default: return "this format"
        }
    }

    /// True when `bytes`, a file's first bytes, start with a sound file header (WAV, RF64,
    /// AIFF, FLAC, Ogg, CAF).
    static func hasSoundFileHeader(_ bytes: [UInt8]) -> Bool { formatName(of: bytes) != "this format" }

    /// Moves to frame `frame` (seekable files only). The corresponding C function is `sf_seek`.
    /// - Returns: false when the file cannot seek there.
    func seek(toFrame frame: Int) -> Bool {
        guard let handle, seekable else { return false }
        return sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0
    }

    deinit { close() }

    /// Opens a file for reading after checking that it exists, can be opened, is not a
    /// directory and is not empty. The corresponding C function is `sf_open`.
    static func openForReading(path: String) throws(SoundFileError) -> SoundFile {
        let descriptor: Int32
        // Non-blocking, so that checking a FIFO does not wait for a writer.
        do { descriptor = try InputFile.open(path, flags: O_NONBLOCK) } catch {
            throw SoundFileError(path: path, failure: error)
        }
        let size = InputFile.regularFileSize(descriptor)
        Glibc.close(descriptor)
        if size == 0 { throw .empty(path: path) }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            if let problem = waveHeaderProblem(path: path) { throw .unusableHeader(path: path, problem: problem) }
            throw .unrecognized(path: path, reason: lastErrorMessage(nil))
        }
        return SoundFile(handle: handle, path: path, info: info)
    }

    /// What is wrong with a RIFF/WAVE file's `fmt ` chunk, when libsndfile refused the file and
    /// the chunk states a rate or channel count no audio has (libsndfile then says only
    /// "SF_INFO struct incomplete"); `nil` when the file is not such a WAV or the chunk looks sound.
    static func waveHeaderProblem(path: String) -> String? {
        guard let fd = try? InputFile.open(path, regularOnly: true) else { return nil }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 12 else { return nil }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        func u32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        guard ["RIFF", "RF64"].contains(tag(0)), tag(8) == "WAVE" else { return nil }
        var chunk = 12
        while chunk + 8 <= count {
            let size = Int(u32(chunk + 4))
            if tag(chunk) == "fmt " {
                guard chunk + 16 <= count else { return nil }
                let channels = Int(bytes[chunk + 10]) | Int(bytes[chunk + 11]) << 8
                let rate = u32(chunk + 12)
                if channels == 0 { return "the WAV header says the file has 0 channels" }
                if Double(rate) < AnalysisConfiguration.minimumSampleRate || Double(rate) > AnalysisConfiguration.maximumSampleRate {
                    return "the WAV header gives a sample rate of \(rate) Hz (SoundCompass reads \(Int(AnalysisConfiguration.minimumSampleRate))…\(Int(AnalysisConfiguration.maximumSampleRate)) Hz)"
                }
                return nil
            }
            chunk += 8 + size + (size & 1)
        }
        return nil
    }

    /// File formats the writer can produce.
    enum WriteFormat {
        case wavFloat, wav16, wav24, wavex24, flac16, flac24, aiff16, oggVorbis, rawFloat, raw16, raw32
        var code: Int32 {
            let value = switch self {
            case .wavFloat: SF_FORMAT_WAV | SF_FORMAT_FLOAT
            case .wav16: SF_FORMAT_WAV | SF_FORMAT_PCM_16
            case .wav24: SF_FORMAT_WAV | SF_FORMAT_PCM_24
            case .wavex24: SF_FORMAT_WAVEX | SF_FORMAT_PCM_24
            case .flac16: SF_FORMAT_FLAC | SF_FORMAT_PCM_16
            case .flac24: SF_FORMAT_FLAC | SF_FORMAT_PCM_24
            case .aiff16: SF_FORMAT_AIFF | SF_FORMAT_PCM_16
            case .oggVorbis: SF_FORMAT_OGG | SF_FORMAT_VORBIS
            case .rawFloat: SF_FORMAT_RAW | SF_FORMAT_FLOAT | SF_ENDIAN_LITTLE
            case .raw16: SF_FORMAT_RAW | SF_FORMAT_PCM_16 | SF_ENDIAN_LITTLE
            case .raw32: SF_FORMAT_RAW | SF_FORMAT_PCM_32 | SF_ENDIAN_LITTLE
            }
            return Int32(value)
        }
    }

    /// Creates (or replaces) a file for writing. The corresponding C function is `sf_open`.
    /// - Parameter name: the file's name in messages (default `path`; a temporary file
    ///   written for another path gives that one).
    static func openForWriting(path: String, name: String? = nil, sampleRate: Int, channels: Int, format: WriteFormat)
        throws(SoundFileError) -> SoundFile
    {
        let opened = path
        let path = name ?? path
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = format.code
        guard sf_format_check(&info) != 0 else {
            throw .cannotCreate(path: path, reason: "libsndfile cannot write this format at \(sampleRate) Hz")
        }
        guard let handle = sf_open(opened, Int32(SFM_WRITE), &info) else {
            throw .cannotCreate(path: path, reason: lastErrorMessage(nil))
        }
        // Integer formats clip rather than wrap around on overload.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk in float files: it holds the time of writing, so the same samples
        // written a second apart would give different bytes.
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        if format == .oggVorbis {
            // Highest Vorbis quality: lower settings couple the channels and erase time differences.
            var quality = 1.0
            sf_command(handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality, Int32(MemoryLayout<Double>.size))
        }
        return SoundFile(handle: handle, path: path, info: info)
    }

    /// Reads up to `frames` interleaved frames as floats (integer formats scaled to ±1).
    /// The corresponding C function is `sf_readf_float`.
    func readFrames(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(SoundFileError) -> Int {
        guard let handle else { return 0 }
        let read = Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
        if read < 0 || (read == 0 && sf_error(handle) != 0) {
            if let stream {
                if let reason = stream.readError { throw .readFailed(path: path, reason: reason) }
                if stream.refusedSeek { throw .needsSeeking(path: path, format: Self.formatName(of: stream.peek(12))) }
                if stream.stopped { return 0 }
            }
            // A system error is a read error; anything else is the decoder giving up on the bytes.
            if sf_error(handle) == Int32(SF_ERR_SYSTEM) { throw .readFailed(path: path, reason: Self.lastErrorMessage(handle)) }
            throw .damaged(path: path, reason: Self.lastErrorMessage(handle))
        }
        if read == 0, let reason = stream?.readError { throw .readFailed(path: path, reason: reason) }
        return read
    }

    /// Writes interleaved float frames. The corresponding C function is `sf_writef_float`.
    func writeFrames(_ buffer: UnsafePointer<Float>, frames: Int) throws(SoundFileError) {
        guard let handle else { throw .writeFailed(path: path, reason: "file is closed") }
        let written = Int(sf_writef_float(handle, buffer, sf_count_t(frames)))
        if written != frames { throw .writeFailed(path: path, reason: Self.lastErrorMessage(handle)) }
    }

    /// libsndfile's parse log for the file. The corresponding C call is `sf_command(SFC_GET_LOG_INFO)`.
    var logInfo: String {
        guard let handle else { return "" }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { bytes in
            sf_command(handle, Int32(SFC_GET_LOG_INFO), bytes.baseAddress, Int32(bytes.count - 1))
        }
        guard count > 0 else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// A human-readable name of the file's format, e.g. "WAV (Microsoft), Signed 24 bit PCM".
    /// The corresponding C call is `sf_command(SFC_GET_FORMAT_INFO)`.
    var formatDescription: String {
        func name(_ code: Int32) -> String {
            var info = SF_FORMAT_INFO()
            info.format = code
            let status = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            guard status == 0, let n = info.name else { return "?" }
            return String(cString: n)
        }
        return "\(name(format & Int32(SF_FORMAT_TYPEMASK))), \(name(format & Int32(SF_FORMAT_SUBMASK)))"
    }

    /// Closes the file (flushing a written one). The corresponding C function is `sf_close`.
    func close() {
        if let handle { sf_close(handle) }
        handle = nil
    }

    /// The corresponding C function is `sf_strerror`.
    private static func lastErrorMessage(_ handle: OpaquePointer?) -> String {
        guard let message = sf_strerror(handle) else { return "unknown error" }
        // libsndfile's messages end in a full stop and sometimes a newline: keep one line.
        var text = String(cString: message).split(whereSeparator: \.isNewline)
            .map { $0.drop(while: \.isWhitespace) }.filter { !$0.isEmpty }.joined(separator: " ")
        while text.last == "." || text.last?.isWhitespace == true { text.removeLast() }
        // "System error : No such file or directory": the system's reason is the message.
        if text.hasPrefix("System error :") { text = String(text.dropFirst("System error :".count).drop(while: \.isWhitespace)) }
        // "Error : flac decoder lost sync": the words after the label are the message.
        if text.hasPrefix("Error :") { text = String(text.dropFirst("Error :".count).drop(while: \.isWhitespace)) }
        if text.isEmpty { text = "unknown error" }
        return text
    }
}
