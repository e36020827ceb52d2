import Foundation
import Testing
import TestSupport

/// `analyze FILE… --output-dir DIR --jobs N`: each file's records in DIR under its own name,
/// byte for byte what a single-file run prints; a failing file reported while the others go on.
struct AnalyzeManyFilesTests {
    /// Synthesises `name` (`seconds` long, one pink source at `azimuth`) in `directory`.
    static func synth(_ directory: TemporaryDirectory, _ name: String, seconds: Double, azimuth: Int) throws -> String {
        let path = directory.path(name)
        let result = try CLI.run([
            "synth", path, "--duration", String(seconds), "--source", "pink@\(azimuth)", "--snr", "20", "--truth", "none",
            "--seed", String(azimuth + 100),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    /// The file's contents, or nil when it does not exist.
    static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Files in `directory` whose names end `.partial`.
    static func partials(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".partial") }
    }

    @Test("--jobs 2 on files of different lengths: each output is the single-file run's, under its own name", arguments: ["jsonl", "csv", "text"])
    func outputsMatchSingleFileRuns(format: String) throws {
        let dir = TemporaryDirectory()
        // The long file first: the second worker finishes the short ones while the first is busy.
        let files = [
            try Self.synth(dir, "long.wav", seconds: 6, azimuth: -40),
            try Self.synth(dir, "short.wav", seconds: 0.5, azimuth: 20),
            try Self.synth(dir, "mid.flac", seconds: 2, azimuth: 60),
        ]
        let out = dir.path("records")
        let batch = try CLI.run(["analyze"] + files + ["--jobs", "2", "--output-dir", out, "--format", format])
        #expect(batch.status == 0, "\(batch.stderr)")
        let ext = format == "text" ? "txt" : format
        for (file, name) in zip(files, ["long", "short", "mid"]) {
            let single = try CLI.run(["analyze", file, "--format", format])
            #expect(single.status == 0)
            #expect(single.stdout.split(separator: "\n").count > 10)
            let written = Self.contents("\(out)/\(name).\(ext)")
            #expect(written == single.stdout, "\(name).\(ext) differs from 'analyze \(name) --format \(format)'")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["long", "mid", "short"].map { "\($0).\(ext)" })
        // One summary line per file, in command-line order, then the total.
        let lines = batch.stderrLines
        #expect(lines.count == 4, "\(batch.stderr)")
        for (line, name) in zip(lines, ["long.wav", "short.wav", "mid.flac"]) {
            #expect(line.hasPrefix("soundcompass: \(dir.path(name)): "))
        }
        #expect(lines.first?.contains("6.0 s, ") == true)
        #expect(lines.last?.hasPrefix("soundcompass: 3 files: 8.5 s of audio in ") == true)
        #expect(lines.last?.contains("with 2 jobs") == true)
    }

    @Test("a missing and a corrupt file are reported by name; the others are written; exit 66, the first failure's")
    func failingFilesDoNotStopTheOthers() throws {
        let dir = TemporaryDirectory()
        let a = try Self.synth(dir, "a.wav", seconds: 1, azimuth: -30)
        let b = try Self.synth(dir, "b.wav", seconds: 1.5, azimuth: 45)
        try "time,azimuth\n0,1\n".write(toFile: dir.path("corrupt.wav"), atomically: true, encoding: .utf8)
        let missing = dir.path("missing.wav"), corrupt = dir.path("corrupt.wav")
        let out = dir.path("out")
        let result = try CLI.run(["analyze", a, missing, corrupt, b, "--jobs", "2", "--output-dir", out])
        #expect(result.status == 66, "\(result.stderr)")
        let errors = result.stderrLines.filter { $0.hasPrefix("soundcompass: error: ") }
        #expect(errors == [
            "soundcompass: error: \(missing): no such file",
            "soundcompass: error: \(corrupt): not a sound file libsndfile can read (Format not recognised)",
        ])
        #expect(result.stderrLines.last?.hasPrefix("soundcompass: 4 files (2 failed): 2.5 s of audio") == true)
        #expect(Self.contents("\(out)/a.jsonl") == (try CLI.run(["analyze", a]).stdout))
        #expect(Self.contents("\(out)/b.jsonl") == (try CLI.run(["analyze", b]).stdout))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.jsonl", "b.jsonl"])

        // The other order: the corrupt file fails first, so its 65 is the exit status.
        let swapped = try CLI.run(["analyze", corrupt, missing, a, "--output-dir", out, "-q"])
        #expect(swapped.status == 65)
        #expect(swapped.stderrLines.count == 2)
    }

