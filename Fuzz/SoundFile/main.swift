// Fuzz target `soundfile`: the input is a whole file (WAV, AIFF, FLAC, Ogg, … as libsndfile
// sees it), written to a scratch file, opened with SoundFileReader as `analyze FILE` does, and
// its first frames analysed; then the same bytes read as a stream in memory. Must not crash,
// hang or leak; errors are the expected outcome.
import FuzzSupport
import SoundCompass

/// Frames analysed at most per input (a few analysis frames at 48 kHz), to keep inputs fast.
let framesAnalysed = 8192

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let path = FuzzScratch.write(bytes, name: "input")
    if let reader = try? SoundFileReader(path: path) { analyse(reader) }
    // The same bytes read as a stream, through libsndfile's virtual I/O (ByteStream), the way
    // `analyze -` reads a pipe: its seeks take offsets from the header (issue 30, item 2).
    if let reader = try? SoundFileReader(bytes: Array(bytes), name: "input") { analyse(reader) }
    return 0
}

/// Reads and analyses up to ``framesAnalysed`` frames of `reader`.
func analyse(_ reader: SoundFileReader) {
    _ = reader.formatDescription
    _ = reader.expectedFrameCount
    let configuration = AnalysisConfiguration(sampleRate: reader.sampleRate)
    guard let analyzer = try? StreamingAnalyzer(configuration: configuration) else { return }
    let left = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024)
    let right = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024)
    defer { left.deallocate(); right.deallocate() }
    var total = 0
    left.initialize(repeating: 0)
    right.initialize(repeating: 0)
    while total < framesAnalysed, let n = try? reader.read(into: left, right, frames: 1024), n > 0 {
        total += n
        analyzer.process(left: UnsafeBufferPointer(rebasing: left[0..<n]), right: UnsafeBufferPointer(rebasing: right[0..<n])) { record in
            // Never a NaN in output.
            precondition(record.time.isFinite && !record.azimuth.isNaN && !record.confidence.isNaN, "NaN in a record")
        }
    }
    _ = reader.warnings
}

fuzzMain(testOneInput)
