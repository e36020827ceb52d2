#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The weights of YAMNet's network, read from SoundCompass's own weights file (written by
/// `scripts/model/yamnet_convert.py`; layout in Docs/Classification.md): a 3×3 stride-2
/// convolution to 32 channels, 13 depthwise-separable blocks, a 1024 → 521 dense layer. Batch
/// norm is folded into every convolution's weights and bias.
public struct YAMNetWeights: Sendable {
    /// One depthwise-separable block: a depthwise 3×3 convolution (stride 1 or 2) and a
    /// pointwise 1×1 convolution, each followed by ReLU.
    public struct Block: Sendable {
        /// Input channels (the depthwise convolution keeps them).
        public let inputChannels: Int
        /// Output channels of the pointwise convolution.
        public let outputChannels: Int
        /// Stride of the depthwise convolution (1 or 2, both directions).
        public let stride: Int
        /// Depthwise kernels stored tap-major, `[9][inputChannels]` (tap = 3·ky + kx), so that a
        /// tap's weights for consecutive channels are contiguous.
        let depthwise: [Float]
        let depthwiseBias: [Float]
        /// Pointwise weights `[outputChannels][inputChannels]`.
        let pointwise: [Float]
        let pointwiseBias: [Float]
    }

    /// (output channels, stride) of the 13 blocks: YAMNet's MobileNetV1 layout.
    public static let blockLayout: [(channels: Int, stride: Int)] = [
        (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
        (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1),
    ]
    /// Channels of the first convolution.
    public static let firstChannels = 32
    /// Number of classes (AudioSet's ontology as YAMNet was trained on it).
    public static let classCount = 521

    /// First convolution `[32][9]` (tap = 3·ky + kx) and its bias.
    let first: [Float]
    let firstBias: [Float]
    /// The 13 blocks, in order.
    public let blocks: [Block]
    /// Dense layer `[521][1024]` and its bias.
    let dense: [Float]
    let denseBias: [Float]

    /// The weights file's name inside the model directory.
    public static let fileName = "yamnet.weights"
    /// The class map's name inside the model directory.
    public static let classMapFileName = "yamnet_class_map.csv"

    /// Where `scripts/fetch-model` puts the model: `$SOUNDCOMPASS_MODEL_DIR`, else
    /// `$XDG_CACHE_HOME/soundcompass`, else `$HOME/.cache/soundcompass`. The library reads no
    /// environment itself: the caller passes how to look a variable up (the command-line tool
    /// passes the process's environment).
    /// - Parameter environment: the value of an environment variable, `nil` when it is not set.
    /// - Returns: the directory's path.
    public static func defaultDirectory(environment: (String) -> String?) -> String {
        if let dir = environment("SOUNDCOMPASS_MODEL_DIR"), !dir.isEmpty { return dir }
        if let cache = environment("XDG_CACHE_HOME"), !cache.isEmpty { return cache + "/soundcompass" }
        return (environment("HOME") ?? ".") + "/.cache/soundcompass"
    }

    /// Reads a weights file.
    /// - Parameter path: the file (`yamnet.weights` in ``defaultDirectory`` after `scripts/fetch-model`).
    /// - Throws: ``ClassifierError/modelMissing(path:)`` when it is not there,
    ///   ``ClassifierError/unreadable(path:problem:)`` when it is no regular file (a directory, a
    ///   FIFO, a device), ``ClassifierError/badWeights(path:problem:)`` when its layout is not
    ///   YAMNet's (or it is over 64 MiB).
    public init(path: String) throws(ClassifierError) {
        // Read tensor by tensor straight into the arrays (no copy of the whole 15 MB file first).
        let (file, _) = try ModelFile.open(path, maximumBytes: Self.maximumFileBytes) { size in
            .badWeights(path: path, problem: "\(size) bytes, larger than any YAMNet weights file (\(Self.maximumFileBytes >> 20) MiB at most)")
        }
        defer { fclose(file) }
        var reader = Reader(file: file, path: path)
        guard let magic = reader.bytes(8), magic == Array("SCYAMNET".utf8) else {
            throw .badWeights(path: path, problem: "no SCYAMNET header")
        }
        let version = try reader.u32()
        guard version == 1 else { throw .badWeights(path: path, problem: "version \(version), expected 1") }
        let count = try reader.u32()
        let expected = 2 + 4 * Self.blockLayout.count + 2
        guard count == expected else { throw .badWeights(path: path, problem: "\(count) tensors, expected \(expected)") }
        let firstWeights = try reader.tensor([Self.firstChannels, 1, 3, 3])
        first = firstWeights
        firstBias = try reader.tensor([Self.firstChannels])
        var blocks: [Block] = []
        var channels = Self.firstChannels
        for (out, stride) in Self.blockLayout {
            let dw = try reader.tensor([channels, 1, 3, 3])
            var tapMajor = [Float](repeating: 0, count: 9 * channels)
            for c in 0..<channels { for t in 0..<9 { tapMajor[t * channels + c] = dw[c * 9 + t] } }
            let dwBias = try reader.tensor([channels])
            let pw = try reader.tensor([out, channels])
            let pwBias = try reader.tensor([out])
            blocks.append(Block(
                inputChannels: channels, outputChannels: out, stride: stride, depthwise: tapMajor,
                depthwiseBias: dwBias, pointwise: pw, pointwiseBias: pwBias))
            channels = out
        }
        self.blocks = blocks
        dense = try reader.tensor([Self.classCount, channels])
        denseBias = try reader.tensor([Self.classCount])
        if fgetc(file) != EOF {
            // How much more: from the size when the file has one, else "some".
            let here = ftell(file) - 1
            let extra = fseek(file, 0, SEEK_END) == 0 && here >= 0 ? "\(ftell(file) - here)" : "some"
            throw .badWeights(path: path, problem: "\(extra) bytes after the last tensor")
        }
        if ferror(file) != 0 { throw .badWeights(path: path, problem: "read error") }
    }

    /// The largest weights file read, bytes (YAMNet's is about 15 MB).
    static let maximumFileBytes = 64 << 20
    /// The largest class map read, bytes (YAMNet's is about 14 KB).
    static let maximumClassMapBytes = 1 << 20

    /// The whole of a class map: a regular file of at most ``maximumClassMapBytes``.
    static func readClassMap(_ path: String) throws(ClassifierError) -> [UInt8] {
        let (file, size) = try ModelFile.open(path, maximumBytes: maximumClassMapBytes) { size in
            .badClassMap(path: path, problem: "\(size) bytes, larger than a class map can be (\(maximumClassMapBytes >> 20) MiB at most)")
        }
        defer { fclose(file) }
        // The size is known and bounded; a file that grows while read is still read only so far.
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, file) }
        if ferror(file) != 0 { throw .badClassMap(path: path, problem: "read error") }
        return Array(bytes[0..<n])
    }

    /// Reads the file's little-endian fields in order.
    struct Reader {
        let file: UnsafeMutablePointer<FILE>
        let path: String

        /// The next `count` bytes, or nil at the end of the file.
        mutating func bytes(_ count: Int) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: count)
            let n = out.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, file) }
            return n == count ? out : nil
        }

        mutating func u32() throws(ClassifierError) -> Int {
            guard let b = bytes(4) else { throw .badWeights(path: path, problem: "truncated") }
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(b[i]) << (8 * UInt32(i)) }
            return Int(v)
        }

        /// A tensor of exactly `shape` (rank and dims checked).
        mutating func tensor(_ shape: [Int]) throws(ClassifierError) -> [Float] {
            let rank = try u32()
            var dims: [Int] = []
            for _ in 0..<min(rank, 8) { dims.append(try u32()) }
            guard dims == shape else {
                throw .badWeights(path: path, problem: "a tensor of shape \(dims) where \(shape) belongs")
            }
            let count = shape.reduce(1, *)
            var complete = true
            let file = self.file
            let values = [Float](unsafeUninitializedCapacity: count) { out, initialized in
                let read = fread(out.baseAddress!, 4, count, file)
                if read < count {
                    complete = false
                    for i in read..<count { out[i] = 0 }
                }
                #if !_endian(little)
                for i in 0..<count { out[i] = Float(bitPattern: UInt32(littleEndian: out[i].bitPattern)) }
                #endif
                initialized = count
            }
            guard complete else { throw .badWeights(path: path, problem: "truncated") }
            for v in values where !v.isFinite { throw .badWeights(path: path, problem: "a non-finite weight") }
            return values
        }
    }
}

