import SoundCompassEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the sound really was: a still azimuth, or a path read from a `time,azimuth` CSV as
/// `soundcompass synth` writes it (extra columns are ignored).
///
/// Rows where no source plays are simply absent: between two rows further apart than
/// ``maximumGapSeconds`` there is no truth, and none before the first or after the last row.
public struct TruthTrack: Sendable {
    /// The file the path came from, or a description of the still azimuth, for messages.
    public let name: String
    /// Row times, seconds, strictly increasing (empty for a still source).
    public let times: [Double]
    /// Row azimuths, degrees (0 ahead, negative left, ±180 behind).
    public let azimuths: [Double]
    /// The azimuth of a still source, degrees; `nil` for a path.
    public let stillAzimuth: Double?
    /// Longest gap between two rows that is interpolated across, seconds.
    public let maximumGapSeconds: Double

    /// A still source at `azimuth` degrees for the whole recording.
    public init(stillAzimuth azimuth: Double) {
        name = "\(azimuth)°"
        times = []
        azimuths = []
        stillAzimuth = azimuth
        maximumGapSeconds = 0
    }

    /// The largest truth CSV read, bytes (512 MiB: a day of rows every 10 ms is about 100 MB).
    public static let maximumFileBytes = 1 << 29

    /// Reads a truth CSV file (a regular file of at most ``maximumFileBytes``), in pieces as
    /// it is parsed: a row longer than 64 KiB is refused before more of the file is held.
    /// - Throws: ``TruthError`` naming the file (and the line).
    public init(path: String) throws(TruthError) {
        let rows = Rows(name: path)
        try TruthCSV.forEachRow(path: path) { (cells, line) throws(TruthError) in try rows.add(cells, line: line) }
        try self.init(rows)
    }

    /// Parses truth CSV text: a header with `time` and `azimuth` columns (any case, any
    /// order), then one row per time.
    /// - Throws: ``TruthError`` naming `name` and the line.
    public init(text: String, name: String) throws(TruthError) {
        let rows = Rows(name: name)
        try TruthCSV.forEachRow(text: text, name: name) { (cells, line) throws(TruthError) in try rows.add(cells, line: line) }
        try self.init(rows)
    }

    /// A track being read, row by row.
    final class Rows {
        let name: String
        private(set) var columns: (time: Int, azimuth: Int)?
        private(set) var times: [Double] = [], azimuths: [Double] = []

        init(name: String) { self.name = name }

        /// Reads the header, a blank row or a data row.
        func add(_ cells: [String], line: Int) throws(TruthError) {
            if cells.allSatisfy({ $0.isEmpty }) { return }
            guard let found = columns else {
                let names = cells.map { $0.lowercased().replacingBOM() }
                guard let t = names.firstIndex(of: "time") else { throw .missingColumn(path: name, column: "time") }
                guard let a = names.firstIndex(of: "azimuth") else {
                    throw .missingColumn(path: name, column: "azimuth")
                }
                columns = (t, a)
                return
            }
            guard cells.count > max(found.time, found.azimuth) else {
                throw .badRow(path: name, line: line, problem: "has \(cells.count) cells, fewer than the header")
            }
            guard let t = Double(cells[found.time]), t.isFinite else {
                throw .badRow(path: name, line: line, problem: "time \"\(cells[found.time])\" is not a number")
            }
            guard let a = Double(cells[found.azimuth]), a.isFinite, abs(a) <= 360 else {
                throw .badRow(path: name, line: line, problem: "azimuth \"\(cells[found.azimuth])\" is not an angle in degrees")
            }
            if let previous = times.last, t <= previous {
                throw .badRow(path: name, line: line, problem: "time \(t) is not after the previous row's \(previous)")
            }
            times.append(t)
            azimuths.append(a)
        }
    }

    /// The track `rows` read.
    /// - Throws: ``TruthError/empty(path:)`` or ``TruthError/noRows(path:)``.
    init(_ rows: Rows) throws(TruthError) {
        let name = rows.name
        guard rows.columns != nil else { throw .empty(path: name) }
        guard !rows.times.isEmpty else { throw .noRows(path: name) }
        let times = rows.times
        self.name = name
        self.times = times
        self.azimuths = rows.azimuths
        stillAzimuth = nil
        // Gaps up to a few row steps are interpolated; longer ones are pauses of the source.
        var steps = zip(times.dropFirst(), times).map { $0 - $1 }
        steps.sort()
        let typical = steps.isEmpty ? 0.01 : steps[steps.count / 2]
        maximumGapSeconds = max(0.05, 3 * typical)
    }

