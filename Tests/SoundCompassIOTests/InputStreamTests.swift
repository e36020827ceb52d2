import Foundation
import SoundCompassEngine
@testable import SoundCompassIO
import TestSignals
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Reading a sound file from a pipe (``ByteStream``) and recognising raw PCM read with the
/// wrong encoding (``PCMEncoding/likeliest(for:channels:)``).
struct InputStreamTests {
    /// Interleaved little-endian bytes of a stereo pair in `encoding` (samples within ±1).
    static func encode(left: [Double], right: [Double], as encoding: PCMEncoding) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ word: UInt32, _ count: Int) { for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))) } }
        for (l, r) in zip(left, right) {
            for x in [l, r] {
                let clamped = max(-1, min(1 - 1e-9, x))
                switch encoding {
                case .float32: append(Float(x).bitPattern, 4)
                case .int32: append(UInt32(bitPattern: Int32(clamped * 0x1p31)), 4)
                case .int24In32: append(UInt32(bitPattern: Int32(clamped * 0x1p23)) & 0xFF_FFFF, 4)
                case .int24Packed: append(UInt32(bitPattern: Int32(clamped * 0x1p23)), 3)
                case .int16: append(UInt32(UInt16(bitPattern: Int16(clamped * 0x1p15))), 2)
                }
            }
        }
        return bytes
    }

    /// 4096 frames of a stereo pair (the right channel 5 samples late) at 48 kHz.
    static func pair(_ kind: String) -> (left: [Double], right: [Double]) {
        let count = 4096 + 5
        let mono = switch kind {
        case "speech": Generators.speechLike(count: count, sampleRate: 48000, rms: 0.1, seed: 7, pauses: false)
        case "pink": Generators.pinkNoise(count: count, sampleRate: 48000, rms: 0.1, seed: 7)
        default: Generators.whiteNoise(count: count, rms: 0.1, seed: 7)
        }
        return (Array(mono[5...]), Array(mono[..<4096]))
    }

    @Test("integer PCM read as f32 is implausible, and the likeliest encoding is the true one (speech, pink, white)",
          arguments: ["speech", "pink", "white"], [PCMEncoding.int16, .int32, .int24In32, .int24Packed])
    func likeliestEncoding(kind: String, truth: PCMEncoding) {
        let (left, right) = Self.pair(kind)
        let bytes = Self.encode(left: left, right: right, as: truth)
        bytes.withUnsafeBytes { raw in
            let asFloat = PCMEncoding.float32.decoding(of: raw, channels: 2)
            // 24-bit in 32 leaves the top byte 0: floats below −200 dBFS, refused as well.
            #expect(!asFloat.isPlausible, "\(kind) \(truth): \(asFloat.nonFinitePercent) % NaN, peak \(asFloat.peakDBFS) dBFS")
            #expect(truth.decoding(of: raw, channels: 2).isPlausible)
            #expect(PCMEncoding.likeliest(for: raw, channels: 2) == truth, "\(kind) \(truth)")
        }
    }

    @Test("f32 PCM decodes cleanly as f32 and is its own likeliest encoding")
    func floatIsFloat() {
        let (left, right) = Self.pair("speech")
        for kind in ["pink", "white"] {
            let (l, r) = Self.pair(kind)
            Self.encode(left: l, right: r, as: .float32).withUnsafeBytes { raw in
                #expect(PCMEncoding.likeliest(for: raw, channels: 2) == .float32, "\(kind)")
            }
        }
        let bytes = Self.encode(left: left, right: right, as: .float32)
        bytes.withUnsafeBytes { raw in
            let decoded = PCMEncoding.float32.decoding(of: raw, channels: 2)
            #expect(decoded.isClean && decoded.nonFinite == 0)
            #expect(decoded.offset < 0.2, "\(decoded.offset)")
            #expect(decoded.smoothness > 0.9, "\(decoded.smoothness)")
            #expect(decoded.coupling > 0.95, "\(decoded.coupling)")
            #expect(PCMEncoding.likeliest(for: raw, channels: 2) == .float32)
        }
    }

    @Test("ByteStream: small backward seeks within what was read; far-forward and END seeks refused and remembered")
    func byteStream() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let payload = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let writeEnd = fds[1]
        let writer = Thread {
            payload.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(fds[0]) }
        let stream = ByteStream(descriptor: fds[0])
        #expect(stream.peek(4) == Array(payload[0..<4]))
        var buffer = [UInt8](repeating: 0, count: 100)
        #expect(stream.seek(96, whence: SEEK_SET) == 96)
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, count: 100) } == 100)
        #expect(stream.seek(-12, whence: SEEK_CUR) == 184)
        #expect(stream.seek(0, whence: SEEK_END) == -1)
        #expect(stream.refusedSeek)
        #expect(stream.seek(10 << 20, whence: SEEK_SET) == -1)
        // Read 2.5 MiB on: the head stays for header re-reads, the part behind is dropped.
        var big = [UInt8](repeating: 0, count: 1 << 16)
        var position = stream.position
        while position < (5 << 20) / 2 {
            position += big.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, count: $0.count) }
        }
        #expect(stream.seek(8, whence: SEEK_SET) == 8)
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, count: 4) } == 4)
        #expect(Array(buffer[0..<4]) == Array(payload[8..<12]))
        #expect(stream.seek(position - 4096, whence: SEEK_SET) == position - 4096)
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, count: 100) } == 100)
        #expect(Array(buffer) == Array(payload[(position - 4096)..<(position - 3996)]))
        #expect(stream.readToEnd(limit: 1 << 30))
        #expect(stream.knownLength == payload.count)
    }

    @Test("ByteStream: seeks by offsets near Int.max (an RF64 ds64 size near 2^63) are refused, never trap (#30 item 2)")
    func seekOverflow() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let payload = [UInt8](repeating: 7, count: 1000)
        #expect(payload.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == 1000)
        close(fds[1])
        defer { close(fds[0]) }
        let stream = ByteStream(descriptor: fds[0])
        var buffer = [UInt8](repeating: 0, count: 100)
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, count: 100) } == 100)
        #expect(stream.seek(Int.max - 16, whence: SEEK_CUR) == -1)
        #expect(stream.refusedSeek)
        #expect(stream.seek(Int.max, whence: SEEK_SET) == -1)
        #expect(stream.seek(Int.min, whence: SEEK_CUR) == -1)
        #expect(stream.position == 100)
        // Once the length is known, a seek from the end by Int.max is refused as well.
        #expect(stream.readToEnd(limit: 1 << 20))
        #expect(stream.seek(Int.max, whence: SEEK_END) == -1)
        #expect(stream.seek(-10, whence: SEEK_END) == 990)
        let memory = ByteStream(bytes: payload)
        #expect(memory.seek(Int.max, whence: SEEK_END) == -1)
        #expect(memory.seek(Int.max - 1, whence: SEEK_CUR) == -1)
    }
}
