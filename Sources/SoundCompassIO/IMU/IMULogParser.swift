import SoundCompassEngine

/// Reads IMU CSV, header first, and hands on each usable row: IMU time in seconds and yaw
/// in degrees growing clockwise (units and sign applied; the clock offset is the caller's).
///
/// Bytes may come in pieces (a file that is still being written): a row is read once its line
/// end has arrived, and ``finish(row:)`` reads a last line without one. Rows that cannot be used
/// are counted and the first few kept for warnings. Line numbers are those of the file,
/// 1-based, counting the lines inside quoted cells. A row longer than
/// ``IMUCSVScanner/maximumRowBytes`` stops the reading with an error.
package final class IMULogParser {
    /// The file, for messages.
    package let path: String
    /// Units and sign.
    package let format: IMUFormat
    /// The columns found in the header; `nil` until the header has been read.
    package private(set) var columns: IMUColumns?
    /// The first few rows skipped (at most ``keptSkips``).
    package private(set) var skipped: [IMUSkippedRow] = []
    /// Rows skipped in all.
    package private(set) var skippedCount = 0
    /// Data rows seen (usable or not; blank lines are not rows).
    package private(set) var rowCount = 0
    /// Skipped rows kept for messages.
    package static let keptSkips = 5

    private let scanner = IMUCSVScanner()

    /// The next line to be read, 1-based.
    package var nextLine: Int { scanner.line }

    package init(path: String, format: IMUFormat) {
        self.path = path
        self.format = format
    }

    /// Parses a piece of the CSV and calls `row` for each usable data row whose line end has
    /// arrived.
    /// - Parameters:
    ///   - bytes: the next bytes of the file.
    ///   - row: takes (IMU time in seconds, yaw in degrees growing clockwise, line number).
    /// - Throws: ``IMUError/badHeader(path:line:problem:)`` when the header lacks a column,
    ///   ``IMUError/lineTooLong(path:line:limit:)`` when a row is too long.
    package func consume(_ bytes: UnsafeBufferPointer<UInt8>, row: (Double, Double, Int) -> Void) throws(IMUError) {
        do {
            try scanner.scan(bytes) { (cells) throws(IMUError) in try read(cells, row: row) }
        } catch {
            switch error {
            case .scanner(.rowTooLong(let line)):
                throw IMUError.lineTooLong(path: path, line: line, limit: IMUCSVScanner.maximumRowBytes)
            case .row(let error):
                throw error
            }
        }
    }

    /// Parses `text` as the next piece of the CSV (see ``consume(_:row:)-(UnsafeBufferPointer<UInt8>,_)``).
    package func consume(_ text: String, row: (Double, Double, Int) -> Void) throws(IMUError) {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(IMUError) in try consume(bytes, row: row) }
        }
        try result.get()
    }

    /// Reads the last line when it has no line end: call once the whole file has been consumed.
    package func finish(row: (Double, Double, Int) -> Void) throws(IMUError) {
        try scanner.finish { (cells) throws(IMUError) in try read(cells, row: row) }
    }

    /// Reads a row: the header, a blank line, or a data row.
    private func read(_ cells: IMUCSVRow, row: (Double, Double, Int) -> Void) throws(IMUError) {
        if cells.isBlank { return }
        guard let columns else {
            switch IMUColumns.find(in: cells.cells) {
            case .success(let found): columns = found
            case .failure(let problem): throw IMUError.badHeader(path: path, line: cells.line, problem: problem)
            }
            return
        }
        rowCount += 1
        do {
            let values = try columns.values(of: cells, format: format)
            row(values.time * format.timeUnit.seconds, values.yaw * format.yawSign, cells.line)
        } catch {
            skip(line: cells.line, problem: error)
        }
    }

    /// Records a row that cannot be used.
    package func skip(line: Int, problem: IMUProblem) {
        skippedCount += 1
        if skipped.count < Self.keptSkips { skipped.append(IMUSkippedRow(line: line, problem: problem)) }
    }

    /// Adds IMU row `(time, yaw)` to `timeline` at `time + offset`; a row whose time is not after
    /// the previous one is skipped with a problem.
    /// - Returns: true when the row was appended.
    @discardableResult
    package func append(time: Double, yaw: Double, line: Int, offset: Double, to timeline: YawTimeline) -> Bool {
        switch timeline.append(time: time + offset, yaw: yaw) {
        case nil: return true
        case .notLater(let previous)?:
            let imuPrevious = (previous - offset) / format.timeUnit.seconds
            let imuTime = time / format.timeUnit.seconds
            skip(line: line, problem: IMUProblem(
                imuTime == imuPrevious
                    ? "time \(formatSeconds(imuTime)) repeats the previous row's"
                    : "time \(formatSeconds(imuTime)) goes back from the previous row's \(formatSeconds(imuPrevious))"))
            return false
        case .notFinite?:
            skip(line: line, problem: IMUProblem("time or yaw is not finite"))
            return false
        }
    }
}
