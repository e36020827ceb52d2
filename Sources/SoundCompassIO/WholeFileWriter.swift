#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a file that must be whole or absent (a plot, a summary, a calibration profile): the
/// bytes go to a temporary file in the same directory, which replaces `path` only once every
/// byte is written and the file closed. A full disk or any other write error leaves `path` as
/// it was (absent, or the previous version) and no temporary file behind.
///
/// Paths that are not regular files (`/dev/stdout`, a FIFO, a character device) or are
/// symbolic links are written in place, since there is nothing to rename onto them.
public enum WholeFileWriter {
    /// Why writing failed.
    public enum Failure: Error, Equatable {
        /// The file could not be created (a missing directory, no permission): the path and the
        /// system's reason.
        case cannotCreate(String)
        /// Writing, closing or renaming failed (a full disk, a file size limit): the path and
        /// the system's reason.
        case writeFailed(String)
    }

    /// Writes `bytes` to `path` as a whole.
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG {
            try writeInPlace(bytes, to: path)
            return
        }
        let (fd, temporary) = try createTemporary(besides: path)
        if let reason = writeAll(bytes, to: fd) {
            close(fd)
            unlink(temporary)
            throw .writeFailed("\(path): \(reason)")
        }
        if close(fd) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .writeFailed("\(path): \(reason)")
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .writeFailed("\(path): \(reason)")
        }
    }

    /// `.NAME.PID-N.partial` in `path`'s directory, created exclusively with the mode a new
    /// file gets (0644 less the umask).
    private static func createTemporary(besides path: String) throws(Failure) -> (Int32, String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        for attempt in 0..<100 {
            let temporary = "\(directory).\(name).\(getpid())-\(attempt).partial"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { return (fd, temporary) }
            if errno != EEXIST { throw .cannotCreate("\(path): \(String(cString: strerror(errno)))") }
        }
        throw .cannotCreate("\(path): no free temporary name beside it")
    }

    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotCreate("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if let reason = writeAll(bytes, to: fd) { throw .writeFailed("\(path): \(reason)") }
    }

    /// - Returns: the system's reason when a write fails, nil when every byte is written.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += n
        }
        return nil
    }
}
