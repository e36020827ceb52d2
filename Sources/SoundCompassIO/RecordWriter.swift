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
public final class RecordWriter {
    /// The format written.
    public let format: RecordFormat
    private let sink: LineSink
    private let bandNames: [String]
    private let orientation: Bool
    private var line: [UInt8] = []
    private var digits: [UInt8] = []
    private var wroteHeader = false

    /// - Parameters:
    ///   - format: output format.
    ///   - sink: destination.
    ///   - bandNames: names of the bands every record carries, in order (CSV columns).
    ///   - orientation: write `yaw` and `world_azimuth` (when an IMU is given): `null` in JSON,
    ///     an empty cell in CSV where a record has none.
    public init(format: RecordFormat, sink: LineSink, bandNames: [String] = [], orientation: Bool = false) {
        self.format = format
        self.orientation = orientation
        self.sink = sink
        self.bandNames = bandNames
        line.reserveCapacity(512)
        digits.reserveCapacity(32)
    }

    /// The CSV header row (without the newline).
    public var csvHeader: String {
        var columns = [
            "time", "azimuth", "raw_azimuth", "lateral", "confidence", "ild_db", "itd_us", "level_dbfs", "active", "hemisphere",
            "itd_confidence", "ild_confidence", "dominant_hz", "noise_floor_dbfs",
        ]
        if orientation { columns.insert(contentsOf: ["yaw", "world_azimuth"], at: columns.firstIndex(of: "hemisphere")! + 1) }
        for name in bandNames {
            columns += ["\(name)_azimuth", "\(name)_confidence", "\(name)_level_dbfs"]
        }
        if !bandNames.isEmpty { columns.append("loudest_band") }
        return columns.joined(separator: ",")
    }

    /// Writes the header, if the format has one. Called automatically before the first record.
    public func writeHeader() throws(LineSink.Failure) {
        guard !wroteHeader else { return }
        wroteHeader = true
        if format == .csv { try sink.write(Array((csvHeader + "\n").utf8)) }
    }

