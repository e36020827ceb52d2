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

    private init(handle: OpaquePointer, path: String, info: SF_INFO) {
        self.handle = handle
        self.path = path
        self.channels = Int(info.channels)
        self.sampleRate = Int(info.samplerate)
        self.declaredFrames = Int(info.frames)
        self.format = info.format
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
            throw .unrecognized(path: path, reason: lastErrorMessage(nil))
        }
        return SoundFile(handle: handle, path: path, info: info)
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
    static func openForWriting(path: String, sampleRate: Int, channels: Int, format: WriteFormat)
        throws(SoundFileError) -> SoundFile
    {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = format.code
        guard sf_format_check(&info) != 0 else {
            throw .cannotCreate(path: path, reason: "libsndfile cannot write this format at \(sampleRate) Hz")
        }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .cannotCreate(path: path, reason: lastErrorMessage(nil))
        }
        // Integer formats clip rather than wrap around on overload.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
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
        if read < 0 { throw .readFailed(path: path, reason: Self.lastErrorMessage(handle)) }
        if read == 0, sf_error(handle) != 0 {
            throw .readFailed(path: path, reason: Self.lastErrorMessage(handle))
        }
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
        if text.isEmpty { text = "unknown error" }
        return text
    }
}
