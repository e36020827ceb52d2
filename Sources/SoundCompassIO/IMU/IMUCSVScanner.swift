#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Splits CSV bytes into rows of cells, byte by byte, as they arrive: RFC 4180 quoting (`""`
/// inside a quoted cell is a quote; line breaks inside one belong to the cell), CR LF, LF or CR
/// line ends (a CR at the end of one piece and an LF at the start of the next are one line
/// end), a UTF-8 byte-order mark at the very start ignored, and spaces and tabs around every
/// cell trimmed.
///
/// Lenient where RFC 4180 is not: a quote inside an unquoted cell is kept as it is, and text
/// after a closing quote is added to the cell. A row holds at most ``maximumRowBytes`` bytes,
/// so a file without line breaks cannot make it grow without bound.
///
/// Each row is handed to a callback as an ``IMUCSVRow`` that lives only during the call; the
/// storage is reused, so scanning does not allocate once it has grown to the longest row.
package final class IMUCSVScanner {
    /// The longest row accepted, bytes (line breaks inside quoted cells included; its own
    /// line end not).
    package static let maximumRowBytes = 65_536

    /// The line the next byte is on, 1-based (lines inside quoted cells count).
    package private(set) var line = 1
    /// The line the current row started on.
    package private(set) var rowLine = 1

    private enum State {
        /// Before a cell's first byte other than a space or tab.
        case cellStart
        /// In an unquoted cell.
        case unquoted
        /// In a quoted cell.
        case quoted
        /// After a quote in a quoted cell: the closing quote, or the first of a `""` pair.
        case quoteInQuoted
    }

    private var state = State.cellStart
    /// Bytes of the current row's cells, one after another, each followed by a NUL.
    private var bytes: [UInt8] = []
    /// Where each finished cell of the current row starts and ends in ``bytes`` (trimmed).
    private var starts: [Int] = []
    private var ends: [Int] = []
    /// Where the cell being read starts in ``bytes``.
    private var cellStart = 0
    /// Bytes of the current row so far, as in the file.
    private var rowBytes = 0
    /// The last byte was a CR ending a line: an LF next is the same line end.
    private var afterCR = false
    /// Bytes of a byte-order mark matched at the start of the stream; `nil` once past it.
    private var bomMatched: Int? = 0

    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Why scanning stopped.
    package enum Failure: Error, Equatable {
        /// The row starting on `line` grew past ``maximumRowBytes``.
        case rowTooLong(line: Int)
    }

    package init() {
        bytes.reserveCapacity(256)
        starts.reserveCapacity(16)
        ends.reserveCapacity(16)
    }

    /// Ends the cell that starts at `cellStart` in `bytes`: records its extent without the
    /// spaces and tabs around it, and terminates it with a NUL (for `strtod`).
    @inline(__always)
    private static func closeCell(from cellStart: Int, bytes: inout [UInt8], starts: inout [Int], ends: inout [Int]) {
        var s = cellStart, e = bytes.count
        while s < e && (bytes[s] == 32 || bytes[s] == 9) { s += 1 }
        while e > s && (bytes[e - 1] == 32 || bytes[e - 1] == 9) { e -= 1 }
        starts.append(s)
        ends.append(e)
        bytes.append(0)
    }

    // MARK: - Scanning

    /// Scans `input` (any piece of the stream) and calls `row` for each row completed by a line
    /// end. A partial last row is kept for the next call, or for ``finish(row:)``.
    /// - Throws: ``Failure/rowTooLong(line:)`` when a row grows past ``maximumRowBytes``, or
    ///   what `row` throws (the row's end has then been scanned).
    package func scan<E: Error>(_ input: UnsafeBufferPointer<UInt8>, row: (IMUCSVRow) throws(E) -> Void) throws(ScanError<E>) {
        // Work on locals: a class's stored properties are checked for exclusive access on
        // every use, which would cost more than the scanning itself.
        var bytes = self.bytes, starts = self.starts, ends = self.ends
        self.bytes = []; self.starts = []; self.ends = []
        var state = self.state, cellStart = self.cellStart, rowBytes = self.rowBytes, afterCR = self.afterCR
        var line = self.line, rowLine = self.rowLine, bomMatched = self.bomMatched
        var i = 0
        defer {
            self.bytes = bytes; self.starts = starts; self.ends = ends
            self.state = state; self.cellStart = cellStart; self.rowBytes = rowBytes; self.afterCR = afterCR
            self.line = line; self.rowLine = rowLine
            self.bomMatched = bomMatched
        }
        func endCell() {
            Self.closeCell(from: cellStart, bytes: &bytes, starts: &starts, ends: &ends)
            cellStart = bytes.count
        }
        // Bytes of a partial byte-order mark that turned out to be data: `held` of `partialMark`.
        var held = 0, partialMark = 0
        while i < input.count || held > 0 {
            let byte: UInt8
            if held > 0 {
                byte = Self.bom[partialMark - held]
                held -= 1
            } else {
                byte = input[i]
                i += 1
                if let matched = bomMatched {
                    if byte == Self.bom[matched] {
                        bomMatched = matched == 2 ? nil : matched + 1
                        continue
                    }
                    bomMatched = nil
                    if matched > 0 {
                        // Not a mark after all: its bytes are data, then this byte.
                        partialMark = matched
                        held = matched
                        i -= 1
                        continue
                    }
                }
            }
            if afterCR {
                afterCR = false
                if byte == 10 {
                    // The LF of a CR LF: the line was counted at the CR.
                    if state == .quoted {
                        rowBytes += 1
                        if rowBytes > Self.maximumRowBytes { throw .scanner(.rowTooLong(line: rowLine)) }
                        bytes.append(byte)
                    }
                    continue
                }
            }
            if (byte == 10 || byte == 13) && state != .quoted {
                endCell()
                line += 1
                afterCR = byte == 13
                state = .cellStart
                let result = Self.handOver(bytes: &bytes, starts: &starts, ends: &ends, line: rowLine, to: row)
                cellStart = 0
                rowBytes = 0
                rowLine = line
                if let result { throw .row(result) }
                continue
            }
            rowBytes += 1
            if rowBytes > Self.maximumRowBytes { throw .scanner(.rowTooLong(line: rowLine)) }
            switch state {
            case .cellStart:
                if byte == 44 {
                    endCell()
                } else if byte == 34 {
                    state = .quoted
                    cellStart = bytes.count
                } else if byte != 32 && byte != 9 {
                    state = .unquoted
                    cellStart = bytes.count
                    bytes.append(byte)
                }
            case .unquoted:
                if byte == 44 {
                    endCell()
                    state = .cellStart
                } else {
                    bytes.append(byte)
                }
            case .quoted:
                if byte == 34 {
                    state = .quoteInQuoted
                } else {
                    if byte == 10 || byte == 13 {
                        line += 1
                        afterCR = byte == 13
                    }
                    bytes.append(byte)
                }
            case .quoteInQuoted:
                if byte == 34 {
                    bytes.append(34)  // "" is a quote
                    state = .quoted
                } else if byte == 44 {
                    endCell()
                    state = .cellStart
                } else {
                    state = .unquoted  // text after the closing quote joins the cell
                    bytes.append(byte)
                }
            }
        }
    }

    /// Calls `row` with a view of the row in the cell buffers, then empties them for the next
    /// row (keeping their capacity); returns what `row` threw.
    @inline(__always)
    private static func handOver<E: Error>(
        bytes: inout [UInt8], starts: inout [Int], ends: inout [Int], line: Int, to row: (IMUCSVRow) throws(E) -> Void
    ) -> E? {
        let result = hand(bytes: bytes, starts: starts, ends: ends, line: line, to: row)
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        return result
    }

    /// Calls `row` with a view of a row; returns what it threw.
    private static func hand<E: Error>(
        bytes: [UInt8], starts: [Int], ends: [Int], line: Int, to row: (IMUCSVRow) throws(E) -> Void
    ) -> E? {
        bytes.withUnsafeBufferPointer { b in
            starts.withUnsafeBufferPointer { s in
                ends.withUnsafeBufferPointer { e in
                    do throws(E) {
                        try row(IMUCSVRow(bytes: b, starts: s, ends: e, line: line))
                        return nil
                    } catch {
                        return error
                    }
                }
            }
        }
    }

    /// Why ``scan(_:row:)`` stopped: the scanner's failure or the row callback's error.
    package enum ScanError<E: Error>: Error {
        case scanner(Failure)
        case row(E)
    }

    /// Completes the partial row at the end of the stream (a last line without a line end)
    /// and calls `row` with it, if there is one.
    package func finish<E: Error>(row: (IMUCSVRow) throws(E) -> Void) throws(E) {
        guard rowBytes > 0 else { return }
        Self.closeCell(from: cellStart, bytes: &bytes, starts: &starts, ends: &ends)
        let result = Self.handOver(bytes: &bytes, starts: &starts, ends: &ends, line: rowLine, to: row)
        cellStart = 0
        rowBytes = 0
        state = .cellStart
        rowLine = line
        if let result { throw result }
    }
}

