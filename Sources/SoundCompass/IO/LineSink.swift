#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where records go: a file descriptor written line by line, each line flushed as it is
/// written (one `write` call), so a reader of a pipe sees every record at once.
public final class LineSink {
    /// Why output stopped.
    public enum Failure: Error, Equatable {
        /// The reader went away (EPIPE): `… | head` — not an error for the user.
        case closedByReader
        /// Any other write error, with the system's message.
        case failed(String)
    }

    private let descriptor: Int32
    private let closeOnDeinit: Bool

    /// A sink on standard output.
    public static func standardOutput() -> LineSink { LineSink(descriptor: 1, closeOnDeinit: false) }

    /// A sink writing to a new file (replaced if it exists).
    /// - Throws: ``Failure/failed(_:)`` with the system's reason.
    public convenience init(path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .failed("\(path): \(String(cString: strerror(errno)))") }
        self.init(descriptor: fd, closeOnDeinit: true)
    }

    init(descriptor: Int32, closeOnDeinit: Bool) {
        self.descriptor = descriptor
        self.closeOnDeinit = closeOnDeinit
    }

    deinit { if closeOnDeinit { close(descriptor) } }

    /// True when the sink is a terminal.
    public var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Writes all bytes (one or more complete lines).
    public func write(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EPIPE { throw .closedByReader }
                throw .failed(String(cString: strerror(code)))
            }
            offset += n
        }
    }
}
