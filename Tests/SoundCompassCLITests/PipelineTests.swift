import Foundation
import Testing
import TestSupport

/// `-` for standard input, raw PCM for analyze, sound files for live --input, --start/--end,
/// and refusals of mismatched raw input (issue 14, items 4 and 6).
@Suite struct PipelineTests {
    /// True for a line that matches `^soundcompass: (error|warning): `.
    static func isDiagnostic(_ line: Substring) -> Bool {
        line.hasPrefix("soundcompass: error: ") || line.hasPrefix("soundcompass: warning: ")
    }

    /// Runs a shell command line with `$F`, `$A`, `$B` set to paths (`CLI.shell` rewrites every
    /// "soundcompass" in the line, and the temporary paths contain it).
    static func shell(_ command: String, _ paths: [String: String]) throws -> CLI.Result {
        try CLI.shell(command, environment: paths)
    }

    /// The records of a jsonl output, parsed.
    static func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("cat x | analyze - equals analyze x, byte for byte (WAV float, WAV 16-bit, FLAC, Ogg), and so does < x",
          arguments: ["wav-float", "wav16", "flac16", "ogg"])
    func standardInput(format: String) throws {
        let directory = TemporaryDirectory()
        let file = directory.path("x." + ["wav-float": "wav", "wav16": "wav", "flac16": "flac", "ogg": "ogg"][format]!)
        #expect(try CLI.run(["synth", file, "--duration", "2", "--file-format", format]).status == 0)
        let direct = try CLI.run(["analyze", file, "--format", "jsonl"])
        #expect(direct.status == 0)
        #expect(direct.stdout.split(separator: "\n").count == 92)
        let piped = try Self.shell("cat \"$F\" | soundcompass analyze - --format jsonl", ["F": file])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == direct.stdout)
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        let redirected = try Self.shell("soundcompass analyze - --format jsonl < \"$F\"", ["F": file])
        #expect(redirected.status == 0)
        #expect(redirected.stdout == direct.stdout)
    }

    @Test("trace - and calibrate - read a pipe: the same segments and the same profile as from the file")
    func traceAndCalibrate() throws {
        let directory = TemporaryDirectory()
        let file = directory.path("s.wav")
        #expect(try CLI.run(["synth", file, "--source", "pink@30", "--duration", "3"]).status == 0)
        let direct = try CLI.run(["trace", file, "--plot", directory.path("a.svg"), "--summary-json", directory.path("a.json")])
        let piped = try Self.shell(
            "cat \"$F\" | soundcompass trace - --plot \"$A\" --summary-json \"$B\"",
            ["F": file, "A": directory.path("b.svg"), "B": directory.path("b.json")])
        #expect(direct.status == 0 && piped.status == 0, "\(piped.stderr)")
        let a = try String(contentsOfFile: directory.path("a.json"), encoding: .utf8)
        let b = try String(contentsOfFile: directory.path("b.json"), encoding: .utf8)
        #expect(a.replacingOccurrences(of: file, with: "standard input") == b)
        let profile = try CLI.run(["calibrate", file, "--truth", "30", "-q"])
        let pipedProfile = try Self.shell("cat \"$F\" | soundcompass calibrate - --truth 30 -q", ["F": file])
        #expect(profile.status == 0 && pipedProfile.status == 0, "\(pipedProfile.stderr)")
        #expect(profile.stdout.replacingOccurrences(of: "\"s.wav\"", with: "\"standard input\"")
            .replacingOccurrences(of: "\"\(file)\"", with: "\"standard input\"") == pipedProfile.stdout)
        #expect(pipedProfile.stdout.contains("\"recording\""))
    }

    @Test("garbage or nothing on a pipe: one error line, exit 65; a terminal is refused")
    func badStandardInput() throws {
        let garbage = try CLI.run(["analyze", "-"], stdin: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        #expect(garbage.status == 65)
        #expect(garbage.stdout.isEmpty)
        #expect(garbage.stderrLines == ["soundcompass: error: standard input: not a sound file libsndfile can read (Format not recognised)"])
        let empty = try CLI.run(["analyze", "-"], stdin: Data())
        #expect(empty.status == 65)
        #expect(empty.stderrLines == ["soundcompass: error: standard input: file is empty (0 bytes)"])
        // script(1) gives the command a terminal for standard input.
        let terminal = try CLI.shell("script -qec \"soundcompass analyze -\" /dev/null")
        #expect(terminal.status == 66)
        // On a terminal the line is broken at spaces to its width (issue 30, item 20).
        let shown = terminal.stdout.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n    ", with: " ")
        #expect(shown.trimmingCharacters(in: .whitespacesAndNewlines)
            == "soundcompass: error: standard input: cannot be read: it is a terminal; pipe a sound file into it or redirect one (< take.wav)")
    }

    @Test("a WAV whose data follows a 300 kB chunk needs seeking: refused on a pipe with the fix, read when redirected")
    func needsSeeking() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("x.wav"), padded = directory.path("padded.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "--file-format", "wav16"]).status == 0)
        // RIFF header, fmt chunk, then a 300000-byte 'junk' chunk before the data chunk.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wav)))
        let data = try #require(CLITests.dataChunkOffset(bytes)) - 8
        var out = Array(bytes[12..<data])
        out += Array("junk".utf8) + withUnsafeBytes(of: UInt32(300_000).littleEndian, Array.init) + [UInt8](repeating: 0, count: 300_000)
        out += bytes[data...]
        let header = Array("RIFF".utf8) + withUnsafeBytes(of: UInt32(out.count + 4).littleEndian, Array.init) + Array("WAVE".utf8)
        try Data(header + out).write(to: URL(fileURLWithPath: padded))
        let direct = try CLI.run(["analyze", padded, "--format", "jsonl"])
        #expect(direct.status == 0)
        #expect(direct.stdout == (try CLI.run(["analyze", wav, "--format", "jsonl"])).stdout)
        let piped = try Self.shell("{ cat \"$F\" || true; } | soundcompass analyze -", ["F": padded])
        #expect(piped.status == 65)
        #expect(piped.stdout.isEmpty)
        #expect(piped.stderrLines == [
            "soundcompass: error: standard input: WAV needs seeking, which a pipe cannot do; give the file name or redirect it (< FILE)"
        ])
        let redirected = try Self.shell("soundcompass analyze - --format jsonl < \"$F\"", ["F": padded])
        #expect(redirected.status == 0)
        #expect(redirected.stdout == direct.stdout)
    }

    @Test("analyze --raw-format reads what synth writes as raw: records equal to the WAV's (f32 exactly, s16 within 0.5°)")
    func rawFiles() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("x.wav"), raw = directory.path("x.raw"), raw16 = directory.path("x16.raw")
        for (path, format) in [(wav, "wav-float"), (raw, "raw-f32le"), (raw16, "raw-s16le")] {
            #expect(try CLI.run(["synth", path, "--duration", "2", "--file-format", format]).status == 0)
        }
        let reference = try CLI.run(["analyze", wav, "--format", "jsonl"])
        let fromRaw = try CLI.run(["analyze", raw, "--raw-format", "f32le", "--format", "jsonl"])
        #expect(fromRaw.status == 0 && fromRaw.stderr.isEmpty, "\(fromRaw.stderr)")
        #expect(fromRaw.stdout == reference.stdout)
        let piped = try Self.shell(
            "cat \"$F\" | soundcompass analyze - --raw-format S16_LE --rate 48000 --format jsonl", ["F": raw16])
        #expect(piped.status == 0, "\(piped.stderr)")
        let a = try Self.records(reference.stdout), b = try Self.records(piped.stdout)
        #expect(a.count == b.count)
        var active = 0
        for (x, y) in zip(a, b) where x["active"] as? Bool == true {
            active += 1
            #expect(abs((x["azimuth"] as! Double) - (y["azimuth"] as! Double)) < 0.5)
        }
        #expect(active > 40)
    }

    @Test("live --input x.wav (and a WAV piped into live --input -) agrees with analyze x.wav within 1°, record by record")
    func liveSoundFile() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("x.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "3"]).status == 0)
        let reference = try Self.records(try CLI.run(["analyze", wav, "--format", "jsonl"]).stdout)
        let live = try CLI.run(["live", "--input", wav, "--format", "jsonl", "-q"])
        #expect(live.status == 0 && live.stderr.isEmpty, "\(live.stderr)")
        let records = try Self.records(live.stdout)
        #expect(abs(records.count - reference.count) <= 1)
        for (x, y) in zip(reference, records) {
            #expect(abs((x["azimuth"] as! Double) - (y["azimuth"] as! Double)) < 1)
        }
        let piped = try Self.shell("cat \"$F\" | soundcompass live --input - --rate 44100 --format jsonl -q", ["F": wav])
        #expect(piped.status == 0)
        #expect(piped.stdout == live.stdout)
        #expect(piped.stderrLines == [
            "soundcompass: warning: standard input: --rate ignored: the input has a sound file header, which gives its rate, channels and encoding"
        ])
    }

    @Test("raw input that does not fit the options: a missing channel and s16/s32 read as f32 exit 65 with the fix")
    func mismatchedRaw() throws {
        let directory = TemporaryDirectory()
        let raw16 = directory.path("take.raw"), raw32 = directory.path("take32.raw")
        #expect(try CLI.run(["synth", raw16, "--duration", "1", "--file-format", "raw-s16le"]).status == 0)
        #expect(try CLI.run(["synth", raw32, "--duration", "1", "--file-format", "raw-s32le"]).status == 0)
        for command in [["live", "--input", raw16], ["analyze", raw16, "--raw-format", "s16le"]] {
            let result = try CLI.run(command + ["--channels", "1,3"])
            #expect(result.status == 65)
            #expect(result.stdout.isEmpty)
            #expect(result.stderrLines == [
                "soundcompass: error: \(raw16): channel 3 does not exist (there are 2 channels, 1…2); give --raw-channels if the stream has more"
            ])
        }
        // A sound file with too few channels gets no raw-PCM advice.
        let wav = directory.path("take.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1"]).status == 0)
        let wavChannels = try CLI.run(["live", "--input", wav, "--channels", "1,3"])
        #expect(wavChannels.status == 65)
        #expect(wavChannels.stderrLines == ["soundcompass: error: \(wav): channel 3 does not exist (there are 2 channels, 1…2)"])
        for (path, likely) in [(raw16, "s16le"), (raw32, "s32le")] {
            for command in [["live", "--input", path, "--format", "jsonl"], ["analyze", path, "--raw-format", "f32le"]] {
                let result = try CLI.run(command)
                #expect(result.status == 65, "\(command)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderrLines.count == 1)
                let line = String(try #require(result.stderrLines.first))
                #expect(line.hasPrefix("soundcompass: error: \(path): does not look like f32le samples ("), "\(line)")
                #expect(line.hasSuffix("; it looks like \(likely): give --raw-format \(likely)"), "\(line)")
            }
        }
        // A size that is not a whole number of frames: a warning, and the rest is analysed.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: raw16))
        bytes.append(contentsOf: [1, 2, 3])
        try bytes.write(to: URL(fileURLWithPath: raw16))
        let odd = try CLI.run(["analyze", raw16, "--raw-format", "s16le", "--format", "jsonl"])
        #expect(odd.status == 0)
        #expect(odd.stderrLines == [
            "soundcompass: warning: \(raw16): ended part-way through a frame; the last 3 bytes were ignored"
        ])
        #expect(odd.stderrLines.allSatisfy(Self.isDiagnostic))
    }

    @Test("a float WAV that is 5 % NaN: exit 65 with one line (CLITests.nonFiniteSamples: a few only warn)")
    func mostlyNonFinite() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("nan.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1"]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wav)))
        let data = try #require(CLITests.dataChunkOffset(bytes))
        // Every 20th sample NaN: 5 %.
        for i in stride(from: data, to: bytes.count - 4, by: 4 * 20) {
            withUnsafeBytes(of: UInt32(0x7FC0_0000).littleEndian) { for j in 0..<4 { bytes[i + j] = $0[j] } }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: wav))
        let result = try CLI.run(["analyze", wav, "--format", "jsonl"])
        #expect(result.status == 65)
        #expect(result.stderrLines.count == 1)
        let line = String(try #require(result.stderrLines.first))
        #expect(line.hasPrefix("soundcompass: error: \(wav): 5 % of the samples are NaN/Inf ("), "\(line)")
    }

    @Test("--start/--end: records keep the file's time, and a pipe gives the same records as the file")
    func excerpt() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("x.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "3"]).status == 0)
        let whole = try Self.records(try CLI.run(["analyze", wav, "--format", "jsonl"]).stdout)
        let part = try CLI.run(["analyze", wav, "--start", "1", "--end", "0:02", "--format", "jsonl"])
        #expect(part.status == 0)
        let records = try Self.records(part.stdout)
        // 48000 samples: ⌊(48000 − 2048) / 1024⌋ + 1 = 45 frames, centred 1 s + (k·1024 + 1024) / 48000.
        #expect(records.count == 45)
        let times = records.map { $0["time"] as! Double }
        #expect(abs(times[0] - (1 + 1024 / 48000.0)) < 1e-6)
        #expect(abs(times.last! - (1 + (44 * 1024 + 1024) / 48000.0)) < 1e-6)
        // analyze stops reading at --end, so cat may get SIGPIPE: only analyze's status counts.
        let piped = try Self.shell("{ cat \"$F\" || true; } | soundcompass analyze - --start 1 --end 2 --format jsonl", ["F": wav])
        #expect(piped.status == 0)
        #expect(piped.stdout == part.stdout)
        // From 0.512 s (sample 24576 = 24 hops) each frame sees the samples of the whole file's
        // frame at the same time: the same raw azimuth (the tracker starts afresh, so not the azimuth).
        let aligned = try Self.records(
            try CLI.run(["analyze", wav, "--start", "0.512", "--end", "1.536", "--format", "jsonl"]).stdout)
        #expect(aligned.count == 47)
        for record in aligned {
            let time = record["time"] as! Double
            let match = try #require(whole.first { abs(($0["time"] as! Double) - time) < 1e-6 })
            #expect(match["raw_azimuth"] as! Double == record["raw_azimuth"] as! Double)
        }
        let beyond = try CLI.run(["analyze", wav, "--start", "5"])
        #expect(beyond.status == 65)
        #expect(beyond.stderrLines == ["soundcompass: error: \(wav): the start, 5 s, is at or after the end (3 s)"])
        let backwards = try CLI.run(["analyze", wav, "--start", "2", "--end", "1"])
        #expect(backwards.status == 64)
    }
}