    /// Writes one record as one line.
    public func write(_ record: AnalysisRecord) throws(LineSink.Failure) {
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

    private func appendStatic(_ text: StaticString) {
        line.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private func appendJSON(_ r: AnalysisRecord) {
        func key(_ name: StaticString) { appendStatic(name) }
        key("{\"time\":"); NumberFormatting.appendFixed(r.time, decimals: 6, to: &line)
        key(",\"azimuth\":"); NumberFormatting.appendFixed(r.azimuth, decimals: 2, to: &line)
        key(",\"raw_azimuth\":"); NumberFormatting.appendFixed(r.rawAzimuth, decimals: 2, to: &line)
        key(",\"lateral\":"); NumberFormatting.appendFixed(r.lateral, decimals: 4, to: &line)
        key(",\"confidence\":"); NumberFormatting.appendFixed(r.confidence, decimals: 3, to: &line)
        key(",\"ild_db\":"); NumberFormatting.appendFixed(r.ildDecibels, decimals: 2, to: &line)
        key(",\"itd_us\":"); NumberFormatting.appendFixed(r.itdMicroseconds, decimals: 1, to: &line)
        key(",\"level_dbfs\":"); NumberFormatting.appendFixed(r.levelDBFS, decimals: 1, to: &line)
        key(r.active ? ",\"active\":true" : ",\"active\":false")
        key(",\"hemisphere\":"); NumberFormatting.appendJSONString(r.hemisphere.rawValue, to: &line)
        if orientation {
            key(",\"yaw\":"); appendOptional(r.yaw, null: "null")
            key(",\"world_azimuth\":"); appendOptional(r.worldAzimuth, null: "null")
        }
        key(",\"itd_confidence\":"); NumberFormatting.appendFixed(r.itdConfidence, decimals: 3, to: &line)
        key(",\"ild_confidence\":"); NumberFormatting.appendFixed(r.ildConfidence, decimals: 3, to: &line)
        key(",\"dominant_hz\":"); NumberFormatting.appendFixed(r.dominantHz, decimals: 1, to: &line)
        key(",\"noise_floor_dbfs\":"); NumberFormatting.appendFixed(r.noiseFloorDBFS, decimals: 1, to: &line)
        key(",\"bands\":[")
        for (i, band) in r.bands.enumerated() {
            if i > 0 { key(",") }
            key("{\"name\":"); NumberFormatting.appendJSONString(band.name, to: &line)
            key(",\"low_hz\":"); NumberFormatting.appendFixed(band.lowHz, decimals: 1, to: &line)
            key(",\"high_hz\":"); NumberFormatting.appendFixed(band.highHz, decimals: 1, to: &line)
            key(",\"azimuth\":"); NumberFormatting.appendFixed(band.azimuth, decimals: 2, to: &line)
            key(",\"confidence\":"); NumberFormatting.appendFixed(band.confidence, decimals: 3, to: &line)
            key(",\"level_dbfs\":"); NumberFormatting.appendFixed(band.levelDBFS, decimals: 1, to: &line)
            key(band.loudest ? ",\"loudest\":true}" : ",\"loudest\":false}")
        }
        key("]}")
    }

    /// A bearing in degrees with two decimals, or `null` when there is none.
    private func appendOptional(_ value: Double?, null: StaticString) {
        if let value { NumberFormatting.appendFixed(value, decimals: 2, to: &line) } else { appendStatic(null) }
    }

    private func appendCSV(_ r: AnalysisRecord) {
        let comma = UInt8(ascii: ",")
        NumberFormatting.appendFixed(r.time, decimals: 6, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.azimuth, decimals: 2, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.rawAzimuth, decimals: 2, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.lateral, decimals: 4, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.confidence, decimals: 3, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.ildDecibels, decimals: 2, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.itdMicroseconds, decimals: 1, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.levelDBFS, decimals: 1, to: &line); line.append(comma)
        appendStatic(r.active ? "true" : "false"); line.append(comma)
        line.append(contentsOf: r.hemisphere.rawValue.utf8); line.append(comma)
        if orientation {
            appendOptional(r.yaw, null: ""); line.append(comma)
            appendOptional(r.worldAzimuth, null: ""); line.append(comma)
        }
        NumberFormatting.appendFixed(r.itdConfidence, decimals: 3, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.ildConfidence, decimals: 3, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.dominantHz, decimals: 1, to: &line); line.append(comma)
        NumberFormatting.appendFixed(r.noiseFloorDBFS, decimals: 1, to: &line)
        for name in bandNames {
            line.append(comma)
            if let band = r.bands.first(where: { $0.name == name }) {
                NumberFormatting.appendFixed(band.azimuth, decimals: 2, to: &line); line.append(comma)
                NumberFormatting.appendFixed(band.confidence, decimals: 3, to: &line); line.append(comma)
                NumberFormatting.appendFixed(band.levelDBFS, decimals: 1, to: &line)
            } else {
                appendStatic("0,0,-160.0")
            }
        }
        if !bandNames.isEmpty {
            line.append(comma)
            if let band = r.bands.first(where: \.loudest) { line.append(contentsOf: band.name.utf8) }
        }
    }

    private func appendText(_ r: AnalysisRecord) {
        let space = UInt8(ascii: " ")
        /// Appends `text` and pads it with spaces to `width` columns.
        func padded(_ text: String, _ width: Int) {
            let columns = text.unicodeScalars.count
            line.append(contentsOf: text.utf8)
            if columns < width { line.append(contentsOf: repeatElement(space, count: width - columns)) }
        }
        /// Appends a number right-aligned in `width` columns.
        func number(_ value: Double, _ decimals: Int, width: Int, sign: Bool = false) {
            digits.removeAll(keepingCapacity: true)
            if sign && value >= 0 && (value * pow(10, Double(decimals))).rounded() != 0 { digits.append(UInt8(ascii: "+")) }
            NumberFormatting.appendFixed(value, decimals: decimals, to: &digits)
            if digits.count < width { line.append(contentsOf: repeatElement(space, count: width - digits.count)) }
            line.append(contentsOf: digits)
        }
        number(r.time, 3, width: 8); appendStatic(" s  ")
        number(r.azimuth, 1, width: 6, sign: true); appendStatic("°  ")
        padded(r.confidence > 0 ? DirectionLabel(lateral: r.lateral, hemisphere: r.hemisphere).rawValue : "-", 10)
        appendStatic("  conf "); number(r.confidence, 2, width: 4)
        appendStatic("  ILD "); number(r.ildDecibels, 1, width: 6, sign: true); appendStatic(" dB")
        appendStatic("  ITD "); number(r.itdMicroseconds, 0, width: 5, sign: true); appendStatic(" µs")
        appendStatic("  "); number(r.levelDBFS, 1, width: 6); appendStatic(" dBFS")
        if orientation {
            appendStatic("  yaw ")
            if let yaw = r.yaw { number(yaw, 1, width: 6, sign: true); appendStatic("°") } else { appendStatic("     - ") }
            appendStatic("  world ")
            if let world = r.worldAzimuth { number(world, 1, width: 6, sign: true); appendStatic("°") } else { appendStatic("     - ") }
        }
        if !r.active { appendStatic("  (quiet)") }
        for band in r.bands {
            appendStatic(band.loudest ? "  *" : "   "); line.append(contentsOf: band.name.utf8); appendStatic(" ")
            if band.confidence >= ConfidenceMapping.confident {
                number(band.azimuth, 0, width: 4, sign: true); appendStatic("°")
            } else {
                appendStatic("   -")
            }
        }
    }
}
