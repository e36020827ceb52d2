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
///
/// **Truncated or replaced logs.** When a poll finds nothing new, it checks the path: a file
/// shorter than what was read (truncated, or rewritten in place) is read again from its start,
/// and a different file at the path (rotated: renamed away and created anew) is opened instead.
/// Either way the new text starts with its own header, and without a given offset its first
/// rows are "now" again (a logger that restarts may restart its clock). Each is reported once
/// through ``newWarnings()``.
package final class IMUFollower {
    /// The file followed.
    package let path: String
    /// Yaw as it arrives, on the audio clock.
    package let timeline: YawTimeline
    /// Seconds added to IMU time; `nil` until found, when following without one.
    package private(set) var offset: Double?
    /// Usable rows read so far.
    package private(set) var usableRows = 0

    private var parser: IMULogParser
    private var descriptor: Int32
    /// Bytes read from the current file.
    private var position = 0
    /// The current file's identity, to notice another file at the path.
    private var identity: (device: UInt, inode: UInt)
    /// True when the offset is found from the rows (none was given).
    private let findsOffset: Bool
    private let format: IMUFormat
    /// Notices (truncation, rotation) not yet handed out by ``newWarnings()``.
    private var notices: [String] = []
    /// Skipped rows counted by parsers replaced after a truncation or rotation.
    private var earlierSkips = 0
    private var headerSeen = false
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var batch: [(time: Double, yaw: Double, line: Int)] = []
    private var reportedSkips = 0

    /// Seconds of yaw kept behind "now".
    package static let history = 2.0

    /// Opens the log (it must exist; it may still be empty).
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - format: units and sign; its offset is ignored in favour of `offset`.
    ///   - offset: seconds added to IMU time, or `nil` to take the first rows as "now".
    /// - Throws: ``IMUError/notFound(path:)`` or ``IMUError/unreadable(path:reason:)``.
    package init(path: String, format: IMUFormat, offset: Double?) throws(IMUError) {
        let fd = try IMULog.openLog(path, flags: O_NONBLOCK)
        self.path = path
        self.descriptor = fd
        self.identity = Self.identity(of: fd)
        self.offset = offset
        self.findsOffset = offset == nil
        self.format = format
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
    package func poll(now: Double) throws(IMUError) {
        batch.removeAll(keepingCapacity: true)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                throw IMUError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 {
                // Nothing new: has the log been truncated or replaced? Then go on reading.
                if try followReplacement() { continue }
                break
            }
            position += n
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

    /// At the end of the data: when the file at ``path`` is shorter than what was read or is
    /// another file, starts reading it from its beginning with a new parser.
    /// - Returns: true when it did (the caller reads on).
    private func followReplacement() throws(IMUError) -> Bool {
        var status = stat()
        let replaced = stat(path, &status) == 0
            && (UInt(status.st_dev) != identity.device || UInt(status.st_ino) != identity.inode)
        if replaced {
            // Rotated: the old file is read to its end (this call); now the new one.
            guard let fd = try? IMULog.openLog(path, flags: O_NONBLOCK) else { return false }
            close(descriptor)
            descriptor = fd
            identity = Self.identity(of: fd)
            notices.append("\(path): the log was replaced (rotated); following the new file from its start")
        } else {
            var own = stat()
            guard fstat(descriptor, &own) == 0, Int(own.st_size) < position else { return false }
            guard lseek(descriptor, 0, SEEK_SET) == 0 else { return false }
            notices.append("\(path): the log was truncated; following it again from its start")
        }
        position = 0
        // The old parser's skipped rows: those kept but not yet handed out go out with the
        // notices, the rest are counted at the end.
        notices.insert(contentsOf: parser.skipped[reportedSkips...].map { "\(path): \($0)" }, at: notices.count - 1)
        earlierSkips += parser.skippedCount - parser.skipped.count
        headerSeen = headerSeen || parser.columns != nil
        reportedSkips = 0
        parser = IMULogParser(path: path, format: format)
        batch.removeAll(keepingCapacity: true)
        if findsOffset { offset = nil }
        return true
    }

    private static func identity(of fd: Int32) -> (device: UInt, inode: UInt) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return (0, 0) }
        return (UInt(status.st_dev), UInt(status.st_ino))
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
    package func newWarnings() -> [String] {
        defer {
            reportedSkips = parser.skipped.count
            notices.removeAll()
        }
        return notices + parser.skipped[reportedSkips...].map { "\(path): \($0)" }
    }

    /// What to say at the end of a session: rows skipped beyond those already reported, and
    /// whether any row was usable at all.
    package func finalWarnings() -> [String] {
        var lines: [String] = []
        let unreported = earlierSkips + parser.skippedCount - parser.skipped.count
        if unreported > 0 {
            lines.append("\(path): \(unreported) more IMU rows skipped")
        }
        if parser.columns == nil && !headerSeen {
            lines.append("\(path): no IMU header arrived; front/back stayed unknown")
        } else if usableRows == 0 {
            lines.append("\(path): no usable IMU rows arrived; front/back stayed unknown")
        }
        return lines
    }
}
