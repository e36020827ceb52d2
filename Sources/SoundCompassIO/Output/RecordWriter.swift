import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Output formats for records.
public enum RecordFormat: String, Sendable, CaseIterable {
    /// One JSON object per line.
    case jsonl
    /// Comma-separated values with a header row; bands flattened into columns.
    case csv
    /// One human-readable line per record.
    case text
}

/// Writes analysis records to a ``LineSink`` in one format, one line per record, each line
/// flushed. The writer reuses one byte buffer, so writing a record does not allocate once the
/// buffer has grown to a line's size.
///
/// A ``RecordSelection`` thins the records written; ``fields`` picks the fields of JSONL and
/// CSV records; text lines fit ``columns`` (see ``TextView``).
public final class RecordWriter {
    /// The format written.
    public let format: RecordFormat
    /// The fields JSONL and CSV records carry (text ignores it).
    package let fields: RecordFields
    /// Width of a text line, columns: no line is wider.
    public let columns: Int
    /// What a text line shows.
    public let view: TextView
    /// Which records are written (`nil`: all).
    package let selection: RecordSelection?
    private let sink: LineSink
    let bandNames: [String]
    let orientation: Bool
    /// The record being formatted. Not checked for exclusive access at run time: the writer is
    /// not re-entrant, and each of the 90-odd appends of a JSON record would otherwise pay a
    /// dynamic check (a class's stored property passed `inout`).
    @exclusivity(unchecked) var line: [UInt8] = []
    @exclusivity(unchecked) var digits: [UInt8] = []
    /// Band labels of the bands view (names, or their initials when the names do not fit).
    var bandLabels: [[UInt8]] = []
    /// Write what the sound classifier found (`label`, `label_score`, `next_labels`,
    /// `next_scores` on the record and each source, and `alert`): set with classification on
    /// (Docs/OutputFormat.md). Off, records are as without a classifier.
    public var labels = false
    private var wroteHeader = false
    private var firstField = true

    /// - Parameters:
    ///   - format: output format.
    ///   - sink: destination.
    ///   - bandNames: names of the bands every record carries, in order (CSV columns).
    ///   - orientation: write `yaw` and `world_azimuth` (when an IMU is given): `null` in JSON,
    ///     an empty cell in CSV where a record has none.
    ///   - sources: write the tracked sources (`sources`): the analysis tracks them
    ///     (``AnalysisConfiguration/maxSources`` > 0).
    ///   - columns: width of a text line, columns (a terminal's width; at least 20 is useful).
    ///     No text line is wider, whatever the record.
    ///   - view: what a text line shows.
    public convenience init(
        format: RecordFormat, sink: LineSink, bandNames: [String] = [], orientation: Bool = false,
        sources: Bool = false, columns: Int = 80, view: TextView = .bearing
    ) {
        self.init(
            format: format, sink: sink, bandNames: bandNames, orientation: orientation, sources: sources,
            fields: nil, columns: columns, view: view, selection: nil)
    }

    /// A writer of some fields of some records (the command-line tool's `--fields`, `--every`
    /// and `--changes`).
    /// - Parameters:
    ///   - format: output format.
    ///   - sink: destination.
    ///   - bandNames: names of the bands every record carries, in order (CSV columns).
    ///   - orientation: write `yaw` and `world_azimuth` (when an IMU is given): `null` in JSON,
    ///     an empty cell in CSV where a record has none.
    ///   - sources: write the tracked sources (`sources`) by default: the analysis tracks them
    ///     (``AnalysisConfiguration/maxSources`` > 0).
    ///   - fields: the fields of JSONL and CSV records, in their documented order whatever the
    ///     set's (`nil`: every field; `yaw` and `world_azimuth` only with `orientation`, `sources`
    ///     only with `sources`). A set
    ///     naming `yaw` or `world_azimuth` writes them even without `orientation`, as `null`.
    ///   - columns: width of a text line, columns (a terminal's width; at least 20 is useful).
    ///     No text line is wider, whatever the record.
    ///   - view: what a text line shows.
    ///   - selection: which records are written (`nil`: every record). Call ``finish()`` after
    ///     the last record to write the one an interval selection still holds.
    package init(
        format: RecordFormat, sink: LineSink, bandNames: [String] = [], orientation: Bool = false,
        sources: Bool = false, fields: RecordFields?, columns: Int = 80, view: TextView = .bearing, selection: RecordSelection? = nil
    ) {
        self.format = format
        self.orientation = orientation
        self.sink = sink
        self.bandNames = bandNames
        self.fields = fields ?? RecordFields(RecordField.allCases.filter {
            (orientation || ($0 != .yaw && $0 != .worldAzimuth)) && (sources || $0 != .sources)
        })
        self.columns = max(1, columns)
        self.view = view
        self.selection = selection.flatMap { $0.passesEverything ? nil : $0 }
        line.reserveCapacity(512)
        digits.reserveCapacity(32)
        bandLabels = Self.bandLabels(bandNames, columns: self.columns)
    }

