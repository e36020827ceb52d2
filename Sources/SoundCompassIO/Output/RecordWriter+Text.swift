import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a text record shows. Every text line fits the writer's ``RecordWriter/columns``.
///
/// ```
///   12.345 s   -45.7°  L ───────●───────┼─────────────── R  far left   conf 0.93
///   12.367 s     -     L ───────────────┼─────────────── R  quiet      conf 0.00
/// ```
public enum TextView: String, Sendable, CaseIterable {
    /// Time (s); the tracked bearing (signed degrees); a picture of it on a bar from 90° left
    /// (`L`) to 90° right (`R`), `┼` ahead, ● a confident bearing (confidence ≥ 0.2), ○ a less
    /// sure one, a bearing behind drawn mirrored onto the front; the side word; the confidence.
    /// A frame with no bearing (quiet, or confidence 0) shows a dash and an empty bar. Wider
    /// lines add, while they fit: yaw and the world bearing (with an IMU), the level (dBFS),
    /// the ILD (dB), the ITD (µs), the tracked sources (`src 1:-40 2:+30`, when the analysis
    /// tracks several) and the loudest band.
    case bearing
    /// Time, bearing, and each band's own bearing (`-` when the band is not confident; `*`
    /// marks the loudest band); band names become initials when the names do not fit; then the
    /// confidence and the side word, while they fit.
    case bands
}

extension RecordWriter {
    /// Cells of the bar at most (odd, so that ahead is one cell).
    static let barCells = 31
    /// Sources the text line shows at most (the default ``AnalysisConfiguration/maxSources``).
    static let sourceSlots = 3

    /// The band labels of the bands view: the names when a line of them fits `columns`, else
    /// their initials.
    static func bandLabels(_ names: [String], columns: Int) -> [[UInt8]] {
        // Time and bearing take 19 columns; each band its label and 8 more.
        let full = names.reduce(19) { $0 + $1.unicodeScalars.count + 8 }
        if full <= columns { return names.map { Array($0.utf8) } }
        return names.map { name in name.unicodeScalars.first.map { Array(String($0).utf8) } ?? Array("?".utf8) }
    }

