import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A whole IMU log read from a CSV file, as a ``YawTimeline`` on the audio clock.
///
/// The file has a header row; columns are found by name, case-insensitively, in any order, and
/// other columns are ignored: time is `time`, `t`, `timestamp` or `seconds`; orientation is
/// `yaw` or `heading`, or a quaternion `qw, qx, qy, qz`. See Docs/IMU.md.
public struct IMULog {
    /// The file read.
    public let path: String
    /// Yaw over time, on the audio clock.
    public let timeline: YawTimeline
    /// The first few rows skipped, with why.
    public let skipped: [IMUSkippedRow]
    /// Rows skipped in all.
    public let skippedCount: Int
    /// Usable rows.
    public let usableRows: Int
    /// Lines of the first and last usable rows.
    public let lines: ClosedRange<Int>

    /// Reads and checks a whole log.
    /// - Throws: ``IMUError`` naming the file (and the line, where there is one).
    /// The file is read in pieces as it is parsed, so a row beyond
    /// ``IMUCSVScanner/maximumRowBytes`` is refused before more of the file is held.
    /// - Throws: ``IMUError`` naming the file (and the line, where there is one).
    public init(path: String, format: IMUFormat) throws(IMUError) {
        try self.init(path: path, format: format) { (consume) throws(IMUError) in
            do {
                try InputFile.forEachPiece(path, limit: Self.maximumFileBytes) { piece in try consume(piece) }
            } catch let error as IMUError {
                throw error
            } catch let failure as InputFile.Failure {
                throw IMUError(path: path, failure: failure)
            } catch {
                throw IMUError.unreadable(path: path, reason: "\(error)")
            }
        }
    }

    /// Reads and checks a whole log given as text.
    /// - Parameters:
    ///   - text: the CSV.
    ///   - path: the name to give in messages.
    ///   - format: units, sign and offset.
    public init(text: String, path: String, format: IMUFormat) throws(IMUError) {
        try self.init(path: path, format: format) { (consume) throws(IMUError) in
            var text = text
            try text.withUTF8 { bytes in Result { () throws(IMUError) in try consume(bytes) } }.get()
        }
    }

    /// Reads a log whose bytes `feed` hands, in pieces, to the closure it is given.
    private init(
        path: String, format: IMUFormat,
        feed: ((UnsafeBufferPointer<UInt8>) throws(IMUError) -> Void) throws(IMUError) -> Void
    ) throws(IMUError) {
        let parser = IMULogParser(path: path, format: format)
        let timeline = YawTimeline()  // grows as rows come (reserving a row per line would let blank lines cost memory)
        var first = Int.max, last = 0
        let row = { (time: Double, yaw: Double, line: Int) in
            if parser.append(time: time, yaw: yaw, line: line, offset: format.offsetSeconds, to: timeline) {
                first = min(first, line)
                last = line
            }
        }
        try feed { (bytes) throws(IMUError) in try parser.consume(bytes, row: row) }
        try parser.finish(row: row)
        if parser.columns == nil { throw IMUError.empty(path: path) }
        if parser.rowCount == 0 { throw IMUError.noRows(path: path) }
        guard timeline.count > 0 else {
            // Every row was seen and skipped.
            let firstSkip = parser.skipped[0]
            throw IMUError.noUsableRows(path: path, line: firstSkip.line, problem: firstSkip.problem, rows: parser.skippedCount)
        }
        self.path = path
        self.timeline = timeline
        self.skipped = parser.skipped
        self.skippedCount = parser.skippedCount
        self.usableRows = timeline.count
        self.lines = first...last
    }

    /// Time span of the usable rows on the audio clock, seconds.
    public var span: ClosedRange<Double> { timeline.samples.first!.time...timeline.samples.last!.time }

    /// Checks that the log covers some of an audio stream of `duration` seconds.
    /// - Throws: ``IMUError/noOverlap(path:firstLine:lastLine:imuStart:imuEnd:audioEnd:offset:)``.
    public func checkOverlap(audioDuration duration: Double, offset: Double) throws(IMUError) {
        let span = self.span
        let slack = timeline.maximumGapSeconds
        if span.upperBound < -slack || span.lowerBound > duration + slack {
            throw IMUError.noOverlap(
                path: path, firstLine: lines.lowerBound, lastLine: lines.upperBound, imuStart: span.lowerBound,
                imuEnd: span.upperBound, audioEnd: duration, offset: offset)
        }
    }

    /// The warnings to show for skipped rows: the first few, then how many more.
    public var warnings: [String] {
        var lines = skipped.map { "\(path): \($0)" }
        if skippedCount > skipped.count {
            lines.append("\(path): \(skippedCount - skipped.count) more rows skipped (\(skippedCount) of \(skippedCount + usableRows))")
        }
        return lines
    }

    /// The largest IMU log read whole, bytes (512 MiB: a day of 100 Hz rows of about 60 bytes).
    public static let maximumFileBytes = 1 << 29

    /// Opens a log for reading (`O_RDONLY` plus `flags`); it must be a regular file.
    /// - Throws: ``IMUError/notFound(path:)``, or ``IMUError/unreadable(path:reason:)`` for
    ///   any other failure and for a directory.
    static func openLog(_ path: String, flags: Int32 = 0) throws(IMUError) -> Int32 {
        do { return try InputFile.open(path, flags: flags, regularOnly: true) } catch { throw IMUError(path: path, failure: error) }
    }
}

extension IMUError {
    init(path: String, failure: InputFile.Failure) {
        switch failure {
        case .notFound: self = .notFound(path: path)
        case .unreadable(let reason): self = .unreadable(path: path, reason: reason)
        }
    }
}
