#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An output file written as it goes (records, a synthesised recording) that replaces `path`
/// only when the run succeeds: the bytes go to a hidden temporary file beside it
/// (``WholeFileWriter/temporary(besides:)``), renamed onto `path` by ``commit()``. A run that
/// fails leaves `path` as it was; what was written is kept as `PATH.partial` by
/// ``keepPartial()`` (or removed when nothing was).
///
/// Paths that are not regular files (`/dev/stdout`, a FIFO, a device) or are symbolic links
/// are written in place, since there is nothing to rename onto them.
package final class StagedOutput {
    /// The file the output is for.
    package let path: String
    /// The temporary file, `nil` when written in place.
    package let temporaryPath: String?
    /// Where ``keepPartial()`` puts what was written.
    package var partialPath: String { WholeFileWriter.partialPath(for: path) }
    private var sink: LineSink?
    private var done = false

    /// Creates the temporary file beside `path` (or opens `path` itself when it is not a
    /// regular file). The sink is for writers that write bytes (``sink``); a writer that opens
    /// files by name writes to ``writingPath`` instead.
    /// - Parameter opening: whether to open a sink on the file (false: the caller writes to
    ///   ``writingPath`` by name, as libsndfile does).
    /// - Throws: ``WholeFileWriter/Failure/cannotCreate(_:)``.
    package init(path: String, opening: Bool = true) throws(WholeFileWriter.Failure) {
        self.path = path
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG {
            temporaryPath = nil
            if opening {
                do { sink = try LineSink(path: path) } catch {
                    if case .failed(let reason) = error { throw .cannotCreate(reason) }
                    throw .cannotCreate("\(path): closed")
                }
            }
            return
        }
        let (sink, temporary) = try WholeFileWriter.temporary(besides: path)
        temporaryPath = temporary
        if opening { self.sink = sink } else { try? sink.close() }
    }

    /// The sink on the file being written (nil when created with `opening: false`).
    package var writingSink: LineSink? { sink }

    /// The path being written: the temporary file, or `path` itself.
    package var writingPath: String { temporaryPath ?? path }

    /// Closes the file and renames it onto ``path``.
    /// - Throws: ``WholeFileWriter/Failure/writeFailed(_:)`` (the temporary file is removed).
    package func commit() throws(WholeFileWriter.Failure) {
        guard !done else { return }
        done = true
        do { try sink?.close() } catch {
            if let temporaryPath { unlink(temporaryPath) }
            if case .failed(let reason) = error { throw .writeFailed(reason) }
            throw .writeFailed("\(path): closed by its reader")
        }
        if let temporaryPath { try WholeFileWriter.commit(temporaryPath, to: path) }
    }

    /// After a failure: closes the file and keeps what was written as ``partialPath``, leaving
    /// ``path`` as it was. A file written in place stays as it is.
    /// - Returns: the name it was kept under, or `nil` when nothing was written (the temporary
    ///   file is then removed) or the file was written in place.
    @discardableResult
    package func keepPartial() -> String? {
        guard !done else { return nil }
        done = true
        try? sink?.close()
        guard let temporaryPath else { return nil }
        var status = stat()
        guard stat(temporaryPath, &status) == 0, status.st_size > 0 else {
            unlink(temporaryPath)
            return nil
        }
        guard rename(temporaryPath, partialPath) == 0 else {
            unlink(temporaryPath)
            return nil
        }
        return partialPath
    }

    /// Removes the temporary file (a run that wrote nothing worth keeping).
    package func discard() {
        guard !done else { return }
        done = true
        try? sink?.close()
        if let temporaryPath { unlink(temporaryPath) }
    }

    deinit {
        // A staged file neither committed nor kept (a bug, or an error thrown past its owner)
        // must not be left hidden: keep it as partial.
        if !done { keepPartial() }
    }
}
