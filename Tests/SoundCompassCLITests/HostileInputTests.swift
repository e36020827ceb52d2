import Foundation
import Testing
import TestSupport

/// Regression tests for the crashes, blow-ups and vague messages that hostile input found
/// (issue 19). Each asserts the exit code and one line naming the problem; the memory and time
/// cases also run under a 1 GB address-space limit and assert an end within 2 s and a peak
/// resident size of at most 100 MB.
struct HostileInputTests {
    static func expectOneLineError(
        _ result: CLI.Result, status: Int32, naming name: String, mentions: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        BadInputTests.expectOneLineError(result, status: status, naming: name, mentions: mentions, sourceLocation: sourceLocation)
    }

    static func expectParserError(
        _ result: CLI.Result, command: String, naming option: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        BadInputTests.expectParserError(result, command: command, naming: option, sourceLocation: sourceLocation)
    }

    /// A bounded run: `arguments` through bash with `ulimit -v` 1 GB (an allocation of gigabytes
    /// fails instead of swapping), `timeout 10` (a hang fails instead of stalling the suite),
    /// and GNU time's peak RSS when it is installed.
    struct Bounded {
        var result: CLI.Result
        var seconds: Double
        /// Peak resident set size in kB, when /usr/bin/time is there to measure it.
        var peakKilobytes: Int?
    }

    static func bounded(_ arguments: [String], stdin: String = "/dev/null", in directory: TemporaryDirectory) throws -> Bounded {
        // Paths go through the environment: `CLI.shell` rewrites the word soundcompass, which
        // temporary paths contain.
        var environment = ["HOSTILE_IN": stdin]
        for (i, argument) in arguments.enumerated() { environment["HOSTILE_A\(i)"] = argument }
        let quoted = arguments.indices.map { "\"$HOSTILE_A\($0)\"" }.joined(separator: " ")
        return try boundedShell("TIMED timeout 10 soundcompass \(quoted) < \"$HOSTILE_IN\"", environment: environment, in: directory)
    }

    /// Asserts a bounded run ended within 2 s using at most 100 MB (``memoryBoundScale`` times
    /// that under a sanitizer).
    static func expectBounded(_ run: Bounded, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.seconds < 2 * timeBoundScale, "took \(run.seconds) s", sourceLocation: sourceLocation)
        // CI installs GNU time (scripts/install-deps): there the bound is always measured.
        if onCI { #expect(run.peakKilobytes != nil, "no peak RSS: is /usr/bin/time (GNU time) installed?", sourceLocation: sourceLocation) }
        if let peak = run.peakKilobytes {
            #expect(peak <= 100_000 * memoryBoundScale, "peak RSS \(peak) kB", sourceLocation: sourceLocation)
        }
    }

    static func stereoWAV(_ directory: TemporaryDirectory, seconds: String = "1") throws -> String {
        let path = directory.path("x.wav")
        if !FileManager.default.fileExists(atPath: path) {
            let synth = try CLI.run(["synth", path, "--duration", seconds, "--truth", "none"])
            #expect(synth.status == 0, "\(synth.stderr)")
        }
        return path
    }

    // MARK: 1. Channel numbers

    @Test("item 1: channel numbers beyond 1024 are usage errors, not gigabyte allocations", arguments: [
        ["live", "--input", "-", "--raw-format", "s16le", "--channels", "1000000000"],
        ["live", "--input", "-", "--raw-format", "s16le", "--channels", "9223372036854775807"],
        ["live", "--input", "-", "--raw-format", "s16le", "--channels", "1,4611686018427387904"],
        ["analyze", "-", "--raw-format", "s16le", "--channels", "1,100000"],
    ])
    func channelNumbers(arguments: [String]) throws {
        let directory = TemporaryDirectory()
        let raw = directory.path("in.raw")
        try Data(count: 48000 * 4).write(to: URL(fileURLWithPath: raw))
        let run = try Self.bounded(arguments, stdin: raw, in: directory)
        Self.expectOneLineError(run.result, status: 64, naming: "standard input", mentions: "more than the 1024 channels supported")
        Self.expectBounded(run)
    }

