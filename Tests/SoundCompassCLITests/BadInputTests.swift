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

    @Test("an 8 kHz file is fine")
    func lowestRate() throws {
        let directory = TemporaryDirectory()
        try Self.makeFiles(in: directory)
        let result = try CLI.run(["analyze", directory.path("rate8k.wav")])
        #expect(result.status == 0)
        #expect(!result.stdout.isEmpty)
    }

    @Test("bad option values are usage errors (64)")
    func usage() throws {
        #expect(try CLI.run(["analyze", "--spacing=-1"]).status == 64)
        #expect(try CLI.run(["analyze", "--frame", "abc"]).status == 64)
        #expect(try CLI.run(["analyze", "--format", "xml"]).status == 64)
        let hop = try CLI.run(["analyze", "--frame", "1024", "--hop", "4096"])
        #expect(hop.status == 64)
        #expect(hop.stderrLines.count == 1 && hop.stderr.contains("hop"))
    }

    @Test("--output never overwrites the input; synth refuses bad sources and values (64)")
    func protectsInputAndValidatesSynth() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("keep.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "0.5", "--truth", "none"]).status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int
        let result = try CLI.run(["analyze", wav, "-o", wav])
        #expect(result.status == 64 && result.stderrLines.count == 1 && result.stderr.contains("refusing to overwrite"))
        #expect(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int == size)
        for arguments in [["--source", "@30"], ["--source", "white@30:abc"], ["--spacing", "inf"], ["--level=nan"],
                          ["--source", "tone:30000@0"], ["--duration", "100000"], ["--truth", wav]] {
            #expect(try CLI.run(["synth", wav] + arguments).status == 64, "\(arguments)")
        }
        #expect(try CLI.run(["analyze", "--frame", "1e300ms"]).status == 64)
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
