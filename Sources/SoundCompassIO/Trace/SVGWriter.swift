import SoundCompassEngine
/// Builds SVG text into a byte buffer: elements, escaped text and compact numbers (one
/// decimal, enough for a screen pixel).
struct SVGWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1 << 16) { bytes.reserveCapacity(capacity) }

    /// Appends raw markup.
    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends bytes of markup built elsewhere (path data).
    mutating func rawAppend(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// Appends `value` with one decimal, without a trailing ".0".
    mutating func number(_ value: Double) {
        let tenths = (value * 10).rounded()
        guard tenths.isFinite, abs(tenths) < 1e15 else { bytes.append(UInt8(ascii: "0")); return }
        var n = Int64(tenths)
        if n < 0 { bytes.append(UInt8(ascii: "-")); n = -n }
        NumberFormatting.appendInteger(UInt64(n / 10), to: &bytes)
        if n % 10 != 0 {
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(ascii: "0") + UInt8(n % 10))
        }
    }

    /// Appends `text` escaped for element content and attribute values.
    mutating func escaped(_ text: String) {
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case UInt8(ascii: "\""): raw("&quot;")
            case 0..<0x20 where unit != 0x09 && unit != 0x0A && unit != 0x0D: break  // not allowed in XML
            default: bytes.append(unit)
            }
        }
    }

    /// `<text x y class …>escaped</text>`; `attributes` is raw markup (e.g. `text-anchor="end"`).
    mutating func text(_ x: Double, _ y: Double, _ content: String, attributes: String = "") {
        raw("<text x=\""); number(x); raw("\" y=\""); number(y); raw("\"")
        if !attributes.isEmpty { raw(" "); raw(attributes) }
        raw(">"); escaped(content); raw("</text>\n")
    }

    /// `<line …/>`.
    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, attributes: String) {
        raw("<line x1=\""); number(x1); raw("\" y1=\""); number(y1)
        raw("\" x2=\""); number(x2); raw("\" y2=\""); number(y2); raw("\" "); raw(attributes); raw("/>\n")
    }

    /// `<rect …/>`.
    mutating func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, attributes: String) {
        raw("<rect x=\""); number(x); raw("\" y=\""); number(y)
        raw("\" width=\""); number(max(0, width)); raw("\" height=\""); number(max(0, height)); raw("\" ")
        raw(attributes); raw("/>\n")
    }
}

/// Path data (`M x y L x y …`) for a polyline with gaps, decimated per pixel column: a column
/// that several points fall into keeps its first, lowest, highest and last point, which draws
/// exactly what the full line would (the M4 method), so an hour plots as crisply as a minute.
struct DecimatedPath {
    private(set) var data = SVGWriter(capacity: 1 << 14)
    private var column = Int.min
    private var first = 0.0, last = 0.0, low = 0.0, high = 0.0
    private var lowIndex = 0, highIndex = 0, count = 0
    private var x = 0.0
    private var penDown = false
    private var previous = Double.nan
    /// Largest step (in y units) that is still drawn as a line; a larger one lifts the pen
    /// (an azimuth wrapping from +180 to −180).
    let maximumStep: Double
    /// Maps a value to a y coordinate.
    let y: (Double) -> Double

    init(maximumStep: Double = .infinity, y: @escaping (Double) -> Double) {
        self.maximumStep = maximumStep
        self.y = y
    }

    /// True when nothing has been drawn.
    var isEmpty: Bool { data.bytes.isEmpty && count == 0 }

    /// Adds a point at pixel `x`; a NaN `value` lifts the pen.
    mutating func add(x px: Double, value: Double) {
        guard value.isFinite else { flush(); penDown = false; previous = .nan; return }
        if previous.isFinite && abs(value - previous) > maximumStep { flush(); penDown = false }
        previous = value
        let c = Int(px.rounded(.down))
        if c != column || count == 0 {
            flush()
            column = c
            x = px
            first = value; low = value; high = value
            lowIndex = 0; highIndex = 0; count = 0
        }
        if value < low { low = value; lowIndex = count }
        if value > high { high = value; highIndex = count }
        last = value
        count += 1
    }

    /// Ends the path.
    mutating func finish() -> [UInt8] {
        flush()
        return data.bytes
    }

    private mutating func flush() {
        guard count > 0 else { return }
        defer { count = 0 }
        if count == 1 { point(x, first); return }
        let cx = Double(column) + 0.5
        point(cx, first)
        if lowIndex < highIndex { point(cx, low); point(cx, high) } else { point(cx, high); point(cx, low) }
        point(cx, last)
    }

    private mutating func point(_ px: Double, _ value: Double) {
        data.raw(penDown ? "L" : "M")
        data.number(px); data.raw(" "); data.number(y(value))
        penDown = true
    }
}