/// One row of an ``IMUCSVScanner``, valid only during the callback it is handed to.
package struct IMUCSVRow {
    let bytes: UnsafeBufferPointer<UInt8>
    let starts: UnsafeBufferPointer<Int>
    let ends: UnsafeBufferPointer<Int>
    /// The line the row starts on, 1-based.
    package let line: Int

    /// Cells in the row.
    package var cellCount: Int { starts.count }

    /// True when cell `index` is empty (after trimming).
    package func cellIsEmpty(_ index: Int) -> Bool { starts[index] == ends[index] }

    /// True when every cell is empty (a blank line, or only commas and spaces).
    package var isBlank: Bool {
        for i in 0..<starts.count where starts[i] != ends[i] { return false }
        return true
    }

    /// Cell `index`, trimmed, as text (invalid UTF-8 repaired).
    package func cell(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[starts[index]..<ends[index]]), as: UTF8.self)
    }

    /// Every cell, as text.
    package var cells: [String] { (0..<cellCount).map(cell) }

    /// Cell `index` read as a decimal (or hexadecimal) floating-point number, as `strtod` reads
    /// it in the C locale, with nothing else in the cell; `nil` when it is not one. NaN and
    /// infinities are returned as such.
    package func number(_ index: Int) -> Double? {
        let start = starts[index], end = ends[index]
        guard start < end else { return nil }
        let first = bytes[start]
        // strtod skips leading white space; a cell starting with a line break is not a number.
        guard first != 9 && first != 10 && first != 11 && first != 12 && first != 13 && first != 32 else { return nil }
        // Every cell is followed by a NUL (after any trailing spaces), so strtod stops there at
        // the latest; a NUL inside the cell stops it early and fails the check.
        let base = UnsafeRawPointer(bytes.baseAddress! + start).assumingMemoryBound(to: CChar.self)
        var stop: UnsafeMutablePointer<CChar>?
        let value = strtod(base, &stop)
        let expected: UnsafePointer<CChar> = base + (end - start)
        guard let stop, UnsafePointer(stop) == expected else { return nil }
        return value
    }
}
