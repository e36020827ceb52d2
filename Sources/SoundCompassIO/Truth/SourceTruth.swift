import SoundCompassEngine

/// Where each of several sources really was: a `time,id,azimuth,active` CSV as `soundcompass
/// synth` writes it for a scene of several sources (`NAME.truth.sources.csv`): per row one
/// source's azimuth (degrees) and whether it plays (`1`/`0`) at that time.
package struct SourceTruth: Sendable {
    /// One true source's rows, in time order.
    package struct Track: Sendable {
        /// The source's id in the file (its place among synth's `--source`s, from 1).
        package let id: Int
        /// Row times, seconds, strictly increasing.
        package let times: [Double]
        /// Row azimuths, degrees.
        package let azimuths: [Double]
        /// Whether the source plays at each row.
        package let active: [Bool]

        /// The row nearest `time` (within one row step of the ends), or `nil` outside the rows.
        func row(at time: Double) -> Int? {
            guard let first = times.first, let last = times.last else { return nil }
            let step = times.count > 1 ? (last - first) / Double(times.count - 1) : 0.01
            guard time >= first - step, time <= last + step else { return nil }
            var low = 0, high = times.count - 1
            while high - low > 1 {
                let mid = (low + high) / 2
                if times[mid] <= time { low = mid } else { high = mid }
            }
            return abs(times[high] - time) < abs(time - times[low]) ? high : low
        }

        /// Where the source was at `time`, degrees, when it played then; else `nil`.
        package func activeAzimuth(at time: Double) -> Double? {
            guard let i = row(at: time), active[i] else { return nil }
            return azimuths[i]
        }
    }

    /// The file, for messages.
    package let name: String
    /// The true sources, by increasing id.
    package let tracks: [Track]

    /// True when CSV text's header names an `id` column: a per-source truth rather than a
    /// ``TruthTrack``.
    package static func isPerSource(_ text: String) -> Bool {
        let header = text.prefix { $0 != "\n" && $0 != "\r" }
        return isPerSource(header: header.split(separator: ",").map(String.init))
    }

    /// True when a truth file's header names an `id` column: a per-source truth rather than a
    /// ``TruthTrack``.
    static func isPerSource(header cells: [String]) -> Bool {
        cells.contains { $0.trimmingSpaces().lowercased() == "id" }
    }

    /// Parses per-source truth CSV text: a header with `time`, `id`, `azimuth` and `active`
    /// columns (any case, any order), then rows.
    /// - Throws: ``TruthError`` naming `name` and the line.
    package init(text: String, name: String) throws(TruthError) {
        let rows = Rows(name: name)
        try TruthCSV.forEachRow(text: text, name: name) { (cells, line) throws(TruthError) in try rows.add(cells, line: line) }
        try self.init(rows)
    }

    /// A per-source truth being read, row by row.
    final class Rows {
        let name: String
        private(set) var columns: [Int]?
        private var rows: [Int: (times: [Double], azimuths: [Double], active: [Bool])] = [:]

        init(name: String) { self.name = name }

        /// Reads the header, a blank row or a data row.
        func add(_ cells: [String], line: Int) throws(TruthError) {
            if cells.allSatisfy({ $0.isEmpty }) { return }
            guard let found = columns else {
                let names = cells.map { $0.lowercased().trimmingSpaces() }
                var indices: [Int] = []
                for column in ["time", "id", "azimuth", "active"] {
                    guard let i = names.firstIndex(of: column) else {
                        throw .missingColumn(path: name, column: column)
                    }
                    indices.append(i)
                }
                columns = indices
                return
            }
            guard cells.count > found.max()! else {
                throw .badRow(path: name, line: line, problem: "has \(cells.count) cells, fewer than the header")
            }
            guard let t = Double(cells[found[0]]), t.isFinite else {
                throw .badRow(path: name, line: line, problem: "time \"\(cells[found[0]])\" is not a number")
            }
            guard let id = Int(cells[found[1]]), id > 0 else {
                throw .badRow(path: name, line: line, problem: "id \"\(cells[found[1]])\" is not a positive whole number")
            }
            guard let a = Double(cells[found[2]]), a.isFinite, abs(a) <= 360 else {
                throw .badRow(path: name, line: line, problem: "azimuth \"\(cells[found[2]])\" is not an angle in degrees")
            }
            guard let on = ["0": false, "1": true, "false": false, "true": true][cells[found[3]].lowercased()] else {
                throw .badRow(path: name, line: line, problem: "active \"\(cells[found[3]])\" is not 0 or 1")
            }
            if let previous = rows[id]?.times.last, t <= previous {
                throw .badRow(path: name, line: line, problem: "time \(t) is not after source \(id)'s previous row's \(previous)")
            }
            // In place: a copy of the arrays per row would make reading quadratic.
            rows[id, default: ([], [], [])].times.append(t)
            rows[id, default: ([], [], [])].azimuths.append(a)
            rows[id, default: ([], [], [])].active.append(on)
        }

        /// The tracks, by increasing id.
        var tracks: [Track] {
            rows.keys.sorted().map { id in
                let r = rows[id]!
                return Track(id: id, times: r.times, azimuths: r.azimuths, active: r.active)
            }
        }
        var isEmpty: Bool { rows.isEmpty }
    }

    /// The per-source truth `rows` read.
    /// - Throws: ``TruthError/empty(path:)`` or ``TruthError/noRows(path:)``.
    init(_ rows: Rows) throws(TruthError) {
        guard rows.columns != nil else { throw .empty(path: rows.name) }
        guard !rows.isEmpty else { throw .noRows(path: rows.name) }
        name = rows.name
        tracks = rows.tracks
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\u{FEFF}" }.reversed().drop { $0 == " " }.reversed())
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String { String(self).trimmingSpaces() }
}

/// Scores the tracked sources (``AnalysisRecord/sources``) against a ``SourceTruth``, frame by
/// frame, in memory that does not grow with the recording.
///
/// A true source is *found* in a frame where it plays when a reported source (any listed in
/// the record, heard or held) is within ``hitDegrees`` of it; its error in a frame is that of
/// the nearest reported source. A reported source is *false* when it is farther than
/// ``falseDegrees`` from every true source playing (frames where none plays are not judged).
/// While front/back is unknown, true azimuths are folded to the front first.
package struct SourceScoring: Sendable {
    /// A true source's figures.
    package struct Figures: Sendable, Equatable {
        /// The true source's id.
        package var id: Int
        /// Frames where it played.
        package var frames: Int
        /// Share of those frames with a reported source within ``SourceScoring/hitDegrees``, 0…1.
        package var foundShare: Double
        /// Median error of the nearest reported source over the frames with any, degrees
        /// (`nil` with none).
        package var medianError: Double?
    }

    /// A true source is found within this many degrees.
    package static let hitDegrees = 10.0
    /// A reported source farther than this many degrees from every true source is false.
    package static let falseDegrees = 15.0

    /// The truth.
    package let truth: SourceTruth
    private var judged: [Int]
    private var found: [Int]
    private var errors: [BinnedQuantile]
    /// Tracked sources listed in the frames where a true source was active.
    package private(set) var reported = 0
    /// Those of ``reported`` farther than ``falseDegrees`` from every active true source.
    package private(set) var falseCount = 0

    package init(truth: SourceTruth) {
        self.truth = truth
        judged = [Int](repeating: 0, count: truth.tracks.count)
        found = judged
        errors = truth.tracks.map { _ in BinnedQuantile(low: 0, high: 180, binWidth: 0.01) }
    }

    /// Scores one record.
    package mutating func add(_ record: AnalysisRecord) {
        let known = record.hemisphere != .unknown
        var playing: [Double] = []
        for (k, track) in truth.tracks.enumerated() {
            guard let azimuth = track.activeAzimuth(at: record.time) else { continue }
            playing.append(azimuth)
            judged[k] += 1
            var nearest = Double.infinity
            for source in record.sources {
                nearest = min(nearest, abs(TruthTrack.error(azimuth: source.azimuth, truth: azimuth, hemisphereKnown: known)))
            }
            if nearest.isFinite { errors[k].add(nearest) }
            if nearest <= Self.hitDegrees { found[k] += 1 }
        }
        guard !playing.isEmpty else { return }
        for source in record.sources {
            reported += 1
            let far = playing.allSatisfy {
                abs(TruthTrack.error(azimuth: source.azimuth, truth: $0, hemisphereKnown: known)) > Self.falseDegrees
            }
            if far { falseCount += 1 }
        }
    }

    /// Each true source's figures, by id.
    package var figures: [Figures] {
        truth.tracks.indices.map { k in
            Figures(
                id: truth.tracks[k].id, frames: judged[k], foundShare: Double(found[k]) / Double(max(1, judged[k])),
                medianError: errors[k].quantile(0.5))
        }
    }

    /// Share of the reported sources that were false, 0…1 (0 with none reported).
    package var falseShare: Double { Double(falseCount) / Double(max(1, reported)) }

    /// The figures as lines for the summary on stderr.
    package var summaryLines: [String] {
        var lines = figures.map { f in
            "source \(f.id): found within \(formatTrimmed(Self.hitDegrees, 0))° in \(formatFixed(100 * f.foundShare, 1)) % of its \(f.frames) frames, "
                + "median error " + (f.medianError.map { "\(formatFixed($0, 1))°" } ?? "-")
        }
        lines.append("false sources (over \(formatTrimmed(Self.falseDegrees, 0))° from every true one): "
            + "\(formatFixed(100 * falseShare, 1)) % of \(reported) reported")
        return lines
    }
}

extension SourceTruth {
    /// Reads a truth file (a regular file of at most ``TruthTrack/maximumFileBytes``): a
    /// ``TruthTrack`` (`time,azimuth`), or a per-source truth when its header names an `id`
    /// column. With a track, also the per-source truth at `besidePath` when that file exists
    /// and is one.
    /// - Throws: ``TruthError`` naming the file (and the line).
    package static func read(path: String, besidePath: String? = nil) throws(TruthError) -> (track: TruthTrack?, sources: SourceTruth?) {
        // The first row that is not blank, the header, says which kind the file is.
        var track: TruthTrack.Rows?, sources: Rows?
        try TruthCSV.forEachRow(path: path) { (cells, line) throws(TruthError) in
            if let track { return try track.add(cells, line: line) }
            if let sources { return try sources.add(cells, line: line) }
            if cells.allSatisfy({ $0.isEmpty }) { return }
            if isPerSource(header: cells) {
                sources = Rows(name: path)
                try sources!.add(cells, line: line)
            } else {
                track = TruthTrack.Rows(name: path)
                try track!.add(cells, line: line)
            }
        }
        if let sources { return (nil, try SourceTruth(sources)) }
        let read = try TruthTrack(track ?? TruthTrack.Rows(name: path))
        guard let besidePath else { return (read, nil) }
        // The file beside is used only when it is a per-source truth; one that cannot be read,
        // or is a track, is left alone.
        var beside: Rows?, isOther = false
        do {
            try TruthCSV.forEachRow(path: besidePath) { (cells, line) throws(TruthError) in
                if isOther { return }
                if let beside { return try beside.add(cells, line: line) }
                if cells.allSatisfy({ $0.isEmpty }) { return }
                guard isPerSource(header: cells) else { isOther = true; return }
                beside = Rows(name: besidePath)
                try beside!.add(cells, line: line)
            }
        } catch {
            if beside != nil { throw error }
            return (read, nil)
        }
        guard let beside else { return (read, nil) }
        return (read, try SourceTruth(beside))
    }
}
