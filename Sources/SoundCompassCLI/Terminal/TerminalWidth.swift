import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The width text records fit, columns: `COLUMNS` when it is set to a number (at least 20),
/// else the width of the terminal on standard output, else 80.
func terminalColumns() -> Int {
    if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns >= 20, columns <= 10_000 {
        return columns
    }
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return 80
}
