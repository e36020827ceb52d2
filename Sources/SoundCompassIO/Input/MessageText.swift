/// Text from outside (file names, CSV headers and cells, option values) made safe to quote in a
/// message on a terminal: control characters are shown as escapes instead of acting, so a file
/// named `a\nb` or a cell holding ESC `[2J` can neither split a one-line error nor drive the
/// terminal (clear it, retitle it, ring its bell).
///
/// Shown as: `\n`, `\r`, `\t`, `\e` (ESC), `\a` (BEL), `\b`, other C0 controls and DEL as
/// `\x1f`, C1 controls and the Unicode line, paragraph and bidirectional controls as `\u{85}`.
/// Everything else, including a backslash, is kept as it is.
package enum MessageText {
    /// `text` with its control characters escaped (see ``MessageText``).
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x1B: out += "\\e"
            case 0x07: out += "\\a"
            case 0x08: out += "\\b"
            case 0..<0x20, 0x7F: out += "\\x" + hex(scalar.value, width: 2)
            default: out += "\\u{" + hex(scalar.value, width: 1) + "}"
            }
        }
        return out
    }

    /// Whether `scalar` is shown as an escape.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
