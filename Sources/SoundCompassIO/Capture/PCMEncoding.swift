import SoundCompassEngine
/// Sample encodings of interleaved PCM that SoundCompass can read from a device or a raw stream,
/// all little-endian.
public enum PCMEncoding: String, Sendable, CaseIterable {
    /// 32-bit IEEE float, full scale ±1 (ALSA `FLOAT_LE`).
    case float32 = "f32le"
    /// 32-bit signed integer (ALSA `S32_LE`).
    case int32 = "s32le"
    /// 24-bit signed integer in the low three bytes of a 32-bit word (ALSA `S24_LE`).
    case int24In32 = "s24le"
    /// 24-bit signed integer packed in three bytes (ALSA `S24_3LE`).
    case int24Packed = "s24_3le"
    /// 16-bit signed integer (ALSA `S16_LE`).
    case int16 = "s16le"

    /// The order in which a capture device's encodings are tried: the most precise first, so
    /// nothing is lost to conversion when the device offers float.
    public static let preference: [PCMEncoding] = [.float32, .int32, .int24In32, .int24Packed, .int16]

    /// Bytes per sample.
    public var bytesPerSample: Int {
        switch self {
        case .float32, .int32, .int24In32: 4
        case .int24Packed: 3
        case .int16: 2
        }
    }

    /// The ALSA name of the format (`FLOAT_LE`, `S16_LE`, …).
    public var alsaName: String {
        switch self {
        case .float32: "FLOAT_LE"
        case .int32: "S32_LE"
        case .int24In32: "S24_LE"
        case .int24Packed: "S24_3LE"
        case .int16: "S16_LE"
        }
    }

    /// The encoding with ALSA name `name` (case-insensitive), or with raw name `name` (`f32le`, …).
    public init?(name: String) {
        let upper = name.uppercased()
        if let match = Self.allCases.first(where: { $0.alsaName == upper || $0.rawValue.uppercased() == upper }) {
            self = match
        } else {
            return nil
        }
    }

    /// Converts `frames` interleaved frames of `channels` channels to floats (integers scaled to
    /// ±1), picking two of the channels. Does not allocate.
    /// - Parameters:
    ///   - source: the interleaved samples, `frames · channels · bytesPerSample` bytes.
    ///   - frames: frames to convert.
    ///   - channels: channels per frame.
    ///   - leftChannel: 0-based channel written to `left`.
    ///   - rightChannel: 0-based channel written to `right`.
    ///   - left: destination for the left channel, at least `frames` long.
    ///   - right: destination for the right channel, at least `frames` long.
    package func deinterleave(
        _ source: UnsafeRawBufferPointer, frames: Int, channels: Int, leftChannel: Int, rightChannel: Int,
        left: UnsafeMutableBufferPointer<Float>, right: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(leftChannel >= 0 && leftChannel < channels && rightChannel >= 0 && rightChannel < channels)
        precondition(left.count >= frames && right.count >= frames)
        let size = bytesPerSample
        precondition(source.count >= frames * channels * size, "buffer shorter than the frames it should hold")
        let stride = channels * size
        let l = leftChannel * size, r = rightChannel * size
        for i in 0..<frames {
            let base = i * stride
            left[i] = sample(source, at: base + l)
            right[i] = sample(source, at: base + r)
        }
    }

    /// The sample at byte `offset` of `bytes`, as a float (integers scaled to ±1).
    @inline(__always)
    func sample(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Float {
        switch self {
        case .float32:
            return Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case .int32:
            return Float(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))) * 0x1p-31
        case .int24In32:
            // The value sits in the low 24 bits; shift it up to sign-extend.
            let word = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            return Float(Int32(bitPattern: word << 8) >> 8) * 0x1p-23
        case .int24Packed:
            let word = UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 24
            return Float(Int32(bitPattern: word) >> 8) * 0x1p-23
        case .int16:
            return Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int16.self))) * 0x1p-15
        }
    }
}
