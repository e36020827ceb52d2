// Fuzz target `rawpcm`: raw interleaved PCM as `analyze --raw-format` reads it, for every
// encoding and 1…8 channels. Byte 0 picks the encoding, byte 1 the channel count and the
// channels used, byte 2 the frames per read; the rest is the stream. Decodes every period
// (after the plausibility check), and asks which encoding the bytes most likely are.
import FuzzSupport
import SoundCompass
#if canImport(Glibc)
import Glibc
#endif

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard input.count >= 3 else { return 0 }
    let encoding = PCMEncoding.allCases[Int(input[0]) % PCMEncoding.allCases.count]
    let channelCount = Int(input[1] & 7) + 1
    // Bits 3…5: a channel pair, sometimes out of range (1-based, up to 8).
    let left = Int((input[1] >> 3) & 7) + 1
    let right = (left % 8) + 1
    let channels: (left: Int, right: Int)? = input[1] & 0x40 == 0 ? nil : (left, right)
    let periodFrames = Int(input[2]) + 1
    let stream = Array(input[3...])
    _ = PCMEncoding.likeliest(for: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[3...])), channels: channelCount)

    // The stream is handed over as bytes already read from an empty descriptor.
    let empty = open("/dev/null", O_RDONLY)
    precondition(empty >= 0, "cannot open /dev/null")
    guard let source = try? RawPCMSource(
        path: "fuzz.raw", descriptor: empty, prefix: stream, encoding: encoding, sampleRate: 48000,
        channelCount: channelCount, channels: channels, swap: input[1] & 0x80 != 0, periodFrames: periodFrames)
    else { return 0 }
    let l = UnsafeMutableBufferPointer<Float>.allocate(capacity: periodFrames)
    let r = UnsafeMutableBufferPointer<Float>.allocate(capacity: periodFrames)
    defer { l.deallocate(); r.deallocate() }
    var frames = 0
    l.initialize(repeating: 0)
    r.initialize(repeating: 0)
    while let n = try? source.read(into: l, r, frames: periodFrames), n > 0 {
        precondition(n <= periodFrames, "read more frames than asked")
        frames += n
    }
    precondition(frames == stream.count / (channelCount * encoding.bytesPerSample), "frames lost or invented")
    _ = source.warnings
    return 0
}

fuzzMain(testOneInput)