    @Test("item 9 (live): a period × channels beyond 4 Mi samples is refused before allocating")
    func periodTimesChannels() throws {
        let directory = TemporaryDirectory()
        let run = try Self.bounded(
            ["live", "--input", "-", "--raw-format", "s16le", "--raw-channels", "1024", "--period", "1048576"], in: directory)
        Self.expectParserError(run.result, command: "live", naming: "--period 1048576 × --raw-channels 1024")
        Self.expectBounded(run)
        // Through --channels N instead of --raw-channels: the library refuses, the CLI names --period.
        let raw = directory.path("in.raw")
        try Data(count: 4096).write(to: URL(fileURLWithPath: raw))
        let viaChannels = try Self.bounded(
            ["live", "--input", raw, "--raw-format", "s16le", "--channels", "1024", "--period", "1048576"], in: directory)
        Self.expectOneLineError(viaChannels.result, status: 64, naming: raw, mentions: "give a smaller --period")
        Self.expectBounded(viaChannels)
    }

    // MARK: 2. Geometry

    @Test("item 2: a spacing or head radius of 5e-324 is refused with the valid range")
    func geometry() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        Self.expectParserError(try CLI.run(["analyze", wav, "--spacing=5e-324"]), command: "analyze", naming: "--spacing must be 0.005…5.0 metres")
        Self.expectParserError(
            try CLI.run(["analyze", wav, "--array", "binaural", "--head-radius=5e-324"]), command: "analyze",
            naming: "--head-radius must be 0.01…0.5 metres")
        Self.expectParserError(try CLI.run(["synth", wav, "--spacing=5e-324"]), command: "synth", naming: "--spacing")
        for (field, extra) in [("spacing_m", ""), ("head_radius_m", "\"head_radius_m\": 5e-324, ")] {
            let profile = directory.path("\(field).json")
            let spacing = field == "spacing_m" ? "5e-324" : "0.175"
            let array = field == "spacing_m" ? "spaced" : "binaural"
            try "{\"array\": \"\(array)\", \(extra)\"spacing_m\": \(spacing), \"delay_offset_us\": 0, \"gain_offset_db\": 0, \"sample_rate\": 48000}"
                .write(toFile: profile, atomically: true, encoding: .utf8)
            Self.expectOneLineError(
                try CLI.run(["analyze", wav, "--profile", profile]), status: 65, naming: profile, mentions: "\(field) 5e-324 is not a")
        }
    }

    // MARK: 3, 4. Times beyond Int.max samples

    @Test("item 3: live --duration=1e300 runs to the end of the input")
    func hugeDuration() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let result = try CLI.run(["live", "--input", wav, "--duration=1e300", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 45)
        let end = try CLI.run(["analyze", wav, "--end", "1e300", "--format", "jsonl"])
        #expect(end.status == 0, "\(end.stderr)")
        #expect(end.stdout.split(separator: "\n").count == 45)
        Self.expectOneLineError(
            try CLI.run(["analyze", wav, "--start", "1e300"]), status: 65, naming: wav, mentions: "at or after the end")
    }

    @Test("item 4: synth --source …@0-1e18 plays to the end; a start beyond the end is refused")
    func hugeSourceTimes() throws {
        let directory = TemporaryDirectory()
        let out = directory.path("s.wav")
        for range in ["0-1e18", "0-1e300"] {
            let result = try CLI.run(["synth", out, "--duration", "1", "--source", "white@30@\(range)", "--truth", "none"])
            #expect(result.status == 0, "\(result.stderr)")
            let analysis = try CLI.run(["analyze", out, "--format", "jsonl"])
            #expect(analysis.stdout.split(separator: "\n").count == 45)
        }
        Self.expectParserError(
            try CLI.run(["synth", out, "--duration", "1", "--source", "white@30@5-1e300"]), command: "synth",
            naming: "at or after the end of the recording")
    }

    // MARK: 6. DC offset

    @Test("item 6: a DC-only recording has no active frame, and calibrate refuses to fit it (65)")
    func dcOffset() throws {
        let directory = TemporaryDirectory()
        // 3 s of 16-bit stereo at 48 kHz holding a constant 0.3 in both channels.
        var bytes = [UInt8](BadInputTests.wav(channels: 2, rate: 48000, frames: 144_000))
        let sample = withUnsafeBytes(of: Int16(9830).littleEndian, Array.init)
        for i in stride(from: 44, to: bytes.count, by: 2) { bytes.replaceSubrange(i..<i + 2, with: sample) }
        let path = directory.path("dc.wav")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let analysis = try CLI.run(["analyze", path, "--format", "jsonl", "--fields", "active,confidence"])
        #expect(analysis.status == 0, "\(analysis.stderr)")
        let lines = analysis.stdout.split(separator: "\n")
        #expect(lines.count == 139)
        #expect(lines.allSatisfy { $0.contains("\"active\":false") && $0.contains("\"confidence\":0.000") }, "\(lines.first ?? "")")
        let fit = try CLI.run(["calibrate", path, "--truth", "30", "-o", directory.path("rig.json")])
        #expect(fit.status == 65, "\(fit.stderr)")
        #expect(fit.stderr.contains("soundcompass: error: \(path): "), "\(fit.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("rig.json")))
    }

    // MARK: 7, 10. Side files

    @Test("items 7 and 10: side files that never end or never start are refused at once", arguments: [
        (["--profile", "/dev/zero"], "/dev/zero", "cannot read the profile: it is a character device, not a regular file"),
        (["--imu", "/dev/urandom"], "/dev/urandom", "cannot read the IMU log: it is a character device, not a regular file"),
        (["--profile", "FIFO"], "FIFO", "cannot read the profile: it is a FIFO (named pipe), not a regular file"),
        (["--imu", "FIFO"], "FIFO", "cannot read the IMU log: it is a FIFO (named pipe), not a regular file"),
    ])
    func sideFiles(option: [String], name: String, mentions: String) throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let fifo = directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let arguments = option.map { $0 == "FIFO" ? fifo : $0 }
        let shown = name == "FIFO" ? fifo : name
        for command in [["analyze", wav], ["live", "--input", wav]] {
            let run = try Self.bounded(command + arguments, in: directory)
            if command[0] == "live" && option[0] == "--profile" {
                Self.expectOneLineError(run.result, status: 66, naming: shown, mentions: mentions)
            } else {
                // analyze and live both refuse, in their own error line.
                #expect(run.result.status == 66, "\(run.result.stderr)")
                #expect(run.result.stderr.contains("\(shown): \(mentions)"), "\(run.result.stderr)")
            }
            Self.expectBounded(run)
        }
    }

    @Test("item 7: a truth file that is a device, and a profile beyond 1 MiB, are refused")
    func truthAndSize() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let truth = try Self.bounded(["trace", wav, "--truth", "/dev/urandom", "--plot", directory.path("p.svg")], in: directory)
        #expect(truth.result.status == 66, "\(truth.result.stderr)")
        #expect(truth.result.stderr.contains("/dev/urandom: cannot read the truth file: it is a character device"), "\(truth.result.stderr)")
        Self.expectBounded(truth)
        let big = directory.path("big.json")
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 3_000_000_000) == 0)  // sparse: 3 GB long, nothing on disk
        let run = try Self.bounded(["analyze", wav, "--profile", big], in: directory)
        Self.expectOneLineError(run.result, status: 66, naming: big, mentions: "it is 2.8 GiB, more than the 1 MiB this file may be")
        Self.expectBounded(run)
    }

    @Test("item 10: a FIFO given as audio says that it waits, then reads what a writer sends")
    func audioFIFO() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        let fifo = directory.path("audio.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer comes a second later (a test cannot Ctrl-C a child: Foundation starts it
        // with SIGINT blocked).
        onOwnThread(after: 1) {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                try? handle.write(contentsOf: bytes)
                try? handle.close()
            }
        }
        let run = try Self.bounded(["analyze", fifo, "--format", "jsonl"], in: directory)
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect(run.result.stderr.contains("\(fifo): a FIFO: waiting for a program to write to it"), "\(run.result.stderr)")
        #expect(run.result.stdout.split(separator: "\n").count == 45)
        #expect(run.seconds < 3)
    }

    @Test("calibrate reads a FIFO once (it reads its input twice): the same profile as from the file, no hang")
    func calibrateFIFO() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory, seconds: "2")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        let fromFile = directory.path("file.json"), fromFIFO = directory.path("fifo.json")
        let file = try Self.bounded(["calibrate", wav, "--truth", "0", "--fit", "delay,gain", "-o", fromFile, "-q"], in: directory)
        #expect(file.result.status == 0, "\(file.result.stderr)")
        let fifo = directory.path("audio.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        onOwnThread(after: 0.5) {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                try? handle.write(contentsOf: bytes)
                try? handle.close()
            }
        }
        // Before, the second reading opened the FIFO again and waited for a writer for ever.
        let run = try Self.bounded(["calibrate", fifo, "--truth", "0", "--fit", "delay,gain", "-o", fromFIFO, "-q"], in: directory)
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect(run.seconds < 5, "took \(run.seconds) s")
        let a = try String(contentsOfFile: fromFile, encoding: .utf8), b = try String(contentsOfFile: fromFIFO, encoding: .utf8)
        // The same fit; the profile names the FIFO as its recording.
        #expect(a.replacingOccurrences(of: wav, with: fifo) == b, "\(a)\n\(b)")
        #expect(b.contains(#""recording": "\#(fifo)""#), "\(b)")
    }

    // MARK: 11. Profile messages

    @Test("item 11: profile JSON problems are named precisely", arguments: [
        ("[1,2,3]", "a profile is a JSON object"),
        (#"{"array":"spaced","spacing_m":0.15,"delay_offset_us":0,"gain_offset_db":0,"sample_rate":48000,"fitted":"delay"}"#,
         #"field "fitted" should be a list of strings"#),
        (#"{"array":"spaced","spacing_m":1e400,"delay_offset_us":0,"gain_offset_db":0,"sample_rate":48000}"#,
         "the number 1e400 is out of range"),
        (#"{"format":"soundcompass-profile","version":"x","array":"spaced","spacing_m":0.15,"delay_offset_us":0,"gain_offset_db":0,"sample_rate":48000}"#,
         #"field "version" should be a number"#),
        (#"{"format":"other","version":1,"array":"spaced","spacing_m":0.15,"delay_offset_us":0,"gain_offset_db":0,"sample_rate":48000}"#,
         #"format "other" is not "soundcompass-profile""#),
        (#"{"version":2,"array":"spaced","spacing_m":0.15,"delay_offset_us":0,"gain_offset_db":0,"sample_rate":48000}"#,
         "version 2 is newer than this soundcompass reads (1)"),
        (#"{"array":"spaced","spacing_m":0.15,"delay_offset_us":0,"gain_offset_db":0,"sample_rate":1e-300}"#,
         "sample_rate 1e-300 is not a rate in Hz (8000…768000)"),
    ])
    func profileMessages(json: String, mentions: String) throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let profile = directory.path("p.json")
        try json.write(toFile: profile, atomically: true, encoding: .utf8)
        Self.expectOneLineError(
            try CLI.run(["analyze", wav, "--profile", profile]), status: 65, naming: profile, mentions: mentions)
    }

    // MARK: 12. Messages

    @Test("item 12: a WAV header with an impossible rate or no channels says so", arguments: [
        (0, 2, "the WAV header gives a sample rate of 0 Hz"),
        (4_000_000_000, 2, "the WAV header gives a sample rate of 4000000000 Hz"),
        (48000, 0, "the WAV header says the file has 0 channels"),
    ])
    func waveHeader(rate: Int, channels: Int, mentions: String) throws {
        let directory = TemporaryDirectory()
        var bytes = [UInt8](BadInputTests.wav(channels: 2, rate: 48000, frames: 4800))
        // fmt chunk at 12: channels at 22, rate at 24 (little-endian).
        bytes.replaceSubrange(22..<24, with: withUnsafeBytes(of: UInt16(channels).littleEndian, Array.init))
        bytes.replaceSubrange(24..<28, with: withUnsafeBytes(of: UInt32(rate).littleEndian, Array.init))
        let path = directory.path("bad.wav")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        Self.expectOneLineError(try CLI.run(["analyze", path]), status: 65, naming: path, mentions: mentions)
    }

    @Test("item 12: --frame and --imu-offset name the value given and the limit")
    func optionLimits() throws {
        Self.expectParserError(
            try CLI.run(["analyze", "--frame", "2147483648"]), command: "analyze",
            naming: "2147483648 samples is more than the 262144 a frame may hold")
        Self.expectParserError(
            try CLI.run(["analyze", "--imu", "x.csv", "--imu-offset=1e300"]), command: "analyze",
            naming: "--imu-offset must be seconds within ±1e10")
    }
}
