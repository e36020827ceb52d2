import Foundation
import SoundCompass
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, item 9: `synth` renders block by block, so a long recording costs no more memory
/// than a short one.
struct SynthMemoryTests {
    /// Runs the binary with stdout and stderr to files and returns its exit status and its own
    /// peak resident set (KiB): the largest `VmHWM` of /proc/PID/status read every 5 ms while it
    /// runs. (Not `wait4`'s `ru_maxrss`: a child started by `posix_spawn` shares the test
    /// process's memory until it execs, and the kernel counts that memory's high-water mark into
    /// the child's, so in a full suite it reports the test process's 150 MB.)
    static func runMeasured(_ arguments: [String], in directory: TemporaryDirectory) throws -> (status: Int32, peakKiB: Int, stderr: String) {
        let errPath = directory.path("synth.stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([CLI.executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, CLI.executable.path, &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        var status: Int32 = 0
        var peak = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kib = Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") {
                peak = max(peak, kib)
            }
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            try #require(waited == 0 || errno == EINTR, "waitpid: \(errno)")
            usleep(5000)
        }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (exit, peak, stderr)
    }

    // MARK: 9. Synth in bounded memory

    @Test("synth of 40 s at 48 kHz (the whole-scene render peaked at 168 MB) peaks at ≤ 100 MB, writes every frame, and the source reads at its azimuth at the start and the end")
    func longSynthInBoundedMemory() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("long.wav")
        let seconds = 40, rate = 48000
        let run = try Self.runMeasured(
            ["synth", wav, "--source", "white@-40", "--duration", "\(seconds)", "--snr", "30", "--quiet"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(run.peakKiB > 0 && run.peakKiB <= 100 * 1024, "peak RSS \(run.peakKiB) KiB")
        let reader = try SoundFileReader(path: wav)
        #expect(reader.expectedFrameCount == seconds * rate)
        #expect(reader.sampleRate == Double(rate))
        // The truth covers the whole file too: every 10 ms.
        let truth = try String(contentsOfFile: directory.path("long.truth.csv"), encoding: .utf8)
        #expect(truth.split(separator: "\n").count == 1 + seconds * 100)
        #expect(truth.hasSuffix("\n39.99,-40\n"))
        for (from, to) in [(0.0, 4.0), (Double(seconds) - 4, Double(seconds))] {
            let result = try CLI.run([
                "analyze", wav, "--start", "\(from)", "--end", "\(to)", "--format", "csv", "--quiet",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let rows = result.stdout.split(separator: "\n").dropFirst()
            let azimuths = rows.compactMap { Double($0.split(separator: ",", omittingEmptySubsequences: false)[1]) }
            #expect(azimuths.count > 100)
            let sorted = azimuths.sorted()
            let median = sorted[sorted.count / 2]
            #expect(abs(median + 40) < 1, "\(from)–\(to) s: median azimuth \(median)°")
        }
    }

    @Test("synth's duration cap is 2^28 samples (a WAV file of stereo floats holds it): beyond, one usage line, exit 64")
    func durationCap() throws {
        let directory = TemporaryDirectory()
        for (arguments, seconds) in [(["--duration", "5593"], "5592"), (["--rate", "768000", "--duration", "350"], "349")] {
            let result = try CLI.run(["synth", directory.path("cap.wav")] + arguments)
            #expect(result.status == 64)
            #expect(result.stderrLines.count == 1)
            #expect(result.stderr.contains("--duration must be positive and at most 268435456 samples (\(seconds) s at "), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.path("cap.wav")))
        }
    }
}