    /// The CSV header row (without the newline).
    public var csvHeader: String {
        var columns = RecordField.allCases.filter { $0 != .bands && $0 != .sources && fields.contains($0) }.map(\.rawValue)
        if fields.contains(.bands) {
            for name in bandNames {
                columns += ["\(name)_azimuth", "\(name)_confidence", "\(name)_level_dbfs"]
            }
            if !bandNames.isEmpty { columns.append("loudest_band") }
        }
        if fields.contains(.sources) { columns.append("sources") }
        return columns.joined(separator: ",")
    }

    /// Writes the header, if the format has one. Called automatically before the first record.
    public func writeHeader() throws(LineSink.Failure) {
        guard !wroteHeader else { return }
        wroteHeader = true
        if format == .csv { try sink.write(Array((csvHeader + "\n").utf8)) }
    }

    /// Writes one record as one line, if the ``selection`` takes it.
    public func write(_ record: AnalysisRecord) throws(LineSink.Failure) {
        if let selection {
            try selection.offer(record) { (chosen) throws(LineSink.Failure) in try writeLine(chosen) }
        } else {
            try writeLine(record)
        }
    }

    /// Ends the records: writes the record an interval ``selection`` still holds (the last
    /// interval's). Writing nothing else afterwards keeps the one-per-interval promise.
    public func finish() throws(LineSink.Failure) {
        try selection?.finish { (chosen) throws(LineSink.Failure) in try writeLine(chosen) }
    }

    private func writeLine(_ record: AnalysisRecord) throws(LineSink.Failure) {
        if !wroteHeader { try writeHeader() }
        line.removeAll(keepingCapacity: true)
        switch format {
        case .jsonl: appendJSON(record)
        case .csv: appendCSV(record)
        case .text: appendText(record)
        }
        line.append(UInt8(ascii: "\n"))
        try sink.write(line)
    }

    // MARK: - Formats