    /// The true azimuth at `time` seconds, degrees (interpolated along the shorter way round),
    /// or `nil` where the truth says nothing.
    public func azimuth(at time: Double) -> Double? {
        if let stillAzimuth { return stillAzimuth }
        guard let first = times.first, let last = times.last else { return nil }
        if time < first || time > last {
            let nearest = time < first ? 0 : times.count - 1
            return abs(time - times[nearest]) <= maximumGapSeconds / 2 ? azimuths[nearest] : nil
        }
        // Binary search for the last row at or before `time`.
        var low = 0, high = times.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if times[mid] <= time { low = mid } else { high = mid }
        }
        if times[low] == time || low == high { return azimuths[low] }
        let t0 = times[low], t1 = times[high]
        guard t1 - t0 <= maximumGapSeconds else { return nil }
        let a0 = azimuths[low]
        let step = TruthTrack.difference(azimuths[high], a0)
        return YawTimeline.wrap(a0 + step * (time - t0) / (t1 - t0))
    }

    /// The range of true azimuths, degrees (a still source: one value).
    public var azimuthRange: ClosedRange<Double> {
        if let stillAzimuth { return stillAzimuth...stillAzimuth }
        return azimuths.min()!...azimuths.max()!
    }

    /// `a − b` on the circle, degrees in (−180, 180].
    public static func difference(_ a: Double, _ b: Double) -> Double { YawTimeline.wrap(a - b) }

    /// The error of a reported azimuth against the truth, degrees. While front/back is unknown
    /// the report is lateral ([−90, 90]), so the truth is folded to the front first (a source
    /// at 150° is heard at 30°).
    /// - Parameters:
    ///   - azimuth: the reported azimuth, degrees.
    ///   - truth: the true azimuth, degrees.
    ///   - hemisphereKnown: whether the report is on the full circle.
    public static func error(azimuth: Double, truth: Double, hemisphereKnown: Bool) -> Double {
        if hemisphereKnown { return difference(azimuth, truth) }
        return azimuth - lateral(truth)
    }

    /// An azimuth folded to the front half-plane, degrees in [−90, 90].
    public static func lateral(_ degrees: Double) -> Double {
        let a = YawTimeline.wrap(degrees)
        if a > 90 { return 180 - a }
        if a < -90 { return -180 - a }
        return a
    }
}

/// Why a truth file cannot be used. Each description is one line naming the file.
public enum TruthError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case missingColumn(path: String, column: String)
    case badRow(path: String, line: Int, problem: String)
    case noRows(path: String)

    /// True when the file is missing or cannot be read (exit 66 in the CLI); the others are bad data (65).
    public var isUnreadable: Bool {
        switch self {
        case .notFound, .unreadable: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .notFound(let p): "\(p): truth file not found"
        case .unreadable(let p, let reason): "\(p): cannot read the truth file: \(reason)"
        case .empty(let p): "\(p): truth file is empty (expected a header with time and azimuth columns)"
        case .missingColumn(let p, let column): "\(p): truth file has no \"\(column)\" column in its header (expected time,azimuth)"
        case .badRow(let p, let line, let problem): "\(p): line \(line): \(problem)"
        case .noRows(let p): "\(p): truth file has a header but no rows"
        }
    }
}

extension String {
    /// The string without a leading byte-order mark.
    fileprivate func replacingBOM() -> String { hasPrefix("\u{FEFF}") ? String(dropFirst()) : self }
}

/// Errors of reported azimuths against a truth, collected frame by frame.
package struct AzimuthErrors: Sendable, Equatable {
    /// Signed errors (reported minus true), degrees, one per active frame with a truth.
    package private(set) var errors: [Double] = []

    package init() {}

    /// Adds `record` when it is active and the truth knows where the source was.
    package mutating func add(_ record: AnalysisRecord, truth: TruthTrack) {
        guard record.active, let true_ = truth.azimuth(at: record.time) else { return }
        errors.append(TruthTrack.error(
            azimuth: record.azimuth, truth: true_, hemisphereKnown: record.hemisphere != .unknown))
    }

    /// Frames compared.
    package var count: Int { errors.count }
    /// Median absolute error, degrees (0 with no frames).
    package var median: Double { Quantile.interpolated(sorted: errors.map(abs).sorted(), 0.5) }
    /// 90th percentile of the absolute error, degrees.
    package var percentile90: Double { Quantile.interpolated(sorted: errors.map(abs).sorted(), 0.9) }
    /// Median signed error, degrees: a bias to one side.
    package var bias: Double { Quantile.interpolated(sorted: errors.sorted(), 0.5) }
}
