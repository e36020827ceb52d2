import SoundCompassEngine

/// The rows of a truth CSV, read the way IMU logs are (``IMUCSVScanner``): a file in pieces of
/// 64 KiB as it is parsed, each row handed on as its cells and line, and a row longer than
/// ``IMUCSVScanner/maximumRowBytes`` refused at once. A file without line breaks therefore
/// costs one row's worth of memory and ends in an error naming its first line, however long
/// it is.
enum TruthCSV {
    /// The longest truth row accepted, bytes (that of IMU logs).
    static let maximumRowBytes = IMUCSVScanner.maximumRowBytes

    /// Calls `row` with the cells (trimmed) and line (1-based) of each row of the file at `path`,
    /// a regular file of at most ``TruthTrack/maximumFileBytes``.
    /// - Throws: ``TruthError`` naming the file, or what `row` throws.
    static func forEachRow(path: String, _ row: ([String], Int) throws(TruthError) -> Void) throws(TruthError) {
        let scanner = IMUCSVScanner()
        do {
            try InputFile.forEachPiece(path, limit: TruthTrack.maximumFileBytes) { piece in
                try scan(piece, with: scanner, name: path, row)
            }
        } catch let error as TruthError {
            throw error
        } catch let failure as InputFile.Failure {
            switch failure {
            case .notFound: throw .notFound(path: path)
            case .unreadable(let reason): throw .unreadable(path: path, reason: reason)
            }
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        try scanner.finish { (cells) throws(TruthError) in try row(cells.cells, cells.line) }
    }

    /// Calls `row` with the cells and line of each row of CSV `text` (see ``forEachRow(path:_:)``).
    static func forEachRow(text: String, name: String, _ row: ([String], Int) throws(TruthError) -> Void) throws(TruthError) {
        let scanner = IMUCSVScanner()
        var text = text
        try text.withUTF8 { bytes in
            Result { () throws(TruthError) in try scan(bytes, with: scanner, name: name, row) }
        }.get()
        try scanner.finish { (cells) throws(TruthError) in try row(cells.cells, cells.line) }
    }

    private static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, with scanner: IMUCSVScanner, name: String,
        _ row: ([String], Int) throws(TruthError) -> Void
    ) throws(TruthError) {
        do {
            try scanner.scan(bytes) { (cells) throws(TruthError) in try row(cells.cells, cells.line) }
        } catch {
            switch error {
            case .scanner(.rowTooLong(let line)):
                throw .badRow(
                    path: name, line: line,
                    problem: "longer than \(maximumRowBytes) bytes, far more than a truth row needs (is this a truth CSV?)")
            case .row(let error):
                throw error
            }
        }
    }
}