    @Test("a file that fails part way leaves no output, not even a partial one; the other is written")
    func failurePartWayRemovesTheOutput() throws {
        let dir = TemporaryDirectory()
        // Raw float PCM, 48 kHz stereo: 2 s of a tone; the other file turns to NaN after 1 s.
        func raw(_ name: String, nanAfter: Int?) throws -> String {
            var samples = [Float]()
            for n in 0..<96_000 {
                let v = Float(0.3 * sin(2 * Double.pi * 440 * Double(n) / 48_000))
                let bad = nanAfter.map { n >= $0 } ?? false
                samples += [bad ? .nan : v, bad ? .nan : 0.5 * v]
            }
            let path = dir.path(name)
            try samples.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: path))
            return path
        }
        let good = try raw("good.f32", nanAfter: nil), bad = try raw("bad.f32", nanAfter: 48_000)
        let out = dir.path("out")
        let result = try CLI.run(["analyze", bad, good, "--raw-format", "f32le", "--jobs", "2", "--output-dir", out, "-q"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("soundcompass: error: \(bad): ") == true)
        #expect(result.stderr.contains("NaN"))
        #expect(Self.contents("\(out)/bad.jsonl") == nil)
        #expect(Self.partials(in: out).isEmpty)
        #expect(Self.contents("\(out)/good.jsonl") == (try CLI.run(["analyze", good, "--raw-format", "f32le"]).stdout))
    }

    @Test("--summary and warnings: each file's lines together, in command-line order, though the short file ends first")
    func eachFilesLinesTogether() throws {
        let dir = TemporaryDirectory()
        let long = try Self.synth(dir, "long.wav", seconds: 4, azimuth: 30)
        let tiny = try Self.synth(dir, "tiny.wav", seconds: 0.02, azimuth: 0)
        let result = try CLI.run(["analyze", long, tiny, "--output-dir", dir.path("out"), "--jobs", "2", "--summary"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderrLines.map(String.init)
        #expect(lines.count == 9, "\(result.stderr)")
        guard lines.count == 9 else { return }
        #expect(lines[0] == "soundcompass: \(long): 1 active segment")
        #expect(lines[2].contains("+30.0°"))
        #expect(lines[3] == "soundcompass: \(long): 4.0 s, 186 frames → \(dir.path("out"))/long.jsonl")
        #expect(lines[4] == "soundcompass: \(tiny): 0 active segments")
        #expect(lines[6] == "soundcompass: warning: \(tiny): shorter than one analysis frame (2048 samples); no records")
        #expect(lines[7] == "soundcompass: \(tiny): 0.0 s, 0 frames → \(dir.path("out"))/tiny.jsonl")
        #expect(lines[8].hasPrefix("soundcompass: 2 files: 4.0 s of audio in "))
        #expect(Self.contents(dir.path("out/tiny.jsonl")) == "")
    }

    @Test("one file into --output-dir, --jobs auto, -q: the single-file run's records, nothing on stderr")
    func oneFileIntoDirectory() throws {
        let dir = TemporaryDirectory()
        let a = try Self.synth(dir, "take.one.wav", seconds: 1, azimuth: 10)
        let out = dir.path("new/nested")
        let result = try CLI.run(["analyze", a, "--output-dir", out, "--jobs", "auto", "-q", "--format", "csv"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
        #expect(Self.contents("\(out)/take.one.csv") == (try CLI.run(["analyze", a, "--format", "csv"]).stdout))
    }

    struct UsageCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Arguments after `analyze`; `A`, `B`, `SUB_A` and `OUT` stand for paths.
        var arguments: [String]
        var mentions: String
        var testDescription: String { name }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(name: "several files without --output-dir", arguments: ["A", "B"], mentions: "2 files given: add --output-dir DIR"),
        UsageCase(name: "- with other files", arguments: ["A", "-", "--output-dir", "OUT"], mentions: "-: standard input cannot be analysed with other files"),
        UsageCase(name: "- with --output-dir", arguments: ["-", "--output-dir", "OUT"], mentions: "standard input"),
        UsageCase(name: "two files with one name", arguments: ["A", "SUB_A", "--output-dir", "OUT"], mentions: "would both write"),
        UsageCase(name: "one file twice", arguments: ["A", "A", "--output-dir", "OUT"], mentions: "is given twice"),
        UsageCase(name: "--output with --output-dir", arguments: ["A", "B", "--output-dir", "OUT", "-o", "x.jsonl"], mentions: "--output names one file"),
        UsageCase(name: "--imu with several files", arguments: ["A", "B", "--output-dir", "OUT", "--imu", "A"], mentions: "--imu belongs to one recording"),
        UsageCase(name: "--plot and --truth with several files", arguments: ["A", "B", "--output-dir", "OUT", "--plot", "p.svg", "--truth", "t.csv"], mentions: "--truth and --plot belong to one recording"),
        UsageCase(name: "--output-dir without files", arguments: ["--output-dir", "OUT"], mentions: "--output-dir needs FILE arguments"),
        UsageCase(name: "--jobs -1", arguments: ["A", "B", "--output-dir", "OUT", "--jobs", "-1"], mentions: "give 1…256 files at once"),
        UsageCase(name: "--jobs 257", arguments: ["A", "B", "--output-dir", "OUT", "--jobs", "257"], mentions: "give 1…256 files at once"),
        UsageCase(name: "--jobs many", arguments: ["A", "B", "--output-dir", "OUT", "--jobs", "many"], mentions: "give 1…256 files at once"),
    ]

    @Test("usage errors: one line, exit 64, nothing written", arguments: usageCases)
    func usageErrors(_ usage: UsageCase) throws {
        let dir = TemporaryDirectory()
        let a = try Self.synth(dir, "a.wav", seconds: 0.5, azimuth: 0)
        let b = try Self.synth(dir, "b.wav", seconds: 0.5, azimuth: 30)
        try FileManager.default.createDirectory(atPath: dir.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: a, toPath: dir.path("sub/a.wav"))
        let out = dir.path("out")
        let substitutions = ["A": a, "B": b, "SUB_A": dir.path("sub/a.wav"), "OUT": out]
        let result = try CLI.run(["analyze"] + usage.arguments.map { substitutions[$0] ?? $0 })
        #expect(result.status == 64)
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("soundcompass: error: "))
        #expect(result.stderr.contains(usage.mentions), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
