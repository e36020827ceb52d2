import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads small text files whole (truth tracks, profiles, IMU logs), with errors a caller can
/// turn into one line naming the file.
enum TextFile {
    /// Why a file could not be read.
    enum Failure: Error, Equatable {
        /// No such file.
        case notFound
        /// Any other failure (a directory, no permission, a read error), with the reason.
        case unreadable(String)
    }

    /// Opens `path` for reading (`O_RDONLY` plus `flags`), refusing a directory.
    static func open(_ path: String, flags: Int32 = 0) throws(Failure) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | flags)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw .notFound }
            throw .unreadable(String(cString: strerror(code)))
        }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .unreadable(String(cString: strerror(EISDIR)))
        }
        return fd
    }

    /// The whole file as text (invalid UTF-8 is replaced, and then fails to parse as numbers).
    static func read(_ path: String) throws(Failure) -> String {
        let fd = try open(path)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
