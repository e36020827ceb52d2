import ArgumentParser
import SoundCompass

/// The file `synth` writes: a container (from `--file-format`, else from the file's
/// extension) and a sample format (from `--sample-format`, else the container's best).
enum SynthFormat {
    /// Containers `synth` writes.
    enum Container: String, CaseIterable {
        case wav, wavex, flac, aiff, ogg, raw
    }

    /// `--file-format`: a container, or one of the older names that also fix the sample
    /// format (`wav16`, `flac24`, `raw-s16le`, …), kept as aliases.
    struct Argument: ExpressibleByArgument {
        var container: Container
        var encoding: PCMEncoding?

        init?(argument: String) {
            let text = argument.lowercased()
            if let container = Container(rawValue: text) {
                self.container = container
                encoding = nil
            } else if let legacy = SoundFileWriter.Format(rawValue: text) {
                (container, encoding) = SynthFormat.split(legacy)
            } else {
                return nil
            }
        }

        static var allValueStrings: [String] { Container.allCases.map(\.rawValue) }
    }

    /// The container a path's extension names; `nil` for an extension `synth` does not know.
    /// A path without an extension is a WAV file.
    static func container(forPath path: String) -> Container?? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .some(.wav) }
        switch name[name.index(after: dot)...].lowercased() {
        case "wav", "wave": return .some(.wav)
        case "flac": return .some(.flac)
        case "aif", "aiff", "aifc": return .some(.aiff)
        case "ogg", "oga": return .some(.ogg)
        case "raw", "pcm", "f32", "s16", "s32": return .some(.raw)
        default: return .some(nil)
        }
    }

    /// The best sample format of a container when none is asked: float where the container
    /// holds float (nothing lost), else 24-bit; Ogg Vorbis has none.
    static func defaultEncoding(of container: Container) -> PCMEncoding? {
        switch container {
        case .wav, .raw: .float32
        case .wavex, .flac: .int24Packed
        case .aiff: .int16
        case .ogg: nil
        }
    }

    /// The writer format for a container and a sample format, or `nil` when the pair is not
    /// written.
    static func writerFormat(_ container: Container, _ encoding: PCMEncoding?) -> SoundFileWriter.Format? {
        let bits: Int? = switch encoding {
        case .float32: 0
        case .int32: 32
        case .int24In32, .int24Packed: 24
        case .int16: 16
        case nil: nil
        }
        return switch (container, bits) {
        case (.wav, 0): .wavFloat
        case (.wav, 16): .wav16
        case (.wav, 24): .wav24
        case (.wavex, 24): .wavex24
        case (.flac, 16): .flac16
        case (.flac, 24): .flac24
        case (.aiff, 16): .aiff16
        case (.ogg, nil): .ogg
        case (.raw, 0): .rawF32
        case (.raw, 16): .rawS16
        case (.raw, 32): .rawS32
        default: nil
        }
    }

    /// The sample formats written in `container`, for messages.
    static func encodings(of container: Container) -> [String] {
        [PCMEncoding.float32, .int32, .int24Packed, .int16].filter { writerFormat(container, $0) != nil }.map {
            $0 == .int24Packed ? "s24le" : $0.rawValue
        }
    }

    static func split(_ format: SoundFileWriter.Format) -> (Container, PCMEncoding?) {
        switch format {
        case .wavFloat: (.wav, .float32)
        case .wav16: (.wav, .int16)
        case .wav24: (.wav, .int24Packed)
        case .wavex24: (.wavex, .int24Packed)
        case .flac16: (.flac, .int16)
        case .flac24: (.flac, .int24Packed)
        case .aiff16: (.aiff, .int16)
        case .ogg: (.ogg, nil)
        case .rawF32: (.raw, .float32)
        case .rawS16: (.raw, .int16)
        case .rawS32: (.raw, .int32)
        }
    }

    /// The format to write `path` in.
    /// - Throws: a usage failure naming the path when the extension is unknown and no
    ///   `--file-format` is given, or the pair is not one `synth` writes.
    static func resolve(path: String, fileFormat: Argument?, sampleFormat: PCMEncoding?) throws -> SoundFileWriter.Format {
        let known = Container.allCases.map(\.rawValue).joined(separator: ", ")
        guard let container = fileFormat?.container ?? container(forPath: path) ?? nil else {
            throw CLIFailure(
                "\(path): cannot tell the file format from its extension; give --file-format (\(known))", status: .usage)
        }
        if let implied = fileFormat?.encoding, let sampleFormat, writerFormat(container, implied) != writerFormat(container, sampleFormat) {
            throw CLIFailure(
                "\(path): --sample-format \(sampleFormat.rawValue) conflicts with --file-format, which implies \(implied.rawValue)",
                status: .usage)
        }
        let encoding = sampleFormat ?? fileFormat?.encoding ?? defaultEncoding(of: container)
        guard let format = writerFormat(container, encoding) else {
            let choices = encodings(of: container)
            let hint = choices.isEmpty ? "\(container.rawValue) takes no --sample-format" : "\(container.rawValue) takes \(choices.joined(separator: ", "))"
            throw CLIFailure("\(path): synth does not write \(encoding?.rawValue ?? "this") samples in \(container.rawValue) (\(hint))", status: .usage)
        }
        return format
    }
}
