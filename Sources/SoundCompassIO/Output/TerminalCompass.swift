import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Draws a live compass on a terminal and redraws it in place:
///
/// ```
///  L ├─────────┼─────────┼─────────┼────●────┼─────────┼─────────┤ R
///   -90       -60       -30        0        30        60        90
///                                      s    a
///    +38.2°  right       conf 0.83 ▕████████  ▏  level  -23.4 dBFS ▕██████          ▏
///   bands: l low  s speech  a alert  h high     12.3 s  578 frames  0 overruns
/// ```
///
/// With `--classify` the status line names what each heard source is beside its bearing
/// (`sound: 1 Speech -40°  2 Beep +45°`), or the record's label when no source has one, and an
/// alert takes the line in reverse video (`!! ALARM at +45.0° !!`).
///
/// The dial runs from 90° left to 90° right with a marker at the tracked azimuth (● while the
/// sound is active, ○ at the last bearing while it is quiet) and, when the analysis tracks
/// several sources, each source heard in the frame as its id's last digit at its own bearing
/// (`1`, `2`, …; the main marker wins a shared cell); the row under the scale puts each
/// confident band's initial at its own azimuth. A resolved bearing behind (beyond ±90°) is drawn
/// mirrored onto the dial and labelled "behind".
///
/// ``update(_:)`` keeps what the next drawing needs in preallocated storage and ``draw(status:)``
/// renders into a reused byte buffer, so neither allocates once the first drawing is done.
package final class TerminalCompass {
    /// Figures for the status line.
    package struct Status: Sendable {
        /// Stream time, seconds.
        package var streamSeconds: Double
        /// Records so far.
        package var frames: Int
        /// Overruns so far.
        package var overruns: Int

        package init(streamSeconds: Double, frames: Int, overruns: Int) {
            self.streamSeconds = streamSeconds
            self.frames = frames
            self.overruns = overruns
        }
    }

    /// Lines one drawing takes.
    package static let lineCount = 5
    private let sink: LineSink
    private let width: Int
    private let bandInitials: [UInt8]
    private let legend: [UInt8]
    private var bandAzimuths: [Double]
    private var bandConfidences: [Double]
    private var azimuth = 0.0
    private var lateral = 0.0
    private var confidence = 0.0
    private var level = -160.0
    private var active = false
    private var hemisphere = Hemisphere.unknown
    private var hasBearing = false
    /// What the sound is (with `--classify`), and the alert of the last record.
    private var soundName = ""
    private var alertName = ""
    private var alertAzimuth: Double?
    /// Dial cells and id digits of the sources heard in the last record (the first
    /// ``sourceCount`` entries; preallocated for ``maximumSources``).
    private var sourceCells: [Int]
    private var sourceDigits: [UInt8]
    private var sourceCount = 0
    /// The labels (first part of the name; "" for none) and bearings of the sources heard.
    private var sourceNames: [String]
    private var sourceAzimuths: [Double]
    /// Sources drawn at most (the tracker's largest `--max-sources`).
    package static let maximumSources = AnalysisConfiguration.maximumSources
    /// Scratch for the band row.
    private var cells: [UInt8]
    /// Dial cells of the ticks at −60, −30, 0, 30 and 60°.
    private var tickCells: [Int] = []
    /// The scale line, made once.
    private var scale: [UInt8] = []
    private var line: [UInt8] = []
    private var digits: [UInt8] = []
    private var drawn = false

    /// - Parameters:
    ///   - sink: the terminal.
    ///   - columns: the terminal's width in columns (the drawing uses up to 100 of them).
    ///   - bandNames: the analysis's band names, in record order.
    package init(sink: LineSink, columns: Int, bandNames: [String]) {
        self.sink = sink
        // One column spare: writing the last column makes some terminals wrap.
        self.width = max(40, min(columns - 1, 100))
        let initials = bandNames.map { $0.utf8.first.map { UInt8(ascii: "a") <= $0 && $0 <= UInt8(ascii: "z") ? $0 : UInt8(ascii: "*") } ?? UInt8(ascii: "*") }
        self.bandInitials = initials
        var legend = Array("bands:".utf8)
        for (initial, name) in zip(initials, bandNames) {
            legend += [UInt8(ascii: " "), initial, UInt8(ascii: " ")] + Array(name.utf8) + [UInt8(ascii: " ")]
        }
        self.legend = bandNames.isEmpty ? [] : legend
        self.bandAzimuths = [Double](repeating: 0, count: bandNames.count)
        self.bandConfidences = [Double](repeating: 0, count: bandNames.count)
        self.cells = [UInt8](repeating: 0, count: 100)
        self.sourceCells = [Int](repeating: -1, count: Self.maximumSources)
        self.sourceDigits = [UInt8](repeating: 0, count: Self.maximumSources)
        self.sourceNames = [String](repeating: "", count: Self.maximumSources)
        self.sourceAzimuths = [Double](repeating: 0, count: Self.maximumSources)
        self.tickCells = stride(from: -60.0, through: 60.0, by: 30.0).map { cell(for: $0) }
        self.scale = Self.scaleLine(width: width, cell: { self.cell(for: $0) })
        line.reserveCapacity(4096)
        digits.reserveCapacity(32)
    }

    /// Width of the dial in cells, between its end marks (" L ├" before, "┤ R" after).
    private var dialCells: Int { width - 7 }

    /// Takes in one record; keeps only what the drawing needs.
    package func update(_ record: AnalysisRecord) {
        active = record.active && record.confidence > 0
        if active || !hasBearing {
            azimuth = record.azimuth
            lateral = record.lateral
            hemisphere = record.hemisphere
            hasBearing = hasBearing || active
        }
        confidence = record.confidence
        level = record.levelDBFS
        soundName = record.labelAtBearing?.name ?? ""
        alertAzimuth = record.alertAzimuth
        if record.alertAzimuth != nil {
            alertName = record.alertSource != 0
                ? record.sources.first(where: { $0.id == record.alertSource })?.label?.alertName ?? "" : record.label?.alertName ?? ""
        }
        sourceCount = 0
        for source in record.sources where source.active && active && sourceCount < Self.maximumSources {
            sourceCells[sourceCount] = cell(for: source.azimuth)
            sourceDigits[sourceCount] = UInt8(ascii: "0") + UInt8(max(0, source.id) % 10)
            sourceNames[sourceCount] = source.label?.name ?? ""
            sourceAzimuths[sourceCount] = source.azimuth
            sourceCount += 1
        }
        for (i, band) in record.bands.enumerated() where i < bandAzimuths.count {
            bandAzimuths[i] = band.azimuth
            bandConfidences[i] = active ? band.confidence : 0
        }
    }

    /// Draws the compass, replacing the previous drawing.
    /// - Throws: ``LineSink/Failure`` when the terminal cannot be written.
    package func draw(status: Status) throws(LineSink.Failure) {
        line.removeAll(keepingCapacity: true)
        if drawn {
            // Back to the first line of the previous drawing.
            append("\u{1B}[")
            NumberFormatting.appendInteger(UInt64(Self.lineCount), to: &line)
            append("F")
        } else {
            // Hide the cursor, and turn off autowrap so a line wider than the terminal is cut
            // rather than wrapped (which would break the redraw in place).
            append("\u{1B}[?25l\u{1B}[?7l")
        }
        drawDial()
        drawScale()
        drawBands()
        drawReadout()
        drawStatus(status)
        try sink.write(line)
        drawn = true
    }

    /// Leaves the last drawing on screen and shows the cursor again.
    package func finish() {
        guard drawn else { return }
        try? sink.write(Array(Self.restoreCursor.utf8))
        drawn = false
    }

    /// Bytes that show the cursor again and turn autowrap back on: for a signal handler to
    /// write if the process is stopped part-way.
    package static let restoreCursor = "\u{1B}[?7h\u{1B}[?25h"

    // MARK: - Lines

    private func beginLine() { append("\u{1B}[2K") }
    private func endLine() { line.append(UInt8(ascii: "\n")) }

    /// The dial cell of an azimuth; bearings behind are mirrored onto the front.
    private func cell(for azimuth: Double) -> Int {
        var a = azimuth
        if a > 90 { a = 180 - a } else if a < -90 { a = -180 - a }
        let position = ((max(-90, min(90, a)) + 90) / 180 * Double(dialCells - 1)).rounded()
        return Int(position.isFinite ? position : 0)
    }

    private func drawDial() {
        beginLine()
        append(" L ├")
        let marker = hasBearing ? cell(for: azimuth) : -1
        for c in 0..<dialCells {
            if c == marker {
                append(active ? "●" : "○")
            } else if let s = sourceCells[0..<sourceCount].firstIndex(of: c) {
                line.append(sourceDigits[s])
            } else if tickCells.contains(c) {
                append("┼")
            } else {
                append("─")
            }
        }
        append("┤ R")
        endLine()
    }

    private func drawScale() {
        beginLine()
        line.append(contentsOf: scale)
        endLine()
    }

    /// The scale under the dial: −90 … +90 every 30°, each label centred under its tick (the
    /// dial starts 4 columns in). It depends only on the width, so it is made once.
    private static func scaleLine(width: Int, cell: (Double) -> Int) -> [UInt8] {
        var text = [UInt8](repeating: UInt8(ascii: " "), count: width - 3)
        for degrees in stride(from: -90, through: 90, by: 30) {
            let label = Array((degrees > 0 ? "+\(degrees)" : "\(degrees)").utf8)
            let centre = 4 + cell(Double(degrees))
            let start = max(0, min(text.count - label.count, centre - label.count / 2))
            text.replaceSubrange(start..<(start + label.count), with: label)
        }
        return text
    }

    private func drawBands() {
        beginLine()
        let count = width - 3
        for c in 0..<count { cells[c] = UInt8(ascii: " ") }
        for i in 0..<bandInitials.count where bandConfidences[i] >= ConfidenceMapping.confident {
            cells[min(count - 1, 4 + cell(for: bandAzimuths[i]))] = bandInitials[i]
        }
        line.append(contentsOf: cells[0..<count])
        endLine()
    }

    private func drawReadout() {
        beginLine()
        append("  ")
        if hasBearing {
            // Right-aligned in six columns ("-135.0" at most), so the rest of the line stays put.
            digits.removeAll(keepingCapacity: true)
            if azimuth >= 0.05 { digits.append(UInt8(ascii: "+")) }
            NumberFormatting.appendFixed(azimuth, decimals: 1, to: &digits)
            for _ in min(digits.count, 6)..<6 { line.append(UInt8(ascii: " ")) }
            line.append(contentsOf: digits)
            append("°  ")
            let label = active ? DirectionLabel(lateral: lateral, hemisphere: hemisphere).rawValue : "quiet"
            line.append(contentsOf: label.utf8)
            for _ in min(label.utf8.count, 10)..<10 { line.append(UInt8(ascii: " ")) }
        } else {
            append("     —   listening ")
        }
        append("  conf ")
        appendNumber(confidence, decimals: 2)
        append(" ")
        appendMeter(confidence, cells: 10)
        append("  level ")
        appendNumber(max(-160, level), decimals: 1)
        append(" dBFS")
        // The rest of the readout takes 67 columns: the level meter gets what the width leaves,
        // up to 16 cells (12 on an 80-column terminal), and none below 4.
        let levelCells = min(16, width - 67)
        if levelCells >= 4 {
            append(" ")
            appendMeter((level + 80) / 80, cells: levelCells)
        }
        endLine()
    }

    private func drawStatus(_ status: Status) {
        beginLine()
        append("  ")
        if let alertAzimuth {
            // An alert replaces the legend, in reverse video: "!! SIREN at +30.0° !!".
            append("\u{1B}[7m !! ")
            for byte in alertName.utf8 { line.append((97...122).contains(byte) ? byte - 32 : byte) }
            append(" at ")
            if alertAzimuth >= 0.05 { append("+") }
            appendNumber(alertAzimuth, decimals: 1)
            append("° !! \u{1B}[0m")
        } else if sourceNames[0..<sourceCount].contains(where: { !$0.isEmpty }) {
            // Each heard source's name beside its bearing, as many as the width leaves room for
            // besides the figures that follow (about 36 columns).
            append("sound:")
            let end = line.count + max(20, width - 44)
            for s in 0..<sourceCount where !sourceNames[s].isEmpty {
                let start = line.count
                append(" ")
                line.append(sourceDigits[s])
                append(" ")
                appendName(sourceNames[s], limit: 16)
                append(" ")
                if sourceAzimuths[s] >= 0.5 { append("+") }
                appendNumber(sourceAzimuths[s], decimals: 0)
                append("° ")
                if line.count > end {
                    line.removeSubrange(start...)
                    break
                }
            }
        } else if !soundName.isEmpty {
            append("sound: ")
            appendName(soundName, limit: 24)
        } else {
            line.append(contentsOf: legend)
        }
        append("   ")
        appendNumber(status.streamSeconds, decimals: 1)
        append(" s  ")
        NumberFormatting.appendInteger(UInt64(max(0, status.frames)), to: &line)
        append(" frames  ")
        NumberFormatting.appendInteger(UInt64(max(0, status.overruns)), to: &line)
        append(status.overruns == 1 ? " overrun" : " overruns")
        endLine()
    }

    // MARK: - Pieces

    /// A class name up to its first comma ("Vehicle horn, car horn" → "Vehicle horn"), at most
    /// `limit` characters, non-ASCII as "?".
    private func appendName(_ name: String, limit: Int) {
        var count = 0
        for scalar in name.unicodeScalars {
            if scalar == "," || count == limit { break }
            line.append(scalar.value < 128 ? UInt8(scalar.value) : UInt8(ascii: "?"))
            count += 1
        }
    }

    private func append(_ text: StaticString) {
        line.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private func appendNumber(_ value: Double, decimals: Int) {
        NumberFormatting.appendFixed(value, decimals: decimals, to: &line)
    }

    /// A bar of `cells` cells filled to `fraction` (0…1), in eighths, between ▕ and ▏.
    private func appendMeter(_ fraction: Double, cells: Int) {
        let f = fraction.isFinite ? max(0, min(1, fraction)) : 0
        let eighths = Int((f * Double(cells * 8)).rounded())
        append("▕")
        for c in 0..<cells {
            let filled = max(0, min(8, eighths - c * 8))
            switch filled {
            case 8: append("█")
            case 7: append("▉")
            case 6: append("▊")
            case 5: append("▋")
            case 4: append("▌")
            case 3: append("▍")
            case 2: append("▎")
            case 1: append("▏")
            default: append(" ")
            }
        }
        append("▏")
    }
}
