/// One field of a JSONL or CSV record, named by its JSON key (see Docs/OutputFormat.md).
package enum RecordField: String, Sendable, CaseIterable {
    case time, azimuth
    case rawAzimuth = "raw_azimuth"
    case lateral, confidence
    case ildDecibels = "ild_db"
    case itdMicroseconds = "itd_us"
    case levelDBFS = "level_dbfs"
    case active, hemisphere, yaw
    case worldAzimuth = "world_azimuth"
    case itdConfidence = "itd_confidence"
    case ildConfidence = "ild_confidence"
    case dominantHz = "dominant_hz"
    case noiseFloorDBFS = "noise_floor_dbfs"
    /// The per-band estimates: the `bands` array in JSON, the `NAME_…` and `loudest_band`
    /// columns in CSV.
    case bands
    /// The tracked sources: the `sources` array in JSON, one `sources` column in CSV. Written
    /// by default when the analysis tracks sources (``AnalysisConfiguration/maxSources`` > 0).
    case sources

    /// The field's bit in a ``RecordFields`` mask: its place in the documented order. (A switch,
    /// not `allCases`, which would build an array on every call.)
    fileprivate var bit: UInt32 {
        let index: UInt32 = switch self {
        case .time: 0
        case .azimuth: 1
        case .rawAzimuth: 2
        case .lateral: 3
        case .confidence: 4
        case .ildDecibels: 5
        case .itdMicroseconds: 6
        case .levelDBFS: 7
        case .active: 8
        case .hemisphere: 9
        case .yaw: 10
        case .worldAzimuth: 11
        case .itdConfidence: 12
        case .ildConfidence: 13
        case .dominantHz: 14
        case .noiseFloorDBFS: 15
        case .bands: 16
        case .sources: 17
        }
        return 1 << index
    }
}

/// A set of ``RecordField``s to write (`--fields`). Records always carry their fields in the
/// documented order, whatever the order the set was named in. A set is a bit mask: asking it
/// whether it holds a field does not allocate.
package struct RecordFields: Sendable, Equatable {
    private var mask: UInt32

    /// The fields in `fields`.
    package init(_ fields: some Sequence<RecordField>) {
        mask = fields.reduce(0) { $0 | $1.bit }
    }

    /// Every field (`yaw` and `world_azimuth` among them).
    package static let all = RecordFields(RecordField.allCases)

    /// True when the set holds `field`.
    @inline(__always)
    package func contains(_ field: RecordField) -> Bool { mask & field.bit != 0 }

    /// True when the set holds no field.
    package var isEmpty: Bool { mask == 0 }

    /// Why a field list does not parse.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The names that are not fields, as given.
        package var unknown: [String]

        package init(unknown: [String]) { self.unknown = unknown }

        package var description: String {
            let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
            return "unknown field\(unknown.count == 1 ? "" : "s") \(names) (fields: "
                + RecordField.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        }
    }

    /// Parses a comma-separated list of JSON keys, "time,azimuth,confidence" (case and spaces
    /// around the names ignored).
    /// - Throws: ``ParseError`` naming every unknown name (an empty list names "").
    package init(parsing list: String) throws(ParseError) {
        var fields: [RecordField] = [], unknown: [String] = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: " \t").lowercased()
            if let field = RecordField(rawValue: name) { fields.append(field) } else { unknown.append(name) }
        }
        guard unknown.isEmpty else { throw ParseError(unknown: unknown) }
        self.init(fields)
    }
}

private extension Substring {
    /// The text without the characters of `set` at either end.
    func trimmingCharacters(in set: String) -> String {
        var text = self[...]
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
