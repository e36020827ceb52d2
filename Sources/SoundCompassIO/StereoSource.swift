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
    /// Sample rate in Hz.
    var sampleRate: Double { get }
    /// A name for messages: a file path, a device name.
    var name: String { get }
    /// Total frames (samples per channel) if known in advance.
    var expectedFrameCount: Int? { get }
    /// Reads up to `left.count` frames into the two buffers.
    /// - Returns: frames read; 0 at the end of the stream.
    func read(left: UnsafeMutableBufferPointer<Float>, right: UnsafeMutableBufferPointer<Float>) throws -> Int
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

    public func read(left l: UnsafeMutableBufferPointer<Float>, right r: UnsafeMutableBufferPointer<Float>) -> Int {
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
    package func discard(frames: Int) throws -> Int {
        let block = 4096
        let left = UnsafeMutableBufferPointer<Float>.allocate(capacity: block)
        let right = UnsafeMutableBufferPointer<Float>.allocate(capacity: block)
        defer { left.deallocate(); right.deallocate() }
        var skipped = 0
        while skipped < frames {
            let n = try read(
                left: UnsafeMutableBufferPointer(rebasing: left[0..<min(block, frames - skipped)]),
                right: UnsafeMutableBufferPointer(rebasing: right[0..<min(block, frames - skipped)]))
            if n == 0 { break }
            skipped += n
        }
        return skipped
    }
}
