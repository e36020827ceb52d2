import SoundCompassEngine
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
    /// What the sink writes to, for messages: a path or "standard output".
    public let name: String

    /// A sink on standard output.
    public static func standardOutput() -> LineSink {
        LineSink(descriptor: 1, closeOnDeinit: false, name: "standard output")
    }

    /// A sink writing to a new file (replaced if it exists).
    /// - Throws: ``Failure/failed(_:)`` with the path and the system's reason.
    public convenience init(path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .failed("\(path): \(String(cString: strerror(errno)))") }
        self.init(descriptor: fd, closeOnDeinit: true, name: path)
    }

    init(descriptor: Int32, closeOnDeinit: Bool, name: String) {
        self.descriptor = descriptor
        self.closeOnDeinit = closeOnDeinit
        self.name = name
        self.collector = nil
    }

    /// A sink that hands each write's bytes to `collect` instead of writing to a descriptor
    /// (records formatted in memory, for `live --serve`). The bytes are valid during the call
    /// only.
    package init(name: String, collect: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
        self.descriptor = -1
        self.closeOnDeinit = false
        self.name = name
        self.collector = collect
    }

    private let collector: ((UnsafeBufferPointer<UInt8>) -> Void)?

    /// True when `a` and `b` name the same existing file (same device and inode), so that
    /// writing one would destroy the other.
    package static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    private var closed = false

    deinit { if closeOnDeinit && !closed { Glibc.close(descriptor) } }

    /// Closes a file sink now, reporting a failure (a full disk can first show there); later
    /// writes fail. Standard output is left open.
    public func close() throws(Failure) {
        guard closeOnDeinit, !closed else { return }
        closed = true
        if Glibc.close(descriptor) != 0 { throw .failed("\(name): \(String(cString: strerror(errno)))") }
    }

    /// True when the sink is a terminal.
    public var isTerminal: Bool { descriptor >= 0 && isatty(descriptor) == 1 }

    /// Writes all bytes (one or more complete lines).
    public func write(_ bytes: [UInt8]) throws(Failure) {
        if let collector {
            bytes.withUnsafeBufferPointer(collector)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EPIPE { throw .closedByReader }
                throw .failed("\(name): \(String(cString: strerror(code)))")
            }
            offset += n
        }
    }
}
