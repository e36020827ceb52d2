import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The width text records fit, columns: `COLUMNS` when it is set to a number (at least 20),
/// else the width of the terminal on standard output, else 80.
func terminalColumns() -> Int { columns(of: 1) }

/// The width lines on stderr must fit, columns, when stderr is a terminal (`COLUMNS` when it is
/// set to a number, at least 20, else the terminal's width, else 80); `nil` when it is not a
/// terminal (a pipe or a file takes lines of any length).
func standardErrorColumns() -> Int? { isatty(2) == 1 ? columns(of: 2) : nil }

/// `COLUMNS` when it is set to a number (20…10000), else the width of the terminal on
/// `descriptor`, else 80.
private func columns(of descriptor: Int32) -> Int {
    if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns >= 20, columns <= 10_000 {
        return columns
    }
    var size = winsize()
    if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return 80
}

/// `text` with every line longer than `columns` broken at spaces into lines of at most
/// `columns`, each continuation indented by `indent`; a word longer than a line is cut.
/// Columns are counted in Unicode scalars (the tool's own text has no wide characters).
func wrapLines(_ text: String, columns: Int, indent: String = "    ") -> String {
    let indentWidth = indent.unicodeScalars.count
    let width = max(columns, indentWidth + 10)
    var out: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        guard line.unicodeScalars.count > width else {
            out.append(String(line))
            continue
        }
        let leading = line.prefix { $0 == " " }
        var current = String(leading), currentWidth = leading.count
        var fresh = true  // nothing but the margin on `current` yet
        for piece in line.dropFirst(leading.count).split(separator: " ") {
            var word = Array(piece.unicodeScalars)
            if !fresh {
                if currentWidth + 1 + word.count <= width {
                    current += " " + piece
                    currentWidth += 1 + word.count
                    continue
                }
                out.append(current)
                (current, currentWidth) = (indent, indentWidth)
            }
            while currentWidth + word.count > width {
                let room = width - currentWidth
                out.append(current + String(String.UnicodeScalarView(word[..<room])))
                word = Array(word[room...])
                (current, currentWidth) = (indent, indentWidth)
            }
            current += String(String.UnicodeScalarView(word))
            currentWidth += word.count
            fresh = false
        }
        out.append(current)
    }
    return out.joined(separator: "\n")
}
