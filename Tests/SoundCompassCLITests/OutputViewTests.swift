import Foundation
import Testing
import TestSupport

/// Runs the built binary on a pseudo-terminal (`script -q -c … /dev/null`), as a user at a
/// terminal sees it: stdout and stderr both on the terminal, unless the command line redirects.
enum PTY {
    static let script = "/usr/bin/script"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: script) }

    /// Fails the calling test when script(1) is missing (run on CI, see ``availableOrOnCI(_:)``).
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(available, "\(script) is missing: install bsdutils (scripts/install-deps does)", sourceLocation: sourceLocation)
    }

    /// A word for `sh -c`, quoted.
    static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs `soundcompass arguments…` (then `suffix`, e.g. "> file") on a terminal with `environment`
    /// added, and returns what the terminal showed, with the terminal's "\r\n" turned back into "\n"
    /// (a lone "\r", which redraws a line in place, stays).
    static func run(_ arguments: [String], suffix: String = "", environment: [String: String] = [:]) throws -> String {
        let command = ([CLI.executable.path] + arguments).map(quoted).joined(separator: " ") + " " + suffix
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(["SHELL": "/bin/sh"]) { a, _ in a }) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(arguments)")
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }
}

/// Issue 14, items 2, 3 and 9: text records that fit the terminal, the progress bar apart from
/// the records, and less output when asked.
@Suite("Output on a terminal, and less output", .enabled(if: availableOrOnCI(PTY.available), "needs script(1) for a pseudo-terminal"))
struct OutputViewTests {
    /// On CI the suite runs even without script(1), and fails here.
    init() throws { try PTY.require() }

    /// Frames of the 8-second demo scene.
    static let demoRecords = (8 * 48000 - 2048) / 1024 + 1