    func appendStatic(_ text: StaticString) {
        line.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Starts a field of a JSON or CSV record when ``fields`` holds it: the separator before
    /// every field but the first, then `key` (JSON; empty for CSV).
    private func field(_ field: RecordField, _ key: StaticString, separator: UInt8) -> Bool {
        guard fields.contains(field) else { return false }
        if !firstField { line.append(separator) }
        firstField = false
        appendStatic(key)
        return true
    }

    /// The fields other than `bands`, in the documented order.
    private static let scalarFields: [RecordField] = [
        .time, .azimuth, .rawAzimuth, .lateral, .confidence, .ildDecibels, .itdMicroseconds, .levelDBFS, .active,
        .hemisphere, .yaw, .worldAzimuth, .itdConfidence, .ildConfidence, .dominantHz, .noiseFloorDBFS,
    ]

    /// A field's JSON key with its colon.
    private static func jsonKey(_ field: RecordField) -> StaticString {
        switch field {
        case .time: "\"time\":"
        case .azimuth: "\"azimuth\":"
        case .rawAzimuth: "\"raw_azimuth\":"
        case .lateral: "\"lateral\":"
        case .confidence: "\"confidence\":"
        case .ildDecibels: "\"ild_db\":"
        case .itdMicroseconds: "\"itd_us\":"
        case .levelDBFS: "\"level_dbfs\":"
        case .active: "\"active\":"
        case .hemisphere: "\"hemisphere\":"
        case .yaw: "\"yaw\":"
        case .worldAzimuth: "\"world_azimuth\":"
        case .itdConfidence: "\"itd_confidence\":"
        case .ildConfidence: "\"ild_confidence\":"
        case .dominantHz: "\"dominant_hz\":"
        case .noiseFloorDBFS: "\"noise_floor_dbfs\":"
        case .bands: "\"bands\":["
        case .sources: "\"sources\":["
        }
    }

    /// A scalar field's value, as JSON (strings quoted, `null` for none) or as a CSV cell
    /// (bare, empty for none). The same decimals in both.
    private func appendValue(_ field: RecordField, of r: AnalysisRecord, json: Bool) {
        switch field {
        case .time: appendNumber(r.time, decimals: 6, json: json)
        case .azimuth: appendNumber(r.azimuth, decimals: 2, json: json)
        case .rawAzimuth: appendNumber(r.rawAzimuth, decimals: 2, json: json)
        case .lateral: appendNumber(r.lateral, decimals: 4, json: json)
        case .confidence: appendNumber(r.confidence, decimals: 3, json: json)
        case .ildDecibels: appendNumber(r.ildDecibels, decimals: 2, json: json)
        case .itdMicroseconds: appendNumber(r.itdMicroseconds, decimals: 1, json: json)
        case .levelDBFS: appendNumber(r.levelDBFS, decimals: 1, json: json)
        case .active: appendStatic(r.active ? "true" : "false")
        case .hemisphere:
            if json { NumberFormatting.appendJSONString(r.hemisphere.rawValue, to: &line) } else { line.append(contentsOf: r.hemisphere.rawValue.utf8) }
        case .yaw: appendOptional(r.yaw, null: json ? "null" : "")
        case .worldAzimuth: appendOptional(r.worldAzimuth, null: json ? "null" : "")
        case .itdConfidence: appendNumber(r.itdConfidence, decimals: 3, json: json)
        case .ildConfidence: appendNumber(r.ildConfidence, decimals: 3, json: json)
        case .dominantHz: appendNumber(r.dominantHz, decimals: 1, json: json)
        case .noiseFloorDBFS: appendNumber(r.noiseFloorDBFS, decimals: 1, json: json)
        case .bands, .sources: break
        }
    }

    private func appendJSON(_ r: AnalysisRecord) {
        let c = UInt8(ascii: ",")
        firstField = true
        appendStatic("{")
        for f in Self.scalarFields where field(f, Self.jsonKey(f), separator: c) { appendValue(f, of: r, json: true) }
        if field(.bands, Self.jsonKey(.bands), separator: c) {
            for (i, band) in r.bands.enumerated() {
                if i > 0 { appendStatic(",") }
                appendStatic("{\"name\":"); NumberFormatting.appendJSONString(band.name, to: &line)
                appendStatic(",\"low_hz\":"); appendNumber(band.lowHz, decimals: 1, json: true)
                appendStatic(",\"high_hz\":"); appendNumber(band.highHz, decimals: 1, json: true)
                appendStatic(",\"azimuth\":"); appendNumber(band.azimuth, decimals: 2, json: true)
                appendStatic(",\"confidence\":"); appendNumber(band.confidence, decimals: 3, json: true)
                appendStatic(",\"level_dbfs\":"); appendNumber(band.levelDBFS, decimals: 1, json: true)
                appendStatic(band.loudest ? ",\"loudest\":true}" : ",\"loudest\":false}")
            }
            appendStatic("]")
        }
        if field(.sources, Self.jsonKey(.sources), separator: c) {
            for (i, source) in r.sources.enumerated() {
                if i > 0 { appendStatic(",") }
                appendStatic("{\"id\":"); NumberFormatting.appendInteger(UInt64(max(0, source.id)), to: &line)
                appendStatic(",\"azimuth\":"); appendNumber(source.azimuth, decimals: 2, json: true)
                appendStatic(",\"confidence\":"); appendNumber(source.confidence, decimals: 3, json: true)
                appendStatic(",\"level_dbfs\":"); appendNumber(source.levelDBFS, decimals: 1, json: true)
                appendStatic(source.active ? ",\"active\":true" : ",\"active\":false")
                if fields.contains(.worldAzimuth) {
                    appendStatic(",\"world_azimuth\":"); appendOptional(source.worldAzimuth, null: "null")
                    switch source.hemisphere {
                    case .front: appendStatic(",\"hemisphere\":\"front\"")
                    case .back: appendStatic(",\"hemisphere\":\"back\"")
                    case .unknown: appendStatic(",\"hemisphere\":\"unknown\"")
                    }
                }
                if labels { appendLabelJSON(source.label) }
                appendStatic("}")
            }
            appendStatic("]")
        }
        if labels {
            if !firstField { appendStatic(",") }
            firstField = false
            appendLabelJSON(r.label, leadingComma: false)
            appendStatic(",\"alert\":")
            if let azimuth = r.alertAzimuth, let name = r.alertSource == 0 ? r.label?.alertName : r.sources.first(where: { $0.id == r.alertSource })?.label?.alertName {
                appendStatic("{\"label\":"); NumberFormatting.appendJSONString(name, to: &line)
                appendStatic(",\"azimuth\":"); appendNumber(azimuth, decimals: 2, json: true)
                appendStatic(",\"source\":"); NumberFormatting.appendInteger(UInt64(max(0, r.alertSource)), to: &line)
                appendStatic("}")
            } else {
                appendStatic("null")
            }
        }
        appendStatic("}")
    }

    /// `,"label":…,"label_score":…,"next_labels":[…],"next_scores":[…]` (`"label":null` when
    /// there is none yet).
    private func appendLabelJSON(_ label: SoundLabel?, leadingComma: Bool = true) {
        if leadingComma { appendStatic(",") }
        guard let label else { appendStatic("\"label\":null"); return }
        appendStatic("\"label\":"); NumberFormatting.appendJSONString(label.name, to: &line)
        appendStatic(",\"label_score\":"); appendNumber(label.score, decimals: 3, json: true)
        appendStatic(",\"next_labels\":["); NumberFormatting.appendJSONString(label.secondName, to: &line)
        appendStatic(","); NumberFormatting.appendJSONString(label.thirdName, to: &line)
        appendStatic("],\"next_scores\":["); appendNumber(label.secondScore, decimals: 3, json: true)
        appendStatic(","); appendNumber(label.thirdScore, decimals: 3, json: true)
        appendStatic("]")
    }

    /// A bearing in degrees with two decimals, or `null` when there is none.
    private func appendOptional(_ value: Double?, null: StaticString) {
        if let value, value.isFinite { NumberFormatting.appendFixed(value, decimals: 2, to: &line) } else { appendStatic(null) }
    }

    /// `value` with `decimals` places; a non-finite value (which the engine never produces) as
    /// "no value", never as a number: `null` in JSON, an empty cell in CSV.
    private func appendNumber(_ value: Double, decimals: Int, json: Bool) {
        if value.isFinite {
            NumberFormatting.appendFixed(value, decimals: decimals, to: &line)
        } else if json {
            appendStatic("null")
        }
    }

    private func appendCSV(_ r: AnalysisRecord) {
        let comma = UInt8(ascii: ",")
        firstField = true
        for f in Self.scalarFields where field(f, "", separator: comma) { appendValue(f, of: r, json: false) }
        defer { appendSourcesCell(r) }
        guard fields.contains(.bands), !bandNames.isEmpty else { return }
        for name in bandNames {
            if !firstField { line.append(comma) }
            firstField = false
            if let band = r.bands.first(where: { $0.name == name }) {
                appendNumber(band.azimuth, decimals: 2, json: false); line.append(comma)
                appendNumber(band.confidence, decimals: 3, json: false); line.append(comma)
                appendNumber(band.levelDBFS, decimals: 1, json: false)
            } else {
                appendStatic("0,0,-160.0")
            }
        }
        line.append(comma)
        if let band = r.bands.first(where: \.loudest) { line.append(contentsOf: band.name.utf8) }
    }

    /// The CSV `sources` cell: `id:azimuth:confidence:level_dbfs:active` per source (azimuth
    /// with one decimal, confidence two, level one, active 1 or 0), joined by `;`; empty for none.
    private func appendSourcesCell(_ r: AnalysisRecord) {
        guard fields.contains(.sources) else { return }
        if !firstField { line.append(UInt8(ascii: ",")) }
        firstField = false
        let colon = UInt8(ascii: ":")
        for (i, source) in r.sources.enumerated() {
            if i > 0 { line.append(UInt8(ascii: ";")) }
            NumberFormatting.appendInteger(UInt64(max(0, source.id)), to: &line); line.append(colon)
            appendNumber(source.azimuth, decimals: 1, json: false); line.append(colon)
            appendNumber(source.confidence, decimals: 2, json: false); line.append(colon)
            appendNumber(source.levelDBFS, decimals: 1, json: false); line.append(colon)
            line.append(UInt8(ascii: source.active ? "1" : "0"))
        }
    }

}
