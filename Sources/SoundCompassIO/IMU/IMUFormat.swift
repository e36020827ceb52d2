import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How to read an IMU log: units, sign convention and clock offset. See Docs/IMU.md.
public struct IMUFormat: Sendable, Equatable {
    /// Unit of the time column.
    public enum TimeUnit: String, Sendable, CaseIterable {
        case s, ms, us, ns

        /// Seconds per unit.
        public var seconds: Double {
            switch self {
            case .s: 1
            case .ms: 1e-3
            case .us: 1e-6
            case .ns: 1e-9
            }
        }
    }

    /// Unit of a `yaw` or `heading` column.
    public enum AngleUnit: String, Sendable, CaseIterable {
        case deg, rad
    }

    /// Unit of the time column (default seconds).
    public var timeUnit: TimeUnit
    /// Unit of the yaw column (default degrees; quaternions have no unit).
    public var yawUnit: AngleUnit
    /// +1 when the logger's yaw grows turning right (clockwise seen from above, like a compass
    /// heading), −1 when it grows turning left (counter-clockwise, as z-up frames such as
    /// Android's and Core Motion's count).
    public var yawSign: Double
    /// Seconds added to the IMU's time to put it on the audio clock (0 = the first audio sample):
    /// `audio time = IMU time · unit + offsetSeconds`. A logger started 2 s after the recording needs +2.
    public var offsetSeconds: Double

    public init(timeUnit: TimeUnit = .s, yawUnit: AngleUnit = .deg, yawSign: Double = 1, offsetSeconds: Double = 0) {
        precondition(yawSign == 1 || yawSign == -1, "yawSign is +1 or -1")
        self.timeUnit = timeUnit
        self.yawUnit = yawUnit
        self.yawSign = yawSign
        self.offsetSeconds = offsetSeconds
    }

    /// Yaw in degrees (growing clockwise) from a quaternion `(w, x, y, z)`: the z rotation of a
    /// z-y-x (yaw, pitch, roll) decomposition, `atan2(2(wz + xy), 1 − 2(y² + z²))`, before
    /// ``yawSign``. With z pointing down (north-east-down) it grows turning right.
    public static func yawDegrees(w: Double, x: Double, y: Double, z: Double) -> Double {
        atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) * 180 / Double.pi
    }
}

/// Where the orientation is in an IMU log's rows.
package enum IMUColumns: Sendable, Equatable {
    /// A yaw or heading column, and the time column (0-based indices).
    case yaw(time: Int, yaw: Int)
    /// Quaternion columns qw, qx, qy, qz, and the time column (0-based indices).
    case quaternion(time: Int, w: Int, x: Int, y: Int, z: Int)

    /// Names accepted for the time column.
    package static let timeNames = ["time", "t", "timestamp", "seconds"]
    /// Names accepted for a yaw column.
    package static let yawNames = ["yaw", "heading"]
    /// Names of the quaternion columns.
    package static let quaternionNames = ["qw", "qx", "qy", "qz"]

    /// Finds the columns in a header row: by name, case-insensitively, in any order; other
    /// columns are ignored. A yaw column wins over a quaternion.
    /// - Returns: the columns, or the problem in words.
    package static func find(in header: [String]) -> Result<IMUColumns, IMUProblem> {
        let names = header.map { name -> String in
            var n = name
            if n.unicodeScalars.first == "\u{FEFF}" { n.unicodeScalars.removeFirst() }  // UTF-8 byte-order mark
            return n.trimmed().lowercased()
        }
        let found = names.filter { !$0.isEmpty }.joined(separator: ", ")
        guard let time = timeNames.lazy.compactMap({ names.firstIndex(of: $0) }).first else {
            return .failure(IMUProblem(
                "no time column (expected one of \(timeNames.joined(separator: ", ")); found \(found.isEmpty ? "nothing" : found))"))
        }
        if let yaw = yawNames.lazy.compactMap({ names.firstIndex(of: $0) }).first {
            return .success(.yaw(time: time, yaw: yaw))
        }
        let q = quaternionNames.map { names.firstIndex(of: $0) }
        if let w = q[0], let x = q[1], let y = q[2], let z = q[3] {
            return .success(.quaternion(time: time, w: w, x: x, y: y, z: z))
        }
        return .failure(IMUProblem(
            "no orientation columns (expected yaw or heading, or qw, qx, qy, qz; found \(found))"))
    }

    /// The largest time accepted, seconds either way (after the unit): about 317 years, room
    /// for Unix time; beyond it a row is skipped, so that no sum or difference of times overflows.
    package static let timeLimitSeconds = 1e10
    /// The largest yaw accepted, degrees either way (after the unit): nearly 2,800 turns, room
    /// for a logger that never wraps its yaw; beyond it a row is skipped.
    package static let yawLimitDegrees = 1e6

    /// Reads a row: time in the IMU's unit and yaw in degrees as logged
    /// (sign not applied).
    func values(of row: IMUCSVRow, format: IMUFormat) throws(IMUProblem) -> (time: Double, yaw: Double) {
        func number(_ index: Int, _ name: String) throws(IMUProblem) -> Double {
            guard index < row.cellCount else { throw IMUProblem("no \(name) (the row has \(row.cellCount) cells)") }
            guard !row.cellIsEmpty(index) else { throw IMUProblem("\(name) is empty") }
            guard let value = row.number(index) else { throw IMUProblem("\(name) \"\(row.cell(index).prefix(24))\" is not a number") }
            guard value.isFinite else { throw IMUProblem("\(name) is \(row.cell(index).prefix(24))") }
            return value
        }
        let time: Double
        let yaw: Double
        switch self {
        case .yaw(let t, let y):
            time = try number(t, "time")
            let logged = try number(y, "yaw")
            yaw = format.yawUnit == .rad ? logged * 180 / Double.pi : logged
            guard abs(yaw) <= Self.yawLimitDegrees else {
                throw IMUProblem("yaw \(row.cell(y).prefix(24)) is out of range (at most 1000000 degrees either way)")
            }
        case .quaternion(let t, let w, let x, let y, let z):
            time = try number(t, "time")
            let qw = try number(w, "qw"), qx = try number(x, "qx"), qy = try number(y, "qy"), qz = try number(z, "qz")
            let norm = (qw * qw + qx * qx + qy * qy + qz * qz).squareRoot()
            guard norm > 0.5 && norm < 1.5 else {
                let length = norm.isFinite ? formatSeconds(norm) : "far from 1"
                throw IMUProblem("quaternion (\(qw), \(qx), \(qy), \(qz)) is not a rotation (length \(length), not 1)")
            }
            yaw = IMUFormat.yawDegrees(w: qw / norm, x: qx / norm, y: qy / norm, z: qz / norm)
        }
        guard abs(time * format.timeUnit.seconds) <= Self.timeLimitSeconds else {
            throw IMUProblem("time \(row.cell(Self.timeIndex(self)).prefix(24)) is out of range (at most 1e10 s either way)")
        }
        return (time, yaw)
    }

    private static func timeIndex(_ columns: IMUColumns) -> Int {
        switch columns {
        case .yaw(let t, _), .quaternion(let t, _, _, _, _): t
        }
    }
}