    /// Text record lines: they start with the time ("   0.021 s ").
    static func records(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.firstMatch(of: /^ *[0-9]+\.[0-9]{3} s[ ]/) != nil }
    }

    static func columns(_ line: Substring) -> Int { line.unicodeScalars.count }

    @Test("COLUMNS=80 on a terminal: every record ≤ 80 columns, quiet frames a dash; the active segments follow")
    func eightyColumns() throws {
        let output = try PTY.run(["analyze"], environment: ["COLUMNS": "80"])
        let records = Self.records(output)
        #expect(records.count == Self.demoRecords)
        let widest = records.map(Self.columns).max() ?? 0
        #expect(widest <= 80 && widest >= 70, "widest record \(widest) columns")
        // Quiet frames: a dash where the bearing goes, no number of degrees, no marker on the bar.
        let quiet = records.filter { $0.contains(" quiet ") }
        #expect(quiet.count > 30, "\(quiet.count) quiet frames")
        for line in quiet {
            #expect(line.firstMatch(of: /^ *[0-9.]+ s     -     L ─+┼─+ R  quiet[ ]/) != nil, "\(line)")
            #expect(!line.contains("°") && !line.contains("●") && !line.contains("○"), "\(line)")
        }
        // Frames with a bearing show it, signed, with a marker on the bar.
        let bearings = records.filter { $0.contains("●") }
        #expect(bearings.count > 150)
        #expect(bearings.allSatisfy { $0.firstMatch(of: /^ *[0-9.]+ s  [ +0-9-]{3}[0-9]\.[0-9]°  L[ ]/) != nil })
        // The end: the summary of the active segments, after the last record.
        let summary = try #require(output.range(of: "soundcompass: demo scene: 4 active segments\n"))
        let lastRecord = try #require(output.range(of: String(records.last!)))
        #expect(summary.lowerBound > lastRecord.upperBound)
        #expect(output[summary.upperBound...].contains("start s  end s  azimuth  spread"))
        #expect(!output.contains("\r"), "no progress bar for 8 seconds of audio")
    }

    @Test("COLUMNS=120: wider records, never wider than 120; piped text has no summary")
    func wideColumns() throws {
        let output = try PTY.run(["analyze", "-q"], environment: ["COLUMNS": "120"])
        let records = Self.records(output)
        #expect(records.count == Self.demoRecords)
        let widest = records.map(Self.columns).max() ?? 0
        #expect(widest > 80 && widest <= 120, "widest record \(widest) columns")
        #expect(records.filter { $0.contains(" dBFS  ILD ") && $0.contains("  ITD ") }.count == records.count)
        #expect(!output.contains("active segment"), "-q: no summary")
        // Records piped (not a terminal): no summary on stderr, 80 columns.
        let piped = try CLI.run(["analyze", "--format", "text"])
        #expect(piped.status == 0 && !piped.stderr.contains("active segment"), "\(piped.stderr)")
        #expect(Self.records(piped.stdout[...].description).allSatisfy { Self.columns($0) <= 80 })
    }

    @Test("the progress bar never shares a line with a record: records on the terminal, no bar; records to a file, a bar")
    func progressApart() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("long.wav")
        // Progress shows for inputs over 30 s.
        let synth = try CLI.run(["synth", wav, "--source", "white@30@2-20", "--duration", "31"])
        #expect(synth.status == 0, "\(synth.stderr)")
        let shared = try PTY.run(["analyze", wav], environment: ["COLUMNS": "80"])
        let records = Self.records(shared)
        #expect(records.count == (31 * 48000 - 2048) / 1024 + 1)
        for line in shared.split(separator: "\n") {
            let bar = line.contains("\r") || line.firstMatch(of: /\[[#.]+\] [0-9]+%/) != nil
            #expect(!bar, "a progress bar among the records: \(line.prefix(120))")
        }
        // Records to a file: the terminal shows the bar (redrawn in place) and no record.
        let jsonl = directory.path("long.jsonl")
        let alone = try PTY.run(["analyze", wav], suffix: "> " + PTY.quoted(jsonl))
        #expect(alone.firstMatch(of: /\r\[[#.]{30}\] [0-9]+%  0:[0-9]{2} \/ 0:31/) != nil, "\(alone.prefix(300))")
        #expect(Self.records(alone).isEmpty)
        let written = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
        #expect(written.count == records.count && written.allSatisfy { $0.hasPrefix("{\"time\":") })
    }

    @Test("--fields time,azimuth,confidence --every 100ms: one record of three fields per 100 ms")
    func fieldsEvery() throws {
        let result = try CLI.run(["analyze", "--fields", "time,azimuth,confidence", "--every", "100ms"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try CLITests.parseJSONLines(result.stdout)
        // 8 s: intervals 0…79, each with records.
        #expect(records.count == 80)
        #expect(records.allSatisfy { Set($0.keys) == ["time", "azimuth", "confidence"] })
        let intervals = records.map { Int((($0["time"] as! Double) / 0.1).rounded(.down)) }
        #expect(intervals == Array(0..<80))
        // The last of each interval: within a hop (21.3 ms) of its end.
        #expect(records.allSatisfy { let t = $0["time"] as! Double; return (t / 0.1).rounded(.down) * 0.1 + 0.1 - t < 0.0214 })
        let csv = try CLI.run(["analyze", "--format", "csv", "--fields", "time,azimuth", "--every", "0.5s"])
        #expect(csv.stdout.split(separator: "\n").count == 1 + 16 && csv.stdout.hasPrefix("time,azimuth\n"))
    }

    @Test("--active-only and --min-confidence leave out quiet and unsure records")
    func activeAndConfident() throws {
        let active = try CLITests.parseJSONLines(try CLI.run(["analyze", "--active-only", "--fields", "active,confidence"]).stdout)
        #expect(active.count > 150 && active.count < Self.demoRecords)
        #expect(active.allSatisfy { $0["active"] as? Bool == true })
        let confident = try CLITests.parseJSONLines(try CLI.run(["analyze", "--min-confidence", "0.8", "--fields", "confidence"]).stdout)
        #expect(confident.count > 50 && confident.count < active.count)
        #expect(confident.allSatisfy { ($0["confidence"] as! Double) >= 0.8 })
    }

    @Test("bad --fields, --every and --min-confidence: one line each, exit 64; --fields with text: a warning")
    func badOptions() throws {
        let cases: [([String], String)] = [
            (["--fields", "time,azimut"], "soundcompass: error: --fields: unknown field 'azimut' (fields: time, azimuth, raw_azimuth, "),
            (["--every", "0"], "soundcompass: error: --every 0: not a duration; give milliseconds (100ms) or seconds (0.5s, 2)"),
            (["--every", "fast"], "soundcompass: error: --every fast: not a duration;"),
            (["--min-confidence", "1.5"], "soundcompass: error: --min-confidence must be 0…1, got 1.5"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(["analyze"] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix(message), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let text = try CLI.run(["analyze", "-q", "--format", "text", "--fields", "time"])
        #expect(text.status == 0)
        #expect(text.stderr == "soundcompass: warning: --fields applies to jsonl and csv records; text records show their own columns (see --view)\n")
        #expect(Self.records(text.stdout[...].description).count == Self.demoRecords)
    }

    @Test("live takes the same options: --every and --fields on a raw stream, the last interval written at the end")
    func live() throws {
        let directory = TemporaryDirectory()
        let raw = directory.path("two.raw")
        #expect(try CLI.run(["synth", raw, "--file-format", "raw-f32le", "--source", "white@-30", "--duration", "2", "--truth", "none"]).status == 0)
        let result = try CLI.run(["live", "--input", raw, "-q", "--format", "jsonl", "--fields", "time,azimuth", "--every", "0.5s"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try CLITests.parseJSONLines(result.stdout)
        #expect(records.map { Int((($0["time"] as! Double) / 0.5).rounded(.down)) } == [0, 1, 2, 3])
        #expect(records.allSatisfy { Set($0.keys) == ["time", "azimuth"] })
        #expect(abs((records.last!["azimuth"] as! Double) + 30) < 3)
    }

    @Test("--view bands on a terminal: each band's bearing, within 80 columns")
    func bandsView() throws {
        let output = try PTY.run(["analyze", "-q", "--view", "bands"], environment: ["COLUMNS": "80"])
        let records = Self.records(output)
        #expect(records.count == Self.demoRecords)
        #expect(records.allSatisfy { Self.columns($0) <= 80 && $0.contains("  low") && $0.contains("  speech") })
        #expect(records.contains { $0.contains("high* +35°") }, "the noise at +35° in the high band")
    }

    /// The lines a terminal shows, escape sequences removed, split at "\n" and "\r".
    static func terminalLines(_ output: String) -> [Substring] {
        output.replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "").split(whereSeparator: { $0 == "\n" || $0 == "\r" })
    }

    /// Issue 30, item 20, the rest: every command's help, `devices`, `calibrate`'s fit table
    /// (84 columns, and wider for a binaural fit) and the live compass's readout (82) did not fit
    /// 80 columns.
    @Test("on an 80-column terminal every line fits: help, devices, calibrate's table, the live compass")
    func everythingFitsEightyColumns() throws {
        try PTY.require()
        let directory = TemporaryDirectory()
        let sweep = directory.path("sweep.wav"), head = directory.path("head.wav"), talk = directory.path("talk.wav")
        for arguments in [
            ["synth", sweep, "--source", "pink@-70:70", "--duration", "8", "--spacing", "0.17", "-q"],
            ["synth", head, "--array", "binaural", "--head-ild", "10", "--source", "pink@-70:70", "--duration", "8", "-q"],
            ["synth", talk, "--source", "speech@-30", "--duration", "2", "-q"],
        ] {
            #expect(try CLI.run(arguments).status == 0)
        }
        let truth = { (wav: String) in String(wav.dropLast(4)) + ".truth.csv" }
        // (calibrate's stdout is the profile, JSON: data, like records, is not broken.)
        let commands: [(arguments: [String], suffix: String)] = [
            (["--help"], ""), (["analyze", "--help"], ""), (["trace", "--help"], ""), (["calibrate", "--help"], ""),
            (["live", "--help"], ""), (["synth", "--help"], ""), (["devices", "--help"], ""), (["devices"], ""),
            (["calibrate", sweep, "--truth", truth(sweep)], "> /dev/null"),
            (["calibrate", head, "--array", "binaural", "--truth", truth(head)], "> /dev/null"),
            (["live", "--input", talk], ""),
        ]
        for (arguments, suffix) in commands {
            let lines = Self.terminalLines(try PTY.run(arguments, suffix: suffix, environment: ["COLUMNS": "80"]))
            #expect(lines.count > 3, "\(arguments)")
            let wide = lines.filter { Self.columns($0) > 80 }
            #expect(wide.isEmpty, "\(arguments): \(wide.map { "\(Self.columns($0)): \($0)" })")
        }
    }

    /// Issue 30, item 20: on an 80-column terminal `analyze`'s settings line was 85 columns
    /// ("soundcompass: talk.wav: 48000 Hz; frame 2048 (43 ms), hop 1024 (21 ms), spaced 0.15 m")
    /// and wrapped mid-word; so did synth's "wrote …" line and calibrate's first line.
    @Test("stderr's lines fit the terminal (COLUMNS 80 and 60), broken at spaces; a pipe gets them whole", arguments: [80, 60])
    func stderrFitsTheTerminal(columns: Int) throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("talk.wav"), binaural = directory.path("head.wav")
        let environment = ["COLUMNS": "\(columns)"]
        let commands: [[String]] = [
            ["synth", wav, "--source", "speech@-40@0.5-3.5", "--source", "pink@-60:60@4-7.5", "--duration", "8", "--snr", "15"],
            ["synth", binaural, "--array", "binaural", "--source", "speech@45", "--duration", "2"],
            ["analyze", binaural, "--array", "binaural", "--summary"],
            ["analyze", wav, "--summary"],
        ]
        for arguments in commands {
            let lines = Self.terminalLines(try PTY.run(arguments, suffix: "> /dev/null", environment: environment))
            #expect(!lines.isEmpty)
            let wide = lines.filter { Self.columns($0) > columns }
            #expect(wide.isEmpty, "\(arguments[0]): \(wide)")
        }
        // The settings line is all there, in order, across its lines.
        let shown = try PTY.run(["analyze", wav, "--summary"], suffix: "> /dev/null", environment: environment)
        // (A break at a space or within a word longer than a line, such as the temporary path.)
        let unspaced = { (text: String) in text.replacingOccurrences(of: "\n    ", with: "").replacingOccurrences(of: " ", with: "") }
        let settings = "soundcompass: \(wav): 48000 Hz; frame 2048 (43 ms), hop 1024 (21 ms), spaced 0.15 m\n"
        #expect(unspaced(shown).contains(unspaced(settings)), "\(shown)")
        // A pipe takes lines of any length: one line, unbroken.
        let piped = try CLI.run(["synth", directory.path("piped.wav"), "--source", "speech@-40@0.5-3.5", "--source", "pink@-60:60@4-7.5", "--duration", "8"], environment: environment)
        #expect(piped.status == 0)
        #expect(piped.stderrLines.contains { $0.hasPrefix("soundcompass: wrote ") && $0.hasSuffix("piped.truth.sources.csv") }, "\(piped.stderr)")
    }
}
