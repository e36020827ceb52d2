import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `soundcompass` binary as a user would.
public enum CLI {
    /// The `soundcompass` binary built with the tests (beside the test bundle).
    public static let executable: URL = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("soundcompass")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/soundcompass")
    }()

    /// What a run gave: its exit status and everything it wrote.
    public struct Result: Sendable {
        /// The exit status (128 + the signal for a killed process, as Foundation reports it).
        public var status: Int32
        /// Standard output, decoded as UTF-8.
        public var stdout: String
        /// Standard error, decoded as UTF-8.
        public var stderr: String
        /// Standard error's lines, without empty ones.
        public var stderrLines: [Substring] { stderr.split(separator: "\n") }

        public init(status: Int32, stdout: String, stderr: String) {
            (self.status, self.stdout, self.stderr) = (status, stdout, stderr)
        }
    }

    /// Runs the binary to completion.
    /// - Parameters:
    ///   - arguments: its arguments.
    ///   - stdin: bytes for its standard input (none: /dev/null).
    ///   - environment: variables added to this process's environment.
    ///   - interruptAfter: send SIGINT after this many seconds.
    ///   - interruptCountingFrom: count `interruptAfter` from the moment stderr first contains
    ///     this text (a note the program prints once it runs) instead of from the start, so that
    ///     a slow start (a loaded machine, a sanitizer) does not eat into the time.
    ///   - onStderr: called, on another thread, with all of stderr so far each time more arrives
    ///     (to act on a note while the program runs).
    public static func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], interruptAfter: Double? = nil,
        interruptCountingFrom: String? = nil, onStderr: (@Sendable (String) -> Void)? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var watch = onStderr
        if let interruptAfter, let marker = interruptCountingFrom {
            let seen = Mutex(false)
            let target = process
            watch = { text in
                onStderr?(text)
                guard text.contains(marker), seen.withLock({ let was = $0; $0 = true; return !was }) else { return }
                onOwnThread(after: interruptAfter) { target.interrupt() }
            }
        }
        return try complete(
            process, stdin: stdin, environment: environment,
            interruptAfter: interruptCountingFrom == nil ? interruptAfter : nil, onStderr: watch)
    }

    /// Runs another program built with the package (a library example) to completion.
    public static func runExecutable(_ executable: URL, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        return try complete(process, stdin: nil, environment: [:], interruptAfter: nil, onStderr: nil)
    }

    /// Runs a shell command line (`bash -o pipefail -c`), with `soundcompass` standing for the binary.
    public static func shell(_ command: String, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-o", "pipefail", "-c", command.replacingOccurrences(of: "soundcompass", with: "'\(executable.path)'")]
        return try complete(process, stdin: nil, environment: environment, interruptAfter: nil, onStderr: nil)
    }

    /// A child that exits before reading all of its stdin (a usage error) must not kill the
    /// test process with SIGPIPE when it is run directly rather than by `swift test`: the write
    /// fails with EPIPE instead. A handler that does nothing, not `SIG_IGN`: an ignored signal
    /// stays ignored in the children (a `cat | …` would then print "Broken pipe"), a caught
    /// one is reset to the default when they exec.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE) { _ in } }()

    /// Starts `process` and waits for it, collecting its output.
    private static func complete(
        _ process: Process, stdin: Data?, environment: [String: String], interruptAfter: Double?,
        onStderr: (@Sendable (String) -> Void)?
    ) throws -> Result {
        ignoreBrokenPipes
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = stdin.map { _ in Pipe() }
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        // Drain both pipes (and feed stdin) concurrently so a large output cannot block the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        onOwnThread {
            if let onStderr {
                while case let chunk = err.fileHandleForReading.availableData, !chunk.isEmpty {
                    errData.append(chunk)
                    onStderr(String(decoding: errData, as: UTF8.self))
                }
            } else {
                errData = err.fileHandleForReading.readDataToEndOfFile()
            }
            group.leave()
        }
        if let input, let stdin {
            group.enter()
            onOwnThread {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
                try? input.fileHandleForWriting.close()
                group.leave()
            }
        }
        if let interruptAfter {
            onOwnThread(after: interruptAfter) { process.interrupt() }
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}
