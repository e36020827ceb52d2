import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Faults in `live` (issue 18, item 5): a stream that stalls without an error must still stop
/// within a second of Ctrl-C, with the records so far written and the summary printed.
struct LiveFaultTests {
    @Test("a stream that stalls: Ctrl-C ends the session within a second, records flushed, exit 0")
    func stalledStream() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.path("stalled.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // One second of 16-bit stereo silence-free noise, then the writer holds the FIFO open
        // without writing for 8 s (a device that stops delivering without an error).
        var samples = [Int16](repeating: 0, count: 2 * 48000)
        var state: UInt32 = 12345
        for i in samples.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            samples[i] = Int16(truncatingIfNeeded: Int32(state >> 16) - 32768) / 8
        }
        let bytes = samples.withUnsafeBytes { Data($0) }
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(bytes)
            Thread.sleep(forTimeInterval: 8)
            try? handle.close()
        }
        writer.start()
        let start = Date()
        let result = try CLI.run(
            ["live", "--input", fifo, "--raw-format", "s16le", "--format", "jsonl"], interruptAfter: 2.5)
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.status == 0, "\(result.stderr)")
        // Interrupted at 2.5 s, while the stream had stalled since about 0 s + 1 s of audio.
        #expect(elapsed < 2.5 + timeBoundScale, "ended \(elapsed - 2.5) s after the interrupt")
        let records = try CLITests.parseJSONLines(result.stdout)
        #expect(records.count == (48000 - 2048) / 1024 + 1, "every frame of the second that arrived")
        #expect(result.stderrLines.last?.hasPrefix("soundcompass: stopped: stream ") == true, "\(result.stderr)")
    }
}
