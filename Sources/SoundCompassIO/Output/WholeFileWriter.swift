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
package enum WholeFileWriter {
    /// Why writing failed.
    package enum Failure: Error, Equatable {
        /// The file could not be created (a missing directory, no permission): the path and the
        /// system's reason.
        case cannotCreate(String)
        /// Writing, closing or renaming failed (a full disk, a file size limit): the path and
        /// the system's reason.
        case writeFailed(String)
    }

    /// Writes `bytes` to `path` as a whole.
    /// Through a ``StagedOutput`` (which also decides what is written in place); on a failure
    /// nothing is kept as partial.
    package static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let staged = try StagedOutput(path: path)
        do { try staged.writingSink?.write(bytes) } catch {
            staged.discard()
            throw .writeFailed(reason(error))
        }
        try staged.commit()
    }

    /// Creates `.NAME.PID-N.partial` in `path`'s directory, exclusively, with the mode a new
    /// file gets (0644 less the umask), for output that is renamed onto `path` with
    /// ``commit(_:to:)`` once complete (or removed on failure).
    /// - Returns: a sink writing to it (errors name `path`), and its path.
    /// The name is shortened, when it must be, to fit the 255 bytes a file name may have (so
    /// an output name of 240–255 bytes still gets a temporary file beside it).
    package static func temporary(besides path: String) throws(Failure) -> (sink: LineSink, path: String) {
        let (directory, name) = split(path)
        for attempt in 0..<100 {
            let temporary = directory + fitted(name, prefix: ".", suffix: ".\(getpid())-\(attempt).partial")
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { return (LineSink(descriptor: fd, closeOnDeinit: true, name: path), temporary) }
            if errno != EEXIST { throw .cannotCreate("\(path): \(String(cString: strerror(errno)))") }
        }
        throw .cannotCreate("\(path): no free temporary name beside it")
    }

    /// Renames the complete `temporary` onto `path`; on failure removes it.
    package static func commit(_ temporary: String, to path: String) throws(Failure) {
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .writeFailed("\(path): \(reason)")
        }
    }

    /// The longest file name, bytes (`NAME_MAX` on Linux file systems).
    package static let maximumNameBytes = 255

    /// `path` as its directory (with its final slash, or empty) and its file name.
    package static func split(_ path: String) -> (directory: String, name: String) {
        let slash = path.lastIndex(of: "/")
        return (slash.map { String(path[...$0]) } ?? "", slash.map { String(path[path.index(after: $0)...]) } ?? path)
    }

    /// `prefix + name + suffix`, with `name` cut short (at a character's boundary) so that the
    /// whole fits ``maximumNameBytes``.
    package static func fitted(_ name: String, prefix: String, suffix: String) -> String {
        let room = maximumNameBytes - prefix.utf8.count - suffix.utf8.count
        guard name.utf8.count > room else { return prefix + name + suffix }
        var kept = ""
        for character in name {
            if kept.utf8.count + character.utf8.count > room { break }
            kept.append(character)
        }
        return prefix + kept + suffix
    }

    /// Where output that stopped part way is kept: `PATH.partial` beside `path` (its name cut
    /// short to fit, as for ``temporary(besides:)``).
    package static func partialPath(for path: String) -> String {
        let (directory, name) = split(path)
        return directory + fitted(name, prefix: "", suffix: ".partial")
    }

    private static func reason(_ failure: LineSink.Failure) -> String {
        switch failure {
        case .failed(let reason): reason
        case .closedByReader: "closed by its reader"
        }
    }
}
