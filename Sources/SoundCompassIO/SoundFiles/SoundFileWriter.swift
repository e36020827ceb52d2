import SoundCompassEngine

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
    /// - Parameter name: the file's name in messages (default `path`): the final name when
    ///   `path` is a temporary file (see ``StagedOutput``).
    /// - Throws: ``SoundFileError/cannotCreate(path:reason:)``.
    public init(path: String, name: String? = nil, sampleRate: Int, channels: Int = 2, format: Format = .wavFloat) throws(SoundFileError) {
        precondition(channels >= 1)
        self.file = try SoundFile.openForWriting(
            path: path, name: name, sampleRate: sampleRate, channels: channels, format: format.soundFileFormat)
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
