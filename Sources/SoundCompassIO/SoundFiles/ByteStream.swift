import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The bytes of a sound file for libsndfile's virtual I/O: read front to back from a descriptor
/// (a pipe), or held whole in memory.
///
/// A stream keeps what it has read, so that the small backward seeks of a header parser work:
/// the first ``headBytes`` always, and beyond that the last ``windowBytes`` or more behind the
/// read position, in bounded memory. A seek far ahead of what has been read, or from the end,
/// is refused (a pipe cannot do it) and remembered in ``refusedSeek``, so that a failure can
/// say the format needs seeking. Bytes in memory have a known length and seek anywhere.
package final class ByteStream {
    /// Bytes from the start that are always kept, for header re-reads.
    package static let headBytes = 1 << 20
    /// Bytes behind the read position kept at least, for backward seeks.
    package static let windowBytes = 1 << 20
    /// How far beyond the bytes read a forward seek is still served by reading on.
    package static let forwardSeekLimit = 1 << 16

    /// The descriptor read, or -1 for bytes in memory.
    package let descriptor: Int32
    /// The read position, bytes from the start.
    package private(set) var position = 0
    /// True once a seek was refused (far forward, or from the end of a stream of unknown length).
    package private(set) var refusedSeek = false
    /// The reason the last read from the descriptor failed, if one did.
    package private(set) var readError: String?
    /// Asked when a read is interrupted by a signal: `true` ends the stream.
    package var stopRequested: () -> Bool = { false }
    /// True once the stream ended because ``stopRequested`` said so (Ctrl-C), not at its end.
    package private(set) var stopped = false

    /// Bytes `[start, start + kept.count)` of the stream.
    private var kept: [UInt8]
    private var start = 0
    /// The first ``headBytes`` once `kept` no longer starts at 0.
    private var head: [UInt8] = []
    private var ended: Bool
    private var chunk: UnsafeMutableRawBufferPointer

    /// A stream read from `descriptor` (not closed here), starting with `prefix`: bytes already
    /// read from it.
    package init(descriptor: Int32, prefix: [UInt8] = []) {
        self.descriptor = descriptor
        self.kept = prefix
        self.ended = false
        self.chunk = .allocate(byteCount: 1 << 16, alignment: 16)
    }

    /// A whole file's bytes in memory.
    package init(bytes: [UInt8]) {
        self.descriptor = -1
        self.kept = bytes
        self.ended = true
        self.chunk = .allocate(byteCount: 0, alignment: 16)
    }

    deinit { chunk.deallocate() }

    /// The stream's length once it is known (in memory, or read to its end), bytes.
    package var knownLength: Int? { ended ? start + kept.count : nil }

    /// The first `count` bytes of the stream (fewer if it is shorter).
    package func peek(_ count: Int) -> [UInt8] {
        fill(upTo: count)
        if start == 0 { return Array(kept.prefix(count)) }
        return Array(head.prefix(count))
    }

    /// Reads the whole stream into memory (up to `limit` bytes).
    /// - Returns: false when the stream is longer than `limit`.
    package func readToEnd(limit: Int) -> Bool {
        while !ended {
            fill(upTo: start + kept.count + chunk.count)
            if start + kept.count > limit { return false }
        }
        return true
    }

    /// All the bytes held, when the stream has been kept whole.
    package var allBytes: [UInt8]? { start == 0 && ended ? kept : nil }

    /// Copies up to `count` bytes from the read position to `destination` and moves on.
    /// - Returns: bytes copied; 0 at the end (or after a read error, see ``readError``).
    package func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        guard count > 0 else { return 0 }
        if position < start {
            // In the kept head, or in a part already dropped.
            guard position < head.count else { return 0 }
            let n = min(count, head.count - position, start - position)
            head.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
            position += n
            return n
        }
        fill(upTo: position &+ min(count, Int.max - position))
        let n = max(0, min(count, start + kept.count - position))
        if n > 0 {
            kept.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + (position - start), byteCount: n) }
        }
        position += n
        dropOld()
        return n
    }

    /// Moves the read position (`whence` is `SEEK_SET`, `SEEK_CUR` or `SEEK_END`).
    /// - Returns: the new position, or -1 when the stream cannot go there.
    package func seek(_ offset: Int, whence: Int32) -> Int {
        // Offsets come from headers (an RF64 ds64 data size near 2^63, say): add without trapping.
        let target: Int
        let overflow: Bool
        switch whence {
        case SEEK_SET: (target, overflow) = (offset, false)
        case SEEK_CUR: (target, overflow) = position.addingReportingOverflow(offset)
        case SEEK_END:
            guard let length = knownLength else { refusedSeek = true; return -1 }
            (target, overflow) = length.addingReportingOverflow(offset)
        default: return -1
        }
        if overflow {
            // Far beyond anything a stream holds: as a far forward seek is, refused.
            if offset > 0 { refusedSeek = true }
            return -1
        }
        guard target >= 0 else { return -1 }
        if let length = knownLength, start == 0 {
            guard target <= length else { return -1 }
        } else if target - Self.forwardSeekLimit > start + kept.count {
            refusedSeek = true
            return -1
        } else if target < start && target >= head.count {
            refusedSeek = true
            return -1
        }
        position = target
        return position
    }

    /// Reads from the descriptor until `end` bytes of the stream have been read, or it ends.
    private func fill(upTo end: Int) {
        while !ended && start + kept.count < end {
            switch InputFile.read(descriptor, into: chunk.baseAddress!, count: chunk.count, stopRequested: stopRequested) {
            case .bytes(let n): kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            case .ended:
                ended = true
                stopped = stopRequested()
            case .failed(let reason):
                readError = reason
                ended = true
            }
        }
    }

    /// Drops bytes well behind the read position, keeping the head.
    private func dropOld() {
        guard descriptor >= 0, position - start > 3 * Self.windowBytes else { return }
        if start == 0 { head = Array(kept.prefix(Self.headBytes)) }
        let drop = position - Self.windowBytes - start
        kept.removeFirst(drop)
        start += drop
    }

    /// The stream behind a virtual I/O callback's `user_data`.
    static func from(_ user: UnsafeMutableRawPointer?) -> ByteStream {
        Unmanaged<ByteStream>.fromOpaque(user!).takeUnretainedValue()
    }
}
