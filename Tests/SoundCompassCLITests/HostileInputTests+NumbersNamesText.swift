import Foundation
import Testing
import TestSupport

/// Issue 30, round three of hostile input: numbers at the edges of their ranges, output names
/// and partial outputs, and outside text in messages (items 1, 5, 6, 9, 10, 11, 12). Each
/// asserts the exit code and the one line that names the problem; memory cases run bounded
/// (``HostileInputTests/bounded(_:stdin:in:)``: 1 GB address space, 10 s, GNU time's peak).
extension HostileInputTests {
    // MARK: 1. ILD gain

    @Test("#30 item 1: --ild-gain and a profile's ild_gain share one range (0.5…100 dB); tiny gains no longer trap calibrate")
    func ildGainRange() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("base.wav")
        let synth = try CLI.run(["synth", wav, "--array", "binaural", "--source", "white@-30", "--duration", "2", "--truth", "none"])
        #expect(synth.status == 0, "\(synth.stderr)")
        for value in ["1e-9", "1e-300", "0.1", "1e300", "101"] {
            Self.expectParserError(
                try CLI.run(["calibrate", wav, "--truth", "-30", "--array", "binaural", "--ild-gain", value]),
                command: "calibrate", naming: "--ild-gain must be 0.5…100.0 dB at 90°")
            Self.expectParserError(
                try CLI.run(["analyze", wav, "--array", "binaural", "--ild-gain", value]),
                command: "analyze", naming: "--ild-gain must be 0.5…100.0")
        }
        // A profile holding a gain out of range is refused by analyze, live and calibrate alike.
        let profile = directory.path("tiny.json")
        try #"{"array": "binaural", "spacing_m": 0.175, "delay_offset_us": 0, "gain_offset_db": 0, "ild_gain": 1e-9, "sample_rate": 48000}"#
            .write(toFile: profile, atomically: true, encoding: .utf8)
        for command in [["analyze", wav], ["live", "--input", wav], ["calibrate", wav, "--truth", "-30"]] {
            Self.expectOneLineError(
                try CLI.run(command + ["--profile", profile]), status: 65, naming: profile,
                mentions: "ild_gain 1e-09 is not a level-cue gain in dB (0.5…100.0)")
        }
        // The largest gain: a profile analyze loads, or a one-line refusal — never a profile
        // that analyze then refuses (1e300 used to write gain_offset_db 5e+299).
        let out = directory.path("rig.json")
        let largest = try CLI.run(["calibrate", wav, "--truth", "-30", "--array", "binaural", "--ild-gain", "100", "-o", out, "-q"])
        if largest.status == 0 {
            let check = try CLI.run(["analyze", wav, "--profile", out, "--format", "jsonl"])
            #expect(check.status == 0, "\(check.stderr)")
        } else {
            Self.expectOneLineError(largest, status: 65, naming: wav, mentions: "cannot fit the gain offset")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    // MARK: 5. Long lines in side files

    /// Writes `header` then `bytes` bytes of `7` with no line break (a sparse file would not do:
    /// the bytes must be read to find the line's end).
    static func writeSingleLine(_ path: String, header: String, bytes: Int) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(header.utf8)))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        let chunk = Data(repeating: UInt8(ascii: "7"), count: 1 << 20)
        for _ in 0..<(bytes >> 20) { try handle.write(contentsOf: chunk) }
        try handle.close()
    }

    @Test("#30 item 5: a 100 MB single-line truth CSV or IMU log ends at the 64 KiB line limit, in bounded memory and time")
    func longSideFileLines() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let truth = directory.path("truth.csv"), imu = directory.path("imu.csv")
        try Self.writeSingleLine(truth, header: "time,azimuth\n0,10\n", bytes: 100 << 20)
        try Self.writeSingleLine(imu, header: "time,yaw\n0,1\n", bytes: 100 << 20)
        let truthMessage = "\(truth): line 3: longer than 65536 bytes, far more than a truth row needs (is this a truth CSV?)"
        for command in [
            ["trace", wav, "--truth", truth, "--plot", directory.path("p.svg")],
            ["calibrate", wav, "--truth", truth],
            ["analyze", wav, "--truth", truth, "--plot", directory.path("q.svg")],
        ] {
            let run = try Self.bounded(command, in: directory)
            #expect(run.result.status == 65, "\(command): \(run.result.stderr)")
            #expect(run.result.stderrLines.last.map(String.init) == "soundcompass: error: \(truthMessage)", "\(run.result.stderr)")
            Self.expectBounded(run)
        }
        let run = try Self.bounded(["analyze", wav, "--imu", imu], in: directory)
        Self.expectOneLineError(run.result, status: 65, naming: imu, mentions: "line 3: longer than 65536 bytes")
        Self.expectBounded(run)
    }

    // MARK: 6. The largest frame

    @Test("#30 item 6: the largest --frame stays within its stated memory; calibrate on a shorter recording says so")
    func largestFrame() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory, seconds: "6")
        let largest = "262144"
        Self.expectParserError(
            try CLI.run(["analyze", wav, "--frame", "262145"]), command: "analyze",
            naming: "262145 samples is more than the 262144 a frame may hold")
        // Docs/CLI.md: about 76 MB for analyze, trace and live, 190 MB for calibrate. (The web
        // server of `live --serve`, linked into the tool, adds about 2.5 MB to every run: trace
        // peaked at 78.6 MB before it, 81.2 MB with it.)
        for (command, boundKB) in [
            (["analyze", wav, "--frame", largest, "--format", "jsonl", "-o", directory.path("a.jsonl")], 85_000),
            (["trace", wav, "--frame", largest, "--plot", directory.path("t.svg"), "-q"], 85_000),
            (["live", "--input", wav, "--frame", largest, "--format", "jsonl", "-q"], 85_000),
            (["calibrate", wav, "--truth", "30", "--frame", largest, "--fit", "delay,gain", "-q"], 200_000),
        ] {
            let run = try Self.bounded(command, in: directory)
            #expect(run.result.status == 0 || command[0] == "calibrate", "\(command): \(run.result.stderr)")
            if let peak = run.peakKilobytes { #expect(peak <= boundKB * memoryBoundScale, "\(command[0]): peak RSS \(peak) kB") }
        }
        let shortDirectory = TemporaryDirectory()
        let short = try Self.stereoWAV(shortDirectory, seconds: "1")
        Self.expectOneLineError(
            try CLI.run(["calibrate", short, "--truth", "30", "--frame", largest, "-q"]), status: 65, naming: short,
            mentions: "shorter than one analysis frame (262144 samples)")
    }

    // MARK: 9. Outputs that stop part way

    @Test("#30 item 9: -o of analyze and live leaves an existing file alone when the run fails, keeping what was written as .partial")
    func failedRunKeepsOldOutput() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory, seconds: "3")
        for command in [["analyze", wav], ["live", "--input", wav]] {
            let out = directory.path("\(command[0]).jsonl")
            try "OLD\n".write(toFile: out, atomically: true, encoding: .utf8)
            // Writing fails part way: files may not pass 16 KiB (EFBIG; SIGXFSZ ignored).
            var environment = ["OUT": out]
            for (i, word) in command.enumerated() { environment["A\(i)"] = word }
            let words = command.indices.map { "\"$A\($0)\"" }.joined(separator: " ")
            let result = try CLI.shell(
                "trap '' XFSZ; ulimit -f 16; soundcompass \(words) --format jsonl -o \"$OUT\" -q", environment: environment)
            #expect(result.status == 74, "\(command): \(result.stderr)")
            #expect(result.stderrLines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("File too large (what was written before it is in \(out).partial; \(out) is unchanged)"), "\(result.stderr)")
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "OLD\n")
            let partial = try String(contentsOfFile: out + ".partial", encoding: .utf8)
            #expect(partial.split(separator: "\n").count >= 20, "\(command[0]): \(partial.count) bytes")
            let hidden = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".") }
            #expect(hidden.isEmpty, "\(hidden)")
        }
    }

    @Test("#30 item 9: analyze -o and synth killed by a signal keep the old file; what was written is kept as .partial")
    func killedRunKeepsOldOutput() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let raw = directory.path("x.raw")
        #expect(try CLI.run(["synth", raw, "--duration", "1", "--truth", "none"]).status == 0)
        let out = directory.path("records.jsonl"), synthOut = directory.path("long.wav")
        try "OLD\n".write(toFile: out, atomically: true, encoding: .utf8)
        try Data(contentsOf: URL(fileURLWithPath: wav)).write(to: URL(fileURLWithPath: synthOut))
        // A raw stream that stalls after its first second; SIGTERM half a second in.
        let analyze = try CLI.shell(
            "(cat \"$RAW\"; sleep 5) | soundcompass analyze - --raw-format f32le --format jsonl -o \"$OUT\" -q & pid=$!; "
                + "sleep 1; kill -TERM $pid; wait $pid; echo \"status $?\" >&2",
            environment: ["RAW": raw, "OUT": out])
        #expect(analyze.stderr.contains("status 143"), "\(analyze.stderr)")
        #expect(analyze.stderr.contains("soundcompass: interrupted; what was written so far is in \(out).partial"), "\(analyze.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "OLD\n")
        #expect(FileManager.default.fileExists(atPath: out + ".partial"))
        // synth of 20 minutes takes seconds: killed part way, the old WAV stays whole.
        let synth = try CLI.shell(
            "soundcompass synth \"$OUT\" --duration 1200 --rate 96000 --truth none -q & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid; echo \"status $?\" >&2",
            environment: ["OUT": synthOut])
        #expect(synth.stderr.contains("status 143"), "\(synth.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: synthOut)) == Data(contentsOf: URL(fileURLWithPath: wav)))
        let analysis = try CLI.run(["analyze", synthOut, "--format", "jsonl"])
        #expect(analysis.status == 0, "\(analysis.stderr)")
        #expect(FileManager.default.fileExists(atPath: synthOut + ".partial"))
    }

    /// The partial-output handler takes over only the signals the process listens to: a
    /// script's background job, started with SIGINT ignored, still ignores it while writing.
    @Test("#30 item 9: a run started with SIGINT ignored keeps ignoring it while -o is written")
    func ignoredSignalStaysIgnored() throws {
        let directory = TemporaryDirectory()
        let raw = directory.path("x.raw")
        #expect(try CLI.run(["synth", raw, "--duration", "1", "--truth", "none"]).status == 0)
        let out = directory.path("records.jsonl")
        let run = try CLI.shell(
            "trap '' INT; (cat \"$RAW\"; sleep 1.5) | soundcompass analyze - --raw-format f32le --format jsonl -o \"$OUT\" -q & pid=$!; "
                + "sleep 0.5; kill -INT $pid; wait $pid; echo \"status $?\" >&2",
            environment: ["RAW": raw, "OUT": out])
        #expect(run.stderr.contains("status 0"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
        let records = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(records.count == 45, "\(records.count) records")
    }

    // MARK: 10. Outside text in messages

    @Test("#30 item 10: newlines, ESC and BEL from file names and CSV cells are shown escaped in errors and warnings")
    func escapedMessages() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        let hostile = directory.path("a\u{1B}[2J\u{07}b\nc.wav")
        let missing = try CLI.run(["analyze", hostile])
        Self.expectOneLineError(missing, status: 66, naming: directory.path("a\\e[2J\\ab\\nc.wav"), mentions: "no such file")
        let truth = directory.path("t.csv")
        try "time,azimuth\n0,\u{1B}]0;owned\u{07}\n".write(toFile: truth, atomically: true, encoding: .utf8)
        let cell = try CLI.run(["calibrate", wav, "--truth", truth])
        Self.expectOneLineError(cell, status: 65, naming: truth, mentions: "line 2: azimuth \"\\e]0;owned\\a\" is not an angle in degrees")
        let imu = directory.path("imu.csv")
        try "time,yaw\n0,1\n0.5,\u{1B}[31mred\n1,2\n".write(toFile: imu, atomically: true, encoding: .utf8)
        let warning = try CLI.run(["analyze", wav, "--imu", imu, "--format", "jsonl", "-q"])
        #expect(warning.status == 0, "\(warning.stderr)")
        #expect(warning.stderr.contains("\\e[31mred"), "\(warning.stderr)")
        let bands = try CLI.run(["analyze", wav, "--bands", "x\u{1B}[5m:100-200"])
        Self.expectParserError(bands, command: "analyze", naming: "x\\e[5m:100-200")
        for result in [missing, cell, warning, bands] {
            #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(result.stderr.debugDescription)")
        }
    }

    // MARK: 11. Long output names

    @Test("#30 item 11: output names of 240–255 bytes get temporary names that fit", arguments: [240, 250, 255])
    func longOutputNames(length: Int) throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        func name(_ suffix: String) -> String {
            directory.path(String(repeating: "n", count: length - suffix.utf8.count) + suffix)
        }
        let records = try CLI.run(["analyze", wav, "--format", "jsonl", "-o", name(".jsonl"), "--plot", name(".svg")])
        #expect(records.status == 0, "\(records.stderr)")
        #expect(FileManager.default.fileExists(atPath: name(".jsonl")) && FileManager.default.fileExists(atPath: name(".svg")))
        let synth = try CLI.run(["synth", name(".wav"), "--duration", "0.5", "--truth", "none"])
        #expect(synth.status == 0, "\(synth.stderr)")
        let profile = try CLI.run(["calibrate", wav, "--truth", "30", "-o", name("é.json"), "-q"])
        #expect(profile.status == 0, "\(profile.stderr)")
        let hidden = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "\(hidden)")
    }

    // MARK: 12. Smaller ones

    @Test("#30 item 12: synth of less than one sample, a band beyond any rate, and a band beyond this file's are not silent")
    func smallerOnes() throws {
        let directory = TemporaryDirectory()
        let wav = try Self.stereoWAV(directory)
        Self.expectParserError(
            try CLI.run(["synth", directory.path("none.wav"), "--duration", "1e-300"]), command: "synth",
            naming: "--duration 1e-300 s is less than one sample at 48000 Hz")
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.wav")))
        Self.expectParserError(
            try CLI.run(["analyze", wav, "--bands", "a:100-1e300"]), command: "analyze", naming: "reaches above 345600 Hz")
        let dropped = try CLI.run(["analyze", wav, "--bands", "a:100-1000,b:1000-30000", "--format", "jsonl"])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(dropped.stderrLines.map(String.init) == [
            "soundcompass: warning: \(wav): band b:1000-30000 reaches above 0.45 × 48000 Hz = 21600 Hz; left out",
        ])
    }

    @Test("#30 item 12: --jobs 256 under ulimit -n 64 uses the jobs the descriptors allow, and every file succeeds")
    func jobsFitDescriptors() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("one.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "0.3", "--truth", "none"]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: wav))
        var files: [String] = []
        for i in 0..<300 {
            let path = directory.path("f\(i).wav")
            try data.write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let out = directory.path("out")
        let result = try CLI.shell(
            "ulimit -n 64; cd \"$DIR\" && soundcompass analyze f*.wav --output-dir \"$OUT\" --jobs 256 -q",
            environment: ["DIR": directory.url.path, "OUT": out])
        #expect(result.status == 0, "\(result.stderr.prefix(2000))")
        #expect(result.stderrLines.count == 1, "\(result.stderr.prefix(2000))")
        #expect(result.stderr.contains("--jobs 256: only 64 file descriptors are allowed (ulimit -n)"), "\(result.stderr.prefix(500))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).count == 300)
    }

    @Test("#30 item 12: f32 data read as --raw-format s16le warns and names f32le")
    func rawFormatMismatch() throws {
        let directory = TemporaryDirectory()
        let raw = directory.path("take.raw")
        #expect(try CLI.run(["synth", raw, "--duration", "3", "--source", "speech@-30", "--truth", "none"]).status == 0)
        for command in [["analyze", raw], ["live", "--input", raw]] {
            let result = try CLI.run(command + ["--raw-format", "s16le", "--format", "jsonl", "-q"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("soundcompass: warning: \(raw): read as s16le, the samples look like noise"), "\(result.stderr)")
            #expect(result.stderr.contains("(--raw-format f32le)"), "\(result.stderr)")
        }
        let right = try CLI.run(["analyze", raw, "--raw-format", "f32le", "--format", "jsonl", "-q"])
        #expect(right.status == 0 && right.stderr.isEmpty, "\(right.stderr)")
    }
}
