import Foundation
import Testing
import TestSupport

/// Everyday habits of the command line (issue #14): mistyped commands get a suggestion, every
/// failure speaks in one voice, `--help` ends with examples and shows every default, `synth`
/// takes its format from the file's extension, and options given but ignored are warned about.
@Suite("Command-line habits")
struct CommandLineHabitsTests {
    /// Every stderr line of a failed run is `soundcompass: error: …` or `soundcompass: warning: …`,
    /// exactly one is an error, and nothing reaches stdout.
    static func expectOneVoice(_ r: CLI.Result, status: Int32, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, "\(r.stdout)", sourceLocation: sourceLocation)
        #expect(!r.stderrLines.isEmpty, sourceLocation: sourceLocation)
        for line in r.stderrLines {
            #expect(line.range(of: #"^soundcompass: (error|warning): "#, options: .regularExpression) != nil,
                    "\(line)", sourceLocation: sourceLocation)
        }
        #expect(r.stderrLines.filter { $0.hasPrefix("soundcompass: error: ") }.count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(mentions), "\(r.stderr) should mention \(mentions)", sourceLocation: sourceLocation)
    }

    @Test("a mistyped subcommand gets 'did you mean', exit 64", arguments: [
        (["devics"], "devices"), (["trce", "x.wav"], "trace"), (["calibrat", "x.wav", "--truth", "0"], "calibrate"),
        (["anlyze", "x.wav"], "analyze"), (["snyth", "x.wav"], "synth"), (["lvie"], "live"),
    ])
    func typo(arguments: [String], meant: String) throws {
        let r = try CLI.run(arguments)
        Self.expectOneVoice(r, status: 64, mentions: "did you mean '\(meant)'?")
        #expect(r.stderrLines.count == 1)
    }

    @Test("a word far from every command is a file: 'no such file', exit 66")
    func notATypo() throws {
        Self.expectOneVoice(try CLI.run(["recording"]), status: 66, mentions: "recording: no such file")
        Self.expectOneVoice(try CLI.run(["take1.wav"]), status: 66, mentions: "take1.wav: no such file")
    }

    @Test("'analyse' is 'analyze'")
    func britishSpelling() throws {
        let dir = TemporaryDirectory()
        let wav = dir.path("a.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "--truth", "none", "-q"]).status == 0)
        let american = try CLI.run(["analyze", wav, "--format", "jsonl"])
        let british = try CLI.run(["analyse", wav, "--format", "jsonl"])
        #expect(american.status == 0 && british.status == 0, "\(british.stderr)")
        #expect(!british.stdout.isEmpty && british.stdout == american.stdout)
    }

    @Test("--source-window reaches the source tracker and changes nothing else")
    func sourceWindow() throws {
        let dir = TemporaryDirectory()
        let wav = dir.path("two.wav")
        #expect(try CLI.run([
            "synth", wav, "--source", "speech@-40", "--source", "speech@30", "--duration", "3", "--truth", "none", "-q",
        ]).status == 0)
        let base = try CLI.run(["analyze", wav, "--format", "csv"])
        let long = try CLI.run(["analyze", wav, "--format", "csv", "--source-window", "1.5"])
        #expect(base.status == 0 && long.status == 0, "\(long.stderr)")
        // Every column but the last (sources) is the same; the sources are not.
        let strip = { (text: String) in text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",") } }
        #expect(strip(base.stdout) == strip(long.stdout))
        #expect(base.stdout != long.stdout)
    }

    @Test("failures of every command are one line in one voice", arguments: [
        (["synth", "/tmp/x.wav", "--source", "white@200"], 64, "azimuth 200° is outside −180…180"),
        (["synth", "/tmp/x.wav", "--source", "wite@20"], 64, "unknown kind 'wite'"),
        (["synth", "/tmp/x.wav", "--turn", "30"], 64, "AMPLITUDE:PERIOD"),
        (["synth", "/tmp/x.wav", "--level"], 64, "missing value for '--level <dBFS>'"),
        (["synth", "/nonexistent-dir/x.wav", "--duration", "0.1"], 73, "/nonexistent-dir/x.wav: cannot be created: No such file or directory"),
        (["synth", "/tmp/x.mp3"], 64, "cannot tell the file format from its extension"),
        (["analyze", "--frame", "0"], 64, "give a positive number of samples"),
        (["analyze", "--bogus"], 64, "unknown option '--bogus'"),
        (["analyze", "--source-window", "0"], 64, "--source-window must be 0.05 to 5.0 seconds, got 0.0"),
        (["live", "--source-window", "nan"], 64, "--source-window must be 0.05 to 5.0 seconds, got nan"),
        (["analyze", "a.wav", "b.wav"], 64, "2 files given: add --output-dir DIR"),
        (["analyze", "/nonexistent.wav"], 66, "/nonexistent.wav: no such file"),
        (["trace", "/nonexistent.wav"], 66, "/nonexistent.wav: no such file"),
        (["calibrate", "/nonexistent.wav", "--truth", "0"], 66, "/nonexistent.wav: no such file"),
        (["calibrate", "/nonexistent.wav"], 64, "missing expected argument '--truth <deg|file>'"),
        (["live", "--input", "/nonexistent.raw"], 66, "/nonexistent.raw: no such file"),
        (["live", "--rate", "100"], 64, "--rate must be 8000…768000 Hz"),
        (["devices", "extra"], 64, "unexpected argument 'extra'"),
    ] as [([String], Int32, String)])
    func oneVoice(arguments: [String], status: Int32, mentions: String) throws {
        Self.expectOneVoice(try CLI.run(arguments), status: status, mentions: mentions)
    }

    static let commands = ["analyze", "live", "trace", "calibrate", "head", "devices", "synth"]

    @Test("--help ends with two or three examples and shows the defaults", arguments: commands)
    func help(command: String) throws {
        let r = try CLI.run([command, "--help"], environment: ["COLUMNS": "100"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let sections = r.stdout.components(separatedBy: "\nEXAMPLES:\n")
        #expect(sections.count == 2, "an EXAMPLES section: \(r.stdout)")
        let examples = sections.last?.split(separator: "\n").filter { $0.contains("soundcompass ") && !$0.contains("#") } ?? []
        #expect((2...3).contains(examples.count), "\(examples)")
        #expect(examples.contains { $0.contains("soundcompass \(command)") }, "an example of the command itself: \(examples)")
        if ["analyze", "live", "trace", "calibrate"].contains(command) {
            #expect(r.stdout.contains("(default 1,2)"), "--channels shows its default")
        }
        // `help COMMAND` says the same.
        #expect(try CLI.run(["help", command], environment: ["COLUMNS": "100"]).stdout == r.stdout)
    }

    @Test("synth takes the format from the extension", arguments: [
        ("a.flac", "fLaC"), ("a.aiff", "FORM"), ("a.ogg", "OggS"), ("a.wav", "RIFF"), ("noextension", "RIFF"),
    ])
    func synthFormat(name: String, magic: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.path(name)
        let r = try CLI.run(["synth", path, "--duration", "0.5", "--truth", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readData(ofLength: 4)
        #expect(String(decoding: head, as: UTF8.self) == magic)
        // And analyze reads it back.
        #expect(try CLI.run(["analyze", path, "-q", "--format", "csv"]).status == 0)
    }

    @Test("synth: --file-format overrides the extension (with a warning), --sample-format sets the depth, -q is quiet")
    func synthOverrides() throws {
        let dir = TemporaryDirectory()
        let flacNamedWav = dir.path("x.wav")
        let r = try CLI.run(["synth", flacNamedWav, "--file-format", "flac", "--sample-format", "s16le", "--duration", "0.5", "--truth", "none", "-q"])
        #expect(r.status == 0)
        #expect(r.stderrLines == ["soundcompass: warning: \(flacNamedWav): written as flac (--file-format), although its extension says wav"])
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: flacNamedWav)).readData(ofLength: 4)
        #expect(String(decoding: head, as: UTF8.self) == "fLaC")
        // ALSA's spelling is an alias; 16-bit WAV is 44 + 2·2·frames bytes.
        let wav16 = dir.path("b.wav")
        let s16 = try CLI.run(["synth", wav16, "--sample-format", "S16_LE", "--duration", "0.5", "--truth", "none", "-q"])
        #expect(s16.status == 0 && s16.stderr.isEmpty, "\(s16.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: wav16)[.size] as? Int
        #expect(size == 44 + 4 * 24000)
        Self.expectOneVoice(
            try CLI.run(["synth", dir.path("c.flac"), "--sample-format", "f32le"]), status: 64,
            mentions: "synth does not write f32le samples in flac (flac takes s24le, s16le)")
    }

    @Test("options given but ignored are warned about")
    func ignoredOptions() throws {
        let dir = TemporaryDirectory()
        let wav = dir.path("t.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "-q"]).status == 0)
        let truth = dir.path("t.truth.csv")
        let analyzed = try CLI.run(["analyze", wav, "--truth", truth, "--format", "csv", "-q"])
        #expect(analyzed.status == 0)
        #expect(analyzed.stderrLines == ["soundcompass: warning: --truth \(truth) is ignored: it is drawn by --plot and scored by --summary and --summary-json"])
        let raw = dir.path("t.raw")
        #expect(try CLI.run(["synth", raw, "--duration", "1", "--truth", "none", "-q"]).status == 0)
        let live = try CLI.run(["live", "--input", raw, "--sample-format", "s16le", "--format", "csv", "-q"])
        #expect(live.status == 0, "\(live.stderr)")
        #expect(live.stderrLines.first?.hasPrefix("soundcompass: warning: --sample-format s16le is ignored") == true, "\(live.stderr)")
    }

    // A tool built without a default trait (Package.swift: `--traits Classifier`, as the
    // AddressSanitizer stage of CI builds, or `--disable-default-traits`, as scripts/demo's first
    // build) refuses the feature with a usage error that says how to get it.
    #if !Serve
    @Test("built without the Serve trait: --serve is a usage error naming the trait, exit 64")
    func serveNotBuiltIn() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("s.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "--truth", "none", "-q"]).status == 0)
        let r = try CLI.run(["live", "--input", wav, "--serve", "0"])
        Self.expectOneVoice(r, status: 64, mentions: "--serve 0: this soundcompass was built without the server (the Serve trait)")
    }
    #endif

    #if !Classifier
    @Test("built without the Classifier trait: --classify and --alert are usage errors naming the trait, exit 64")
    func classifierNotBuiltIn() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("s.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "--truth", "none", "-q"]).status == 0)
        for option in [["--classify"], ["--alert", "siren"]] {
            let r = try CLI.run(["analyze", wav] + option)
            Self.expectOneVoice(r, status: 64, mentions: "built without the sound classifier (the Classifier trait)")
        }
    }
    #endif
}
