#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opens the model's files (the weights and the class map) the one safe way: a regular file
/// only, and no larger than the file can be. A directory, a FIFO (which would wait for a
/// writer), a device such as `/dev/zero` (which never ends) and a file far larger than any
/// model file (a sparse one reads as gigabytes of zeros) are refused before a byte is read.
enum ModelFile {
    /// Opens `path` for reading.
    /// - Parameters:
    ///   - path: the file.
    ///   - maximumBytes: the largest size accepted, bytes.
    ///   - tooLarge: the error for a larger file, given its size.
    /// - Returns: the open stream (the caller closes it) and the file's size, bytes.
    /// - Throws: ``ClassifierError/modelMissing(path:)`` when there is no such file,
    ///   ``ClassifierError/unreadable(path:problem:)`` when it cannot be read as a file,
    ///   `tooLarge(size)` when it is larger than `maximumBytes`.
    static func open(
        _ path: String, maximumBytes: Int, tooLarge: (Int) -> ClassifierError
    ) throws(ClassifierError) -> (file: UnsafeMutablePointer<FILE>, size: Int) {
        // Non-blocking, so that a FIFO without a writer is refused at once instead of waiting.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .modelMissing(path: path) }
            throw .unreadable(path: path, problem: String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let problem = String(cString: strerror(errno))
            close(fd)
            throw .unreadable(path: path, problem: problem)
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            throw .unreadable(path: path, problem: type == S_IFDIR ? "it is a directory" : "it is \(describe(type)), not a regular file")
        }
        let size = Int(info.st_size)
        guard size <= maximumBytes else {
            close(fd)
            throw tooLarge(size)
        }
        // Reads block again (a regular file's never wait).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        guard let file = fdopen(fd, "rb") else {
            let problem = String(cString: strerror(errno))
            close(fd)
            throw .unreadable(path: path, problem: problem)
        }
        return (file, size)
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "of an unknown type"
        }
    }
}