/// YAMNet's 521 class names (AudioSet display names), read from `yamnet_class_map.csv`
/// (`index,mid,display_name`, names with commas quoted).
public struct ClassMap: Sendable {
    /// Display names by class index.
    public let names: [String]

    /// Reads the class map.
    /// - Throws: ``ClassifierError/modelMissing(path:)``, ``ClassifierError/unreadable(path:problem:)``
    ///   (a directory, a FIFO, a device) or ``ClassifierError/badClassMap(path:problem:)`` (also a
    ///   file over 1 MiB).
    public init(path: String) throws(ClassifierError) {
        let bytes = try YAMNetWeights.readClassMap(path)
        let text = String(decoding: bytes, as: UTF8.self)
        var names: [String] = []
        for (n, raw) in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if n == 0 { continue }
            let fields = Self.fields(line)
            guard fields.count == 3, Int(fields[0]) == names.count else {
                throw .badClassMap(path: path, problem: "line \(n + 1) is not \(names.count),mid,name")
            }
            // A name is written into terminal lines, the live compass and spoken alerts: a
            // control character (ESC, CR, NUL, C1) would reach the terminal. YAMNet's have none.
            if let control = fields[2].unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                let code = String(control.value, radix: 16, uppercase: true)
                throw .badClassMap(
                    path: path,
                    problem: "line \(n + 1): class name holds a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code))")
            }
            names.append(fields[2])
        }
        guard names.count == YAMNetWeights.classCount else {
            throw .badClassMap(path: path, problem: "\(names.count) classes, expected \(YAMNetWeights.classCount)")
        }
        self.names = names
    }

    /// The fields of one CSV line (double quotes around a field with commas; `""` inside).
    static func fields(_ line: String) -> [String] {
        var fields: [String] = [], field = "", quoted = false
        var chars = line.makeIterator()
        var pending: Character? = nil
        while let c = pending ?? chars.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    if let next = chars.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else { field.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                fields.append(field); field = ""
            } else { field.append(c) }
        }
        fields.append(field)
        return fields
    }
}
