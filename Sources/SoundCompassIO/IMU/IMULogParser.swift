import SoundCompassEngine
import CSV

/// Reads IMU CSV text, header first, and hands on each usable row: IMU time in seconds and yaw
/// in degrees growing clockwise (units and sign applied; the clock offset is the caller's).
///
/// Text may come in pieces (a file that is still being written): pass complete lines only.
/// Rows that cannot be used are counted and the first few kept for warnings. Line numbers are
/// those of the file, 1-based, counting the lines inside quoted cells.
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

    /// The next line to be read, 1-based.
    package private(set) var nextLine = 1

    package init(path: String, format: IMUFormat) {
        self.path = path
        self.format = format
    }

    /// Parses complete lines of CSV and calls `row` for each usable data row.
    /// - Parameters:
    ///   - text: whole lines (each ending in a line break, except perhaps the file's last).
    ///   - row: takes (IMU time in seconds, yaw in degrees growing clockwise, line number).
    /// - Throws: ``IMUError/badHeader(path:line:problem:)`` when the header lacks a column.
    package func consume(_ text: String, row: (Double, Double, Int) -> Void) throws(IMUError) {
        guard !text.isEmpty else { return }
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text, hasHeaderRow: false, trimFields: true)
        } catch {
            throw IMUError.unreadable(path: path, reason: "\(error)")
        }
        while let cells = reader.next() {
            let line = nextLine
            // A row spans one line plus the line breaks inside its quoted cells.
            nextLine += 1 + cells.reduce(0) { $0 + $1.reduce(0) { $1.isNewline ? $0 + 1 : $0 } }
            if cells.allSatisfy({ $0.trimmed().isEmpty }) { continue }  // blank line
            guard let columns else {
                switch IMUColumns.find(in: cells) {
                case .success(let found): columns = found
                case .failure(let problem): throw IMUError.badHeader(path: path, line: line, problem: problem)
                }
                continue
            }
            rowCount += 1
            do {
                let values = try columns.values(of: cells, format: format)
                row(values.time * format.timeUnit.seconds, values.yaw * format.yawSign, line)
            } catch {
                skip(line: line, problem: error)
            }
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