/// A problem with an IMU log, in words (without the file name or line).
public struct IMUProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Why an IMU log cannot be used. Every case names the file; the description is one line.
public enum IMUError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not exist.
    case notFound(path: String)
    /// The path exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is 0 bytes long (or only blank lines).
    case empty(path: String)
    /// The header row (line 1) lacks a column the reader needs.
    case badHeader(path: String, line: Int, problem: IMUProblem)
    /// There is a header but no rows after it.
    case noRows(path: String)
    /// A line (a row, with the line breaks inside its quoted cells) is longer than `limit` bytes.
    case lineTooLong(path: String, line: Int, limit: Int)
    /// Every row was unusable; the first problem and how many rows had one.
    case noUsableRows(path: String, line: Int, problem: IMUProblem, rows: Int)
    /// The IMU's time span, put on the audio clock, misses the audio altogether.
    case noOverlap(path: String, firstLine: Int, lastLine: Int, imuStart: Double, imuEnd: Double, audioEnd: Double, offset: Double)

    public var path: String {
        switch self {
        case .notFound(let p), .unreadable(let p, _), .empty(let p), .badHeader(let p, _, _), .noRows(let p),
            .lineTooLong(let p, _, _),
            .noUsableRows(let p, _, _, _), .noOverlap(let p, _, _, _, _, _, _):
            p
        }
    }

    public var description: String {
        func s(_ x: Double) -> String { formatSeconds(x) }
        switch self {
        case .notFound(let p): return "\(p): IMU log not found"
        case .unreadable(let p, let reason): return "\(p): cannot read the IMU log: \(reason)"
        case .empty(let p): return "\(p): IMU log is empty (expected a header row, then one row per reading)"
        case .badHeader(let p, let line, let problem): return "\(p): line \(line): \(problem)"
        case .lineTooLong(let p, let line, let limit):
            return "\(p): line \(line): longer than \(limit) bytes, far more than an IMU row needs (is this a CSV IMU log?)"
        case .noRows(let p): return "\(p): IMU log has a header but no rows (line 2 on is empty)"
        case .noUsableRows(let p, let line, let problem, let rows):
            return "\(p): no usable IMU rows: line \(line): \(problem)"
                + (rows > 1 ? " (and \(rows - 1) more row\(rows == 2 ? "" : "s") with a problem)" : "")
        case .noOverlap(let p, let first, let last, let a, let b, let audio, let offset):
            let rows = first == last ? "line \(first) is at \(s(a)) s" : "lines \(first)–\(last) cover \(s(a))…\(s(b)) s"
            return "\(p): \(rows) on the audio clock (offset \(s(offset)) s), "
                + "which misses the audio (0…\(s(audio)) s); the offset should be the audio time of the IMU's time 0"
        }
    }
}

/// A row the reader skipped, and why.
public struct IMUSkippedRow: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the file.
    public var line: Int
    public var problem: IMUProblem
    public var description: String { "line \(line): \(problem); row skipped" }
}


extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmed() -> String {
        var scalars = Substring.UnicodeScalarView(unicodeScalars)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
