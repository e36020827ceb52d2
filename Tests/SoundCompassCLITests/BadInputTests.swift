import Foundation
import Testing
import TestSignals
import TestSupport

/// Every kind of bad input gives exactly one line on stderr that names the file and the problem,
/// and the documented exit code — never a crash, a hang or a stack trace.
struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var extraArguments: [String]
        var status: Int32
        var mentions: String
        var testDescription: String { name }
    }

    /// Builds the bad files once per test in a fresh directory.
    static func makeFiles(in directory: TemporaryDirectory) throws {
        let fm = FileManager.default
        #expect(fm.createFile(atPath: directory.path("empty.wav"), contents: Data()))
        try "time,azimuth\n0,1\n".write(toFile: directory.path("text.wav"), atomically: true, encoding: .utf8)
        var random = SeededRandom(seed: 77)
        let garbage = Array("RIFF".utf8) + [0xFF, 0xFF, 0, 0] + Array("WAVE".utf8) + (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(fm.createFile(atPath: directory.path("garbage.wav"), contents: Data(garbage)))
        #expect(fm.createFile(atPath: directory.path("noise.wav"), contents: Data((0..<4000).map { _ in UInt8(truncatingIfNeeded: random.next()) })))
        #expect(try CLI.run(["synth", directory.path("stereo.wav"), "--duration", "0.5", "--truth", "none"]).status == 0)
        #expect(try CLI.run(["synth", directory.path("rate8k.wav"), "--duration", "0.5", "--rate", "8000", "--truth", "none"]).status == 0)
        // Mono and 4 kHz files, written byte by byte (synth refuses rates below 8 kHz).
        try wav(channels: 1, rate: 48000, frames: 4800).write(to: directory.url.appendingPathComponent("mono.wav"))
        try wav(channels: 2, rate: 4000, frames: 4000).write(to: directory.url.appendingPathComponent("slow.wav"))
    }

    /// A 16-bit PCM WAV of low-level noise.
    static func wav(channels: Int, rate: Int, frames: Int) -> Data {
        var random = SeededRandom(seed: 3)
        let dataBytes = frames * channels * 2
        var bytes: [UInt8] = []
        func u32(_ v: Int) { bytes += withUnsafeBytes(of: UInt32(v).littleEndian, Array.init) }
        func u16(_ v: Int) { bytes += withUnsafeBytes(of: UInt16(v).littleEndian, Array.init) }
        bytes += Array("RIFF".utf8); u32(36 + dataBytes); bytes += Array("WAVEfmt ".utf8)
        u32(16); u16(1); u16(channels); u32(rate); u32(rate * channels * 2); u16(channels * 2); u16(16)
        bytes += Array("data".utf8); u32(dataBytes)
        for _ in 0..<(frames * channels) { u16(Int(UInt16(bitPattern: Int16(truncatingIfNeeded: Int(random.next() % 2001) - 1000)))) }
        return Data(bytes)
    }

    static let cases: [Case] = [
        Case(name: "missing file", file: "missing.wav", extraArguments: [], status: 66, mentions: "no such file"),
        Case(name: "empty file", file: "empty.wav", extraArguments: [], status: 65, mentions: "empty"),
        Case(name: "text file named .wav", file: "text.wav", extraArguments: [], status: 65, mentions: "not a sound file"),
        Case(name: "garbage header", file: "garbage.wav", extraArguments: [], status: 65, mentions: "not a sound file"),
        Case(name: "random bytes", file: "noise.wav", extraArguments: [], status: 65, mentions: "not a sound file"),
        Case(name: "mono file", file: "mono.wav", extraArguments: [], status: 65, mentions: "1 channel"),
        Case(name: "one channel selected", file: "stereo.wav", extraArguments: ["--channels", "1"], status: 64, mentions: "two channels"),
        Case(name: "channel out of range", file: "stereo.wav", extraArguments: ["--channels", "1,3"], status: 65, mentions: "channel 3 does not exist"),
        Case(name: "the same channel twice", file: "stereo.wav", extraArguments: ["--channels", "2,2"], status: 65, mentions: "both left and right"),
        Case(name: "sample rate below 8 kHz", file: "slow.wav", extraArguments: [], status: 65, mentions: "4000 Hz"),
        Case(name: "a directory", file: ".", extraArguments: [], status: 66, mentions: "directory"),
    ]

    @Test("bad input: one line naming the file, a documented exit code", arguments: cases)
    func badInput(testCase: Case) throws {
        let directory = TemporaryDirectory()
        try Self.makeFiles(in: directory)
        let path = testCase.file == "." ? directory.url.path : directory.path(testCase.file)
        let result = try CLI.run(["analyze", path] + testCase.extraArguments)
        #expect(result.status == testCase.status, "\(testCase.name): status \(result.status), stderr \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(testCase.name): \(result.stderr)")
        let line = String(result.stderrLines.first ?? "")
        #expect(line.hasPrefix("soundcompass: error: \(path)"), "\(line)")
        #expect(line.contains(testCase.mentions), "\(line)")
        #expect(result.stdout.isEmpty)
    }

    @Test("an 8 kHz file is fine: every frame of 256 samples, no warning")
    func lowestRate() throws {
        let directory = TemporaryDirectory()
        try Self.makeFiles(in: directory)
        let result = try CLI.run(["analyze", directory.path("rate8k.wav"), "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        // 0.5 s at 8 kHz: frames of 256 samples (43 ms), hops of 128.
        let records = try CLITests.parseJSONLines(result.stdout)
        let expectedCount: Int = (4000 - 256) / 128 + 1
        #expect(records.count == expectedCount)
        #expect(abs(median(records.compactMap { $0["azimuth"] as? Double }) - 30) < 1, "synth's default source is at +30°")
    }

    /// Asserts an error that swift-argument-parser finds for a command: exit 64, nothing on
    /// stdout, and one line `soundcompass: error: …` naming the option and pointing to the
    /// command's help (no usage text).
    static func expectParserError(
        _ result: CLI.Result, command: String, naming option: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 64, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(result.stderrLines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        let first = String(result.stderrLines.first ?? "")
        #expect(first.hasPrefix("soundcompass: error: ") && first.contains(option), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(first.hasSuffix("(see 'soundcompass \(command) --help')"), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// Asserts an error that soundcompass reports itself: the exit code, nothing on stdout, and
    /// exactly one stderr line, `soundcompass: error: NAME: …` with `mentions` in it.
    static func expectOneLineError(
        _ result: CLI.Result, status: Int32, naming name: String, mentions: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(result.stderrLines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        let line = String(result.stderrLines.first ?? "")
        #expect(line.hasPrefix("soundcompass: error: \(name): ") && line.contains(mentions), "\(line)",
                sourceLocation: sourceLocation)
    }

    @Test("bad option values are usage errors (64)")
    func usage() throws {
        Self.expectParserError(try CLI.run(["analyze", "--spacing=-1"]), command: "analyze", naming: "--spacing")
        Self.expectParserError(try CLI.run(["analyze", "--frame", "abc"]), command: "analyze", naming: "--frame")
        Self.expectParserError(try CLI.run(["analyze", "--format", "xml"]), command: "analyze", naming: "--format")
        // Settings the engine refuses: one line, the engine's reason, the CLI's exit code.
        Self.expectOneLineError(
            try CLI.run(["analyze", "--frame", "1024", "--hop", "4096"]), status: 64, naming: "demo scene",
            mentions: "hop of 4096 samples must be between 1 and the frame length (1024)")
        Self.expectOneLineError(
            try CLI.run(["analyze", "--frame", "1e300ms"]), status: 64, naming: "demo scene",
            mentions: "is too long (maximum 262144)")
    }

    @Test("--output never overwrites the input; synth refuses bad sources and values (64)")
    func protectsInputAndValidatesSynth() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("keep.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "0.5", "--truth", "none"]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: wav))
        Self.expectOneLineError(try CLI.run(["analyze", wav, "-o", wav]), status: 64, naming: wav, mentions: "refusing to overwrite")
        #expect(try Data(contentsOf: URL(fileURLWithPath: wav)) == original)
        let refused: [(arguments: [String], option: String)] = [
            (["--source", "@30"], "--source"), (["--source", "white@30:abc"], "--source"), (["--spacing", "inf"], "--spacing"),
            (["--level=nan"], "--level"), (["--source", "tone:30000@0"], "--source"), (["--duration", "100000"], "--duration"),
            (["--truth", wav], "--truth"),
        ]
        for (arguments, option) in refused {
            Self.expectParserError(try CLI.run(["synth", wav] + arguments), command: "synth", naming: option)
            #expect(try Data(contentsOf: URL(fileURLWithPath: wav)) == original, "\(arguments) left the file alone")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("keep.truth.csv")))
    }

    @Test("an output that cannot be created is 73; stdout failing part way is 74")
    func outputErrors() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("a.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "0.5", "--truth", "none"]).status == 0)
        let missing = directory.path("no/such/dir/out.jsonl")
        Self.expectOneLineError(try CLI.run(["analyze", wav, "-o", missing]), status: 73, naming: missing, mentions: "No such file")
        let output = directory.path("no/such/dir/x.wav")
        Self.expectOneLineError(try CLI.run(["synth", output, "--truth", "none"]), status: 73, naming: output,
                                mentions: "cannot be created")
        // /dev/full takes the open but fails every write (ENOSPC): not a closed pipe, so 74.
        // (The path goes through the environment: `CLI.shell` rewrites every "soundcompass" in the command.)
        let full = try CLI.shell("soundcompass analyze \"$INPUT\" --format jsonl > /dev/full", environment: ["INPUT": wav])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderrLines == ["soundcompass: error: write failed: standard output: No space left on device"])
    }

    @Test("a truncated WAV is analysed as far as its data goes, with one warning")
    func truncated() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("cut.wav")
        #expect(try CLI.run(["synth", path, "--duration", "2", "--file-format", "wav16", "--truth", "none"]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["analyze", path, "--format", "jsonl"])
        #expect(result.status == 0)
        #expect(result.stderrLines.count == 1 && result.stderr.contains("truncated") && result.stderr.contains(path))
        let lines = result.stdout.split(separator: "\n").count
        #expect(abs(lines - (48000 - 2048) / 1024 - 1) <= 1, "\(lines) records")
    }
}
