import CFuzzerDriver
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One fuzz input: `data` is `size` bytes, valid during the call only. Returns 0.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Runs libFuzzer with the process's command line (`-max_total_time=…`, corpus directories,
/// or files to replay), calling `test` with each input, and exits with libFuzzer's status.
///
/// The fuzz targets have their own `main` (SwiftPM links every executable through its
/// module's entry point), so libFuzzer's `main` is not used: `LLVMFuzzerRunDriver` is.
public func fuzzMain(_ test: FuzzTest) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv, test)
    exit(status)
}

/// The input as a buffer (empty when `data` is nil).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: size > 0 ? data : nil, count: data == nil ? 0 : size)
}

/// A directory of this process's own under `$TMPDIR` (or `/tmp`), made on first use and
/// removed at exit, for targets that must read their input from a file.
public enum FuzzScratch {
    /// The directory's path.
    nonisolated(unsafe) public private(set) static var directory: String = {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/soundcompass-fuzz-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("cannot make a scratch directory in \(base)") }
        let path = String(cString: made)
        atexit { FuzzScratch.removeAll() }
        return path
    }()

    /// Writes `bytes` to `name` in the scratch directory (replacing it) and returns its path.
    public static func write(_ bytes: UnsafeBufferPointer<UInt8>, name: String) -> String {
        let path = directory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
        close(fd)
        return path
    }

    /// Removes the scratch directory and the files in it.
    static func removeAll() {
        guard let dir = opendir(directory) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(directory + "/" + name) }
        }
        closedir(dir)
        rmdir(directory)
    }
}
