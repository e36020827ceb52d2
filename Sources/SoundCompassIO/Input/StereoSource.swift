import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A source of stereo audio read block by block: a sound file, a device, memory.
///
/// Implementations pick and order the two channels (left, right) themselves.
public protocol StereoSource: AnyObject {
    /// What ``read(left:right:)`` throws: ``SoundFileError`` for files and raw PCM,
    /// ``ALSAError`` for a device, `Never` for samples in memory.
    associatedtype Failure: Error
    /// Sample rate in Hz.
    var sampleRate: Double { get }
    /// A name for messages: a file path, a device name.
    var name: String { get }
    /// Total frames (samples per channel) if known in advance.
    var expectedFrameCount: Int? { get }
    /// Reads up to `min(left.count, right.count)` frames into the first elements of the two
    /// spans. Allocates nothing once the source is open (the per-frame path).
    /// - Parameters:
    ///   - left: receives the left channel's samples (linear full scale, ±1 is 0 dBFS).
    ///   - right: receives the right channel's samples.
    /// - Returns: frames read; 0 at the end of the stream.
    /// - Throws: ``Failure`` when reading fails.
    func read(left: inout MutableSpan<Float>, right: inout MutableSpan<Float>) throws(Failure) -> Int
    /// Things worth telling the user that did not stop the reading (a truncated file, …).
    var warnings: [String] { get }
}

/// Stereo audio held in memory: the embedded demo, tests.
public final class MemoryStereoSource: StereoSource {
    public let sampleRate: Double
    public let name: String
    public var expectedFrameCount: Int? { left.count }
    public var warnings: [String] { [] }
    private let left: [Float]
    private let right: [Float]
    private var position = 0

    /// - Parameters:
    ///   - left: left-channel samples.
    ///   - right: right-channel samples, as many as `left`.
    ///   - sampleRate: Hz.
    ///   - name: a name for messages.
    public init(left: [Float], right: [Float], sampleRate: Double, name: String = "memory") {
        precondition(left.count == right.count, "channels differ in length")
        self.left = left
        self.right = right
        self.sampleRate = sampleRate
        self.name = name
    }

    public func read(left l: inout MutableSpan<Float>, right r: inout MutableSpan<Float>) -> Int {
        let n = min(l.count, r.count, left.count - position)
        guard n > 0 else { return 0 }
        for i in 0..<n {
            l[i] = left[position + i]
            r[i] = right[position + i]
        }
        position += n
        return n
    }
}

extension StereoSource {
    /// Reads and throws away up to `frames` frames, a block at a time: passing over the start
    /// of a stream that cannot seek (`--start` on a pipe).
    /// - Returns: frames passed over (fewer at the end of the input).
    package func discard(frames: Int) throws(Failure) -> Int {
        let block = 4096
        return try withStereoBlock(frames: block) { (left, right) throws(Failure) in
            var skipped = 0
            while skipped < frames {
                let n = try read(into: left, right, frames: min(block, frames - skipped))
                if n == 0 { break }
                skipped += n
            }
            return skipped
        }
    }

    /// Reads up to `frames` frames into the start of two buffers, through ``read(left:right:)``.
    /// - Returns: frames read; 0 at the end of the stream.
    package func read(
        into left: UnsafeMutableBufferPointer<Float>, _ right: UnsafeMutableBufferPointer<Float>, frames: Int
    ) throws(Failure) -> Int {
        let left = UnsafeMutableBufferPointer(rebasing: left[0..<min(frames, left.count)])
        let right = UnsafeMutableBufferPointer(rebasing: right[0..<min(frames, right.count)])
        var leftSpan = left.mutableSpan
        var rightSpan = right.mutableSpan
        return try read(left: &leftSpan, right: &rightSpan)
    }
}

/// Calls `body` with the memory of two spans (an implementation of ``StereoSource/read(left:right:)``
/// that works on buffers: deinterleaving, SIMD).
/// - Returns: what `body` returns.
package func withBuffers<Failure: Error>(
    _ left: inout MutableSpan<Float>, _ right: inout MutableSpan<Float>,
    _ body: (UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>) throws(Failure) -> Int
) throws(Failure) -> Int {
    try left.withUnsafeMutableBufferPointer { (left) throws(Failure) -> Int in
        try right.withUnsafeMutableBufferPointer { (right) throws(Failure) -> Int in try body(left, right) }
    }
}

/// Calls `body` with the first `frames` elements of two spans (fewer when a span is shorter):
/// a source that reads less than it was given room for (a period, the end of an excerpt).
/// - Returns: what `body` returns.
package func withPrefixes<Failure: Error>(
    _ left: inout MutableSpan<Float>, _ right: inout MutableSpan<Float>, frames: Int,
    _ body: (inout MutableSpan<Float>, inout MutableSpan<Float>) throws(Failure) -> Int
) throws(Failure) -> Int {
    try withBuffers(&left, &right) { (left, right) throws(Failure) -> Int in
        let left = UnsafeMutableBufferPointer(rebasing: left[0..<min(frames, left.count)])
        let right = UnsafeMutableBufferPointer(rebasing: right[0..<min(frames, right.count)])
        var leftSpan = left.mutableSpan
        var rightSpan = right.mutableSpan
        return try body(&leftSpan, &rightSpan)
    }
}

/// Runs `body` with two zeroed buffers of `frames` floats (a block of each channel), freed
/// afterwards: the working memory of the loops that read a source block by block.
/// - Parameters:
///   - frames: samples per buffer (≥ 1).
///   - body: takes the left and right buffers (valid during the call only).
/// - Returns: what `body` returns.
/// - Throws: what `body` throws.
package func withStereoBlock<R, E: Error>(
    frames: Int, _ body: (UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>) throws(E) -> R
) throws(E) -> R {
    let left = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames)
    let right = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames)
    left.initialize(repeating: 0)
    right.initialize(repeating: 0)
    defer { left.deallocate(); right.deallocate() }
    return try body(left, right)
}