    /// Columns of the line so far (UTF-8 lead bytes; every character used is one column wide).
    var lineColumns: Int {
        var count = 0
        for byte in line where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    /// True when the record has a bearing to show.
    private func hasBearing(_ r: AnalysisRecord) -> Bool { r.active && r.confidence > 0 }

    func appendText(_ r: AnalysisRecord) {
        let timeColumns = formatted(r.time, 3)
        appendNumber(timeColumns, width: 8); appendStatic(" s")
        if labels, let azimuth = r.alertAzimuth {
            // An alert takes the line: "!! SIREN at +30.0° !!", then the label and the rest.
            appendStatic("  !! ")
            for byte in alertName(r).utf8 { line.append((97...122).contains(byte) ? byte - 32 : byte) }
            appendStatic(" at "); appendDegrees(azimuth, decimals: 1, width: 0); appendStatic(" !!")
            truncateLine(to: columns)
            return
        }
        appendStatic("  "); appendBearing(r, hasBearing(r))
        if labels { appendLabelText(r) }
        switch view {
        case .bearing: appendBearingView(r, timeOverflow: max(0, timeColumns - 8))
        case .bands: appendBandsView(r)
        }
        truncateLine(to: columns)
    }

    // MARK: - Views

    private func appendBearingView(_ r: AnalysisRecord, timeOverflow: Int) {
        let bearing = hasBearing(r)
        // 47 columns besides the bar, and one spare (and the label's, with labels).
        var cells = min(Self.barCells, columns - 48 - timeOverflow - (labels ? Self.labelColumns : 0))
        if cells % 2 == 0 { cells -= 1 }
        appendStatic("  L "); appendBar(r, bearing, cells: max(5, cells)); appendStatic(" R")
        appendStatic("  "); appendSide(r, bearing)
        appendStatic("  conf "); appendNumber(formatted(r.confidence, 2), width: 4)
        // What a wider terminal adds, in order, each while it fits.
        if orientation {
            appendIfFits(prefix: 8, width: 7) { w in
                w.appendStatic("  world ")
                if let world = r.worldAzimuth, bearing { w.appendDegrees(world, decimals: 1, width: 6) } else { w.appendStatic("      -") }
            }
            appendIfFits(prefix: 6, width: 7) { w in
                w.appendStatic("  yaw ")
                if let yaw = r.yaw { w.appendDegrees(yaw, decimals: 1, width: 6) } else { w.appendStatic("      -") }
            }
        }
        appendIfFits(prefix: 2, numberWidth: 6, suffix: 5, value: r.levelDBFS, decimals: 1) { w in
            w.appendStatic("  "); w.appendNumber(w.digits.count, width: 6); w.appendStatic(" dBFS")
        }
        appendIfFits(prefix: 6, numberWidth: 5, suffix: 3, value: bearing ? r.ildDecibels : nil, decimals: 1, sign: true) { w in
            w.appendStatic("  ILD ")
            if bearing { w.appendNumber(w.digits.count, width: 5); w.appendStatic(" dB") } else { w.appendStatic("    -   ") }
        }
        appendIfFits(prefix: 6, numberWidth: 5, suffix: 3, value: bearing ? r.itdMicroseconds : nil, decimals: 0, sign: true) { w in
            w.appendStatic("  ITD ")
            if bearing { w.appendNumber(w.digits.count, width: 5); w.appendStatic(" µs") } else { w.appendStatic("    -   ") }
        }
        if fields.contains(.sources) { appendSources(r) }
        if bearing, let loudest = r.bands.first(where: \.loudest) {
            let name = loudest.name.unicodeScalars.count
            if lineColumns + 10 + name <= columns { appendStatic("  loudest "); line.append(contentsOf: loudest.name.utf8) }
        }
    }

    private func appendBandsView(_ r: AnalysisRecord) {
        let bearing = hasBearing(r)
        for (i, band) in r.bands.enumerated() where i < bandLabels.count {
            guard lineColumns + 8 + labelColumns(i) <= columns else { break }
            appendStatic("  "); line.append(contentsOf: bandLabels[i])
            appendStatic(band.loudest && bearing ? "*" : " ")
            if bearing && band.confidence >= ConfidenceMapping.confident {
                appendDegrees(band.azimuth, decimals: 0, width: 4)
            } else {
                appendStatic("   - ")
            }
        }
        if lineColumns + 11 <= columns { appendStatic("  conf "); appendNumber(formatted(r.confidence, 2), width: 4) }
        if lineColumns + 11 <= columns { appendStatic("  "); appendSide(r, bearing) }
    }

    // MARK: - Pieces

    /// Columns of the label cell of a text line with labels.
    static let labelColumns = 14

    /// The label at the record's bearing (``AnalysisRecord/labelAtBearing``) in
    /// ``labelColumns`` columns ("  Speech      ", cut to fit; "  -" when there is none).
    private func appendLabelText(_ r: AnalysisRecord) {
        let start = lineColumns
        appendStatic("  ")
        if let label = r.labelAtBearing {
            var taken = 0
            for scalar in label.name.unicodeScalars where taken < Self.labelColumns - 3 {
                if scalar.value < 128 { line.append(UInt8(scalar.value)) } else { line.append(UInt8(ascii: "?")) }
                taken += 1
            }
        } else {
            appendStatic("-")
        }
        while lineColumns < start + Self.labelColumns { line.append(UInt8(ascii: " ")) }
    }

    /// The name of the class that alerts in `r` (its alerting source's, or the record's own).
    func alertName(_ r: AnalysisRecord) -> String {
        if r.alertSource != 0, let source = r.sources.first(where: { $0.id == r.alertSource }), let label = source.label {
            return label.alertName
        }
        return r.label?.alertName ?? "alert"
    }

    /// The tracked bearing in 7 columns ("  -45.7°"), or a dash.
    private func appendBearing(_ r: AnalysisRecord, _ bearing: Bool) {
        if bearing { appendDegrees(r.azimuth, decimals: 1, width: 6) } else { appendStatic("   -   ") }
    }

    /// The side word padded to 9 columns: "quiet" for an inactive frame, "-" for one without
    /// confidence.
    private func appendSide(_ r: AnalysisRecord, _ bearing: Bool) {
        let start = lineColumns
        if !r.active {
            appendStatic("quiet")
        } else if !bearing {
            appendStatic("-")
        } else {
            line.append(contentsOf: DirectionLabel(lateral: r.lateral, hemisphere: r.hemisphere).rawValue.utf8)
        }
        let used = lineColumns - start
        if used < 9 { line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 9 - used)) }
    }

    /// The bar: `cells` cells from 90° left to 90° right, `┼` at the centre, the marker at the
    /// bearing (mirrored onto the front from behind); no marker without a bearing.
    private func appendBar(_ r: AnalysisRecord, _ bearing: Bool, cells: Int) {
        var marker = -1
        if bearing && r.azimuth.isFinite {
            var azimuth = r.azimuth
            if azimuth > 90 { azimuth = 180 - azimuth } else if azimuth < -90 { azimuth = -180 - azimuth }
            marker = Int(((max(-90, min(90, azimuth)) + 90) / 180 * Double(cells - 1)).rounded())
        }
        let centre = cells / 2
        for cell in 0..<cells {
            if cell == marker {
                appendStatic(r.confidence >= ConfidenceMapping.confident ? "●" : "○")
            } else if cell == centre {
                appendStatic("┼")
            } else {
                appendStatic("─")
            }
        }
    }

    /// The tracked sources column: "  src" and up to ``sourceSlots`` heard sources as
    /// `ID:BEARING` (whole signed degrees, e.g. `1:-40 2:+30`), in id order, each in an
    /// 8-column slot so the columns after it stay put; as many slots as fit, none when not even
    /// one does. A frame with no heard source shows "-".
    private func appendSources(_ r: AnalysisRecord) {
        // With labels, each source's slot also names it: " 2:+45 Beep      ".
        let slotWidth = labels ? 8 + Self.sourceLabelColumns : 8
        let slots = min(Self.sourceSlots, (columns - lineColumns - 6 + 1) / slotWidth)
        guard slots > 0 else { return }
        let start = lineColumns
        appendStatic("  src")
        var shown = 0
        for source in r.sources where source.active && source.azimuth.isFinite {
            guard shown < slots else { break }
            let slotStart = start + 5 + shown * slotWidth
            while lineColumns < slotStart { appendStatic(" ") }
            appendStatic(" ")
            NumberFormatting.appendInteger(UInt64(max(0, min(99, source.id))), to: &line)
            appendStatic(":")
            formatted(source.azimuth, 0, sign: true)
            line.append(contentsOf: digits)
            if labels, let label = source.label {
                while lineColumns < slotStart + 8 { appendStatic(" ") }
                // The name up to its first comma, in the slot's columns.
                var taken = 0
                for scalar in label.name.unicodeScalars {
                    if scalar == "," || taken == Self.sourceLabelColumns - 1 { break }
                    line.append(scalar.value < 128 ? UInt8(scalar.value) : UInt8(ascii: "?"))
                    taken += 1
                }
            }
            shown += 1
        }
        if shown == 0 { appendStatic(" -") }
        let end = start + 5 + slots * slotWidth
        while lineColumns < end { appendStatic(" ") }
    }

    /// Columns of a source's name in its slot of a text line with labels.
    static let sourceLabelColumns = 14

    /// A signed number of degrees, right-aligned in `width` columns, and "°".
    private func appendDegrees(_ value: Double, decimals: Int, width: Int) {
        appendNumber(formatted(value, decimals, sign: true), width: width)
        appendStatic("°")
    }

    /// Formats `value` into ``digits`` ("+" before a positive value when `sign`).
    /// - Returns: its length.
    @discardableResult
    /// A non-finite value (which the engine never produces) is a dash, never a number.
    private func formatted(_ value: Double, _ decimals: Int, sign: Bool = false) -> Int {
        digits.removeAll(keepingCapacity: true)
        guard value.isFinite else { digits.append(UInt8(ascii: "-")); return 1 }
        if sign && value >= 0 && (value * pow(10, Double(decimals))).rounded() != 0 { digits.append(UInt8(ascii: "+")) }
        NumberFormatting.appendFixed(value, decimals: decimals, to: &digits)
        return digits.count
    }

    /// Appends ``digits`` right-aligned in `width` columns (wider when it is longer).
    private func appendNumber(_ count: Int, width: Int) {
        if count < width { line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width - count)) }
        line.append(contentsOf: digits)
    }

    /// Calls `body` when `prefix + width` more columns fit.
    private func appendIfFits(prefix: Int, width: Int, _ body: (RecordWriter) -> Void) {
        if lineColumns + prefix + width <= columns { body(self) }
    }

    /// Formats `value` (when there is one) into ``digits``, then calls `body` when the piece
    /// fits: `prefix` columns, the number right-aligned in at least `numberWidth`, `suffix`.
    private func appendIfFits(
        prefix: Int, numberWidth: Int, suffix: Int, value: Double?, decimals: Int, sign: Bool = false,
        _ body: (RecordWriter) -> Void
    ) {
        let number = value.map { max(numberWidth, formatted($0, decimals, sign: sign)) } ?? numberWidth
        if lineColumns + prefix + number + suffix <= columns { body(self) }
    }

    private func labelColumns(_ i: Int) -> Int {
        var count = 0
        for byte in bandLabels[i] where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    /// Cuts the line after `columns` columns (at a character boundary), and its trailing spaces.
    private func truncateLine(to columns: Int) {
        var seen = 0
        for index in line.indices where line[index] & 0xC0 != 0x80 {
            if seen == columns {
                line.removeSubrange(index...)
                break
            }
            seen += 1
        }
        while line.last == UInt8(ascii: " ") { line.removeLast() }
    }
}
