import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Follows an IMU log that another program is still writing, as `tail -f` does, and feeds
/// the rows that have arrived into a ``YawTimeline``.
///
/// Call ``poll(now:)`` between audio periods: it reads whatever has been appended (without
/// waiting), parses the complete lines (ending in LF, CR LF or CR) and keeps a partial last
/// line for the next call. Only the last couple of seconds of yaw are kept, and a line longer
/// than ``IMUCSVScanner/maximumRowBytes`` is an error, so a session can run for days whatever
/// the file holds.
///
/// **Clock.** With an ``IMUFormat/offset``, rows go to `IMU time · unit + offset` as for a whole
/// file. Without one (`nil`), the newest row of the first poll that finds any is taken to be
/// "now" on the audio clock, which suits a logger writing as it measures.
public final class IMUFollower {
    /// The file followed.
    public let path: String
    /// Yaw as it arrives, on the audio clock.
    public let timeline: YawTimeline
    /// Seconds added to IMU time; `nil` until found, when following without one.
    public private(set) var offset: Double?
    /// Usable rows read so far.
    public private(set) var usableRows = 0

    private let parser: IMULogParser
    private let descriptor: Int32
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var batch: [(time: Double, yaw: Double, line: Int)] = []
    private var reportedSkips = 0

    /// Seconds of yaw kept behind "now".
    public static let history = 2.0

    /// Opens the log (it must exist; it may still be empty).
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - format: units and sign; its offset is ignored in favour of `offset`.
    ///   - offset: seconds added to IMU time, or `nil` to take the first rows as "now".
    /// - Throws: ``IMUError/notFound(path:)`` or ``IMUError/unreadable(path:reason:)``.
    public init(path: String, format: IMUFormat, offset: Double?) throws(IMUError) {
        let fd = try IMULog.openLog(path, flags: O_NONBLOCK)
        self.path = path
        self.descriptor = fd
        self.offset = offset
        self.parser = IMULogParser(path: path, format: format)
        self.timeline = YawTimeline(capacity: 4096)
        batch.reserveCapacity(1024)
    }

    deinit { close(descriptor) }

    /// Reads what has been appended since the last call and adds its rows to ``timeline``.
    /// - Parameter now: the stream time reached, seconds on the audio clock.
    /// - Throws: ``IMUError/badHeader(path:line:problem:)`` when the header lacks a column,
    ///   ``IMUError/lineTooLong(path:line:limit:)`` when a line is too long (the file is not an
    ///   IMU log), or ``IMUError/unreadable(path:reason:)`` when reading fails.
    public func poll(now: Double) throws(IMUError) {
        batch.removeAll(keepingCapacity: true)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                throw IMUError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            // The parser keeps a partial last line itself (at most a row's limit of it).
            let result = chunk.withUnsafeBufferPointer { buffer in
                Result { () throws(IMUError) in
                    try parser.consume(UnsafeBufferPointer(rebasing: buffer[0..<n])) { time, yaw, line in
                        batch.append((time, yaw, line))
                    }
                }
            }
            try result.get()
            if offset != nil { add(now: now) }
            if n < chunk.count { break }
        }
        if offset == nil, let newest = batch.last { offset = now - newest.time }
        add(now: now)
    }

    /// Adds the rows read (once the offset is known) and drops what no frame will ask for.
    private func add(now: Double) {
        guard let offset else {
            // Until a row arrives there is no clock: keep only the rows the newest could need.
            if batch.count > 65_536, let newest = batch.last {
                batch.removeAll { $0.time < newest.time - 2 * Self.history }
            }
            return
        }
        for row in batch {
            if parser.append(time: row.time, yaw: row.yaw, line: row.line, offset: offset, to: timeline) {
                usableRows += 1
            }
        }
        batch.removeAll(keepingCapacity: true)
        timeline.discard(before: now - Self.history)
    }

    /// Warnings for rows skipped since the last call (the first few rows one by one, then a
    /// count at ``finalWarnings``).
    public func newWarnings() -> [String] {
        defer { reportedSkips = parser.skipped.count }
        return parser.skipped[reportedSkips...].map { "\(path): \($0)" }
    }

    /// What to say at the end of a session: rows skipped beyond those already reported, and
    /// whether any row was usable at all.
    public func finalWarnings() -> [String] {
        var lines: [String] = []
        if parser.skippedCount > parser.skipped.count {
            lines.append("\(path): \(parser.skippedCount - parser.skipped.count) more IMU rows skipped")
        }
        if parser.columns == nil {
            lines.append("\(path): no IMU header arrived; front/back stayed unknown")
        } else if usableRows == 0 {
            lines.append("\(path): no usable IMU rows arrived; front/back stayed unknown")
        }
        return lines
    }
}
