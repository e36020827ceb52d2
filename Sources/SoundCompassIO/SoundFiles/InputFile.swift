import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opens input files the one way every reader of the package does (sound files, raw PCM, truth
/// tracks, profiles, IMU logs): a missing file and a directory are refused with errors a caller
/// turns into one line naming the file.
enum InputFile {
    /// Why a file could not be opened or read.
    enum Failure: Error, Equatable {
        /// No such file.
        case notFound
        /// Any other failure (a directory, no permission, a read error), with the reason.
        case unreadable(String)
    }

    /// The reason given for a directory.
    static let directoryReason = "it is a directory"

    /// Opens `path` for reading (`O_RDONLY | O_CLOEXEC` plus `flags`), refusing a directory.
    /// The corresponding C function is `open`.
    /// - Parameter regularOnly: refuse anything but a regular file (a FIFO, a device such as
    ///   `/dev/zero`, a socket): side files (profiles, IMU logs, truth tracks) are read whole or
    ///   followed, which a stream that never ends or never starts would turn into a hang or
    ///   unbounded memory. The file is then opened non-blocking, so a FIFO without a writer is
    ///   refused at once instead of waiting.
    /// - Returns: the descriptor, which the caller closes.
    static func open(_ path: String, flags: Int32 = 0, regularOnly: Bool = false) throws(Failure) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | flags | (regularOnly ? O_NONBLOCK : 0))
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .notFound }
            throw .unreadable(String(cString: strerror(code)))
        }
        var info = stat()
        if fstat(fd, &info) == 0 {
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                close(fd)
                throw .unreadable(directoryReason)
            }
            if regularOnly && type != S_IFREG {
                close(fd)
                throw .unreadable("it is \(Self.describe(type: type)), not a regular file")
            }
        }
        return fd
    }

    /// What a non-regular file is, for messages ("a FIFO", "a character device", …).
    static func describe(type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Whether `path` names a FIFO (without opening it, which would wait for a writer).
    static func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// What one ``read(_:into:count:stopRequested:)`` gave.
    enum ReadResult: Equatable {
        /// Bytes read (more than 0).
        case bytes(Int)
        /// The end of the stream, or a stop asked for while waiting.
        case ended
        /// A read error, with the system's reason.
        case failed(String)
    }

    /// Reads up to `count` bytes from a file, pipe or FIFO, the way every streaming reader of
    /// the package does: retries a read interrupted by a signal; on a non-blocking descriptor
    /// (inherited that way) waits in `poll` rather than spinning; and asks `stopRequested`
    /// after each interruption, ending the stream when it says so (Ctrl-C).
    /// The corresponding C functions are `read` and `poll`.
    static func read(
        _ descriptor: Int32, into destination: UnsafeMutableRawPointer, count: Int, stopRequested: () -> Bool
    ) -> ReadResult {
        while true {
            let n = Glibc.read(descriptor, destination, count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .ended }
            let code = errno
            guard code == EINTR || code == EAGAIN else { return .failed(String(cString: strerror(code))) }
            if stopRequested() { return .ended }
            if code == EAGAIN {
                // `poll` also returns on a signal, so Ctrl-C is still seen.
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&request, 1, -1)
            }
        }
    }

    /// The size of the regular file open on `descriptor`, bytes; `nil` for a pipe or a device.
    static func regularFileSize(_ descriptor: Int32) -> Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// The whole of a regular file as text (invalid UTF-8 is replaced, and then fails to parse
    /// as numbers).
    /// - Parameter limit: the most bytes the file may hold; a larger file is refused before
    ///   anything is read (and reading stops there should the file grow meanwhile).
    static func readText(_ path: String, limit: Int) throws(Failure) -> String {
        let fd = try open(path, regularOnly: true)
        defer { close(fd) }
        if let size = regularFileSize(fd), size > limit {
            throw .unreadable("it is \(describe(bytes: size)), more than the \(describe(bytes: limit)) this file may be")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit {
                throw .unreadable("it grew past the \(describe(bytes: limit)) this file may be while being read")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a regular file in pieces of 64 KiB, handing each to `body`: memory stays at one
    /// piece however long the file, so a parser that limits its rows (``IMUCSVScanner``) stops
    /// a file without line breaks after its first row's worth.
    /// - Parameter limit: the most bytes the file may hold; a larger file is refused before
    ///   anything is read (and reading stops there should the file grow meanwhile).
    /// - Throws: ``Failure`` for the file, or what `body` throws.
    static func forEachPiece(_ path: String, limit: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let fd = try open(path, regularOnly: true)
        defer { close(fd) }
        if let size = regularFileSize(fd), size > limit {
            throw Failure.unreadable("it is \(describe(bytes: size)), more than the \(describe(bytes: limit)) this file may be")
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure.unreadable(String(cString: strerror(errno)))
            }
            if n == 0 { return }
            total += n
            if total > limit {
                throw Failure.unreadable("it grew past the \(describe(bytes: limit)) this file may be while being read")
            }
            try chunk.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// A byte count for messages: "512 KiB", "2.8 GiB" (binary units, as the limits are).
    static func describe(bytes: Int) -> String {
        let units = [(1_073_741_824.0, "GiB"), (1_048_576.0, "MiB"), (1024.0, "KiB")]
        for (size, name) in units where Double(bytes) >= size {
            let value = Double(bytes) / size
            return "\(value < 10 ? formatTrimmed(value, 1) : String(Int(value.rounded()))) \(name)"
        }
        return "\(bytes) bytes"
    }
}
