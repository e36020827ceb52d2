import CSndFile
import Foundation
import SoundCompass
import Testing
import TestSupport

struct CLITests {
    static let fields = ["time", "azimuth", "lateral", "confidence", "ild_db", "itd_us", "level_dbfs", "active", "hemisphere", "bands"]

    static func parseJSONLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("no arguments: the demo scene, JSON lines with every field, finite numbers")
    func demo() throws {
        let result = try CLI.run([])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try Self.parseJSONLines(result.stdout)
        let expectedCount: Int = (8 * 48000 - 2048) / 1024 + 1
        #expect(records.count == expectedCount)
        for record in records {
            for key in Self.fields { #expect(record[key] != nil, "missing \(key)") }
        }
        // Speech at −50°, noise at +35°: confident frames in those spans point there.
        func confident(_ from: Double, _ to: Double) -> [Double] {
            records.filter { ($0["time"] as! Double) > from && ($0["time"] as! Double) < to && ($0["confidence"] as! Double) > 0.5 }
                .map { $0["azimuth"] as! Double }
        }
        #expect(abs(median(confident(0.3, 2.8)) + 50) < 2)
        #expect(abs(median(confident(3.3, 4.7)) - 35) < 1)
    }

    @Test("synth then analyze: CSV with a header, the bearing of the synthesised source")
    func synthAnalyzeRoundTrip() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("scene.wav")
        let synth = try CLI.run(["synth", wav, "--source", "pink@-25", "--duration", "2", "--snr", "20", "--file-format", "wav24"])
        #expect(synth.status == 0, "\(synth.stderr)")
        let truth = try String(contentsOfFile: directory.path("scene.truth.csv"), encoding: .utf8)
        #expect(truth.hasPrefix("time,azimuth\n0,-25\n"))
        let result = try CLI.run(["analyze", wav, "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        #expect(header.prefix(10) == ["time", "azimuth", "raw_azimuth", "lateral", "confidence", "ild_db", "itd_us", "level_dbfs", "active", "hemisphere"])
        let azimuths = lines.dropFirst().map { Double($0.split(separator: ",")[1])! }
        #expect(abs(median(azimuths) + 25) < 0.5)
    }

    /// A float WAV would carry libsndfile's PEAK chunk, which holds the time of writing in
    /// seconds: two renders of the same scene a second apart would differ in two bytes.
    @Test("synth renders the same scene to the same bytes, also a second later (no PEAK chunk's time stamp)")
    func synthIsReproducible() throws {
        let directory = TemporaryDirectory()
        let arguments = ["--source", "speech@-30", "--source", "pink@40", "--duration", "0.5", "--snr", "20", "-q"]
        let first = directory.path("first.wav"), second = directory.path("second.wav")
        #expect(try CLI.run(["synth", first] + arguments).status == 0)
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try CLI.run(["synth", second] + arguments).status == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: first)), b = try Data(contentsOf: URL(fileURLWithPath: second))
        #expect(a.count > 44 && a == b, "\(a.count) and \(b.count) bytes")
        #expect(a.range(of: Data("PEAK".utf8)) == nil)
    }

    @Test("frame and hop in milliseconds, and a different array model")
    func options() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("x.wav")
        #expect(try CLI.run(["synth", wav, "--source", "white@20", "--duration", "1", "--spacing", "0.1"]).status == 0)
        let result = try CLI.run(["analyze", wav, "--frame", "20ms", "--hop", "10ms", "--spacing", "0.1", "--format", "jsonl"])
        #expect(result.status == 0)
        let records = try Self.parseJSONLines(result.stdout)
        let expectedCount: Int = (48000 - 960) / 480 + 1
        #expect(records.count == expectedCount)
        #expect(abs(median(records.map { $0["azimuth"] as! Double }) - 20) < 0.5)
    }

    @Test("NaN/Inf samples in a float WAV: every number in the output is finite, with a warning")
    func nonFiniteSamples() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("nan.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1"]).status == 0)
        // Overwrite some float samples in the data chunk with NaN and +Inf bit patterns.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wav)))
        let data = try #require(Self.dataChunkOffset(bytes))
        for i in stride(from: data, to: bytes.count - 4, by: 4 * 211) {
            let pattern: UInt32 = (i / 4) % 2 == 0 ? 0x7FC0_0000 : 0x7F80_0000
            withUnsafeBytes(of: pattern.littleEndian) { for j in 0..<4 { bytes[i + j] = $0[j] } }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: wav))
        for format in ["jsonl", "csv", "text"] {
            let result = try CLI.run(["analyze", wav, "--format", format])
            #expect(result.status == 0)
            // No token of the output may read as a non-finite number.
            let tokens = result.stdout.lowercased().split { !$0.isLetter }
            #expect(!tokens.contains { ["nan", "inf", "infinity"].contains($0) }, "\(format)")
            #expect(result.stderr.contains("NaN/Inf samples were replaced by 0"))
        }
    }

    static func dataChunkOffset(_ bytes: [UInt8]) -> Int? {
        var i = 12
        while i + 8 <= bytes.count {
            let id = String(decoding: bytes[i..<(i + 4)], as: UTF8.self)
            let size = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]) << 16 | Int(bytes[i + 7]) << 24
            if id == "data" { return i + 8 }
            i += 8 + size + (size & 1)
        }
        return nil
    }

    @Test("a reader that closes the pipe early ends the run quietly with exit 0")
    func closedPipe() throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["analyze", "--format", "jsonl"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let handle = out.fileHandleForReading
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        try handle.close()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(!stderr.contains("error"), "\(stderr)")
    }
}

// MARK: - Issue 30, item 16: a synthesised mix that reaches full scale

extension CLITests {
    /// Both channels of a sound file, read through the library's span form.
    static func samples(_ path: String) throws -> (left: [Float], right: [Float]) {
        let reader = try SoundFileReader(path: path)
        var left = [Float](repeating: 0, count: 4096), right = left
        var leftSpan = left.mutableSpan, rightSpan = right.mutableSpan
        var all: (left: [Float], right: [Float]) = ([], [])
        while true {
            let n = try reader.read(left: &leftSpan, right: &rightSpan)
            if n == 0 { return all }
            for i in 0..<n {
                all.left.append(leftSpan[i])
                all.right.append(rightSpan[i])
            }
        }
    }

    static func peak(_ signal: (left: [Float], right: [Float])) -> Float {
        max(signal.left.reduce(0) { max($0, abs($1)) }, signal.right.reduce(0) { max($0, abs($1)) })
    }

    /// `synth talk.wav --source speech@-30 --snr 20` peaked at 1.245 (+1.9 dBFS) in its float
    /// WAV, and its FLAC and 16-bit versions clipped silently.
    @Test("synth scales a mix that reaches full scale to peak at −1 dBFS, says so, and every format holds the same samples")
    func synthKeepsBelowFullScale() throws {
        let directory = TemporaryDirectory()
        let arguments = ["--source", "speech@-30", "--duration", "6", "--snr", "20"]   // the tour's talk.wav
        let float = directory.path("talk.wav"), flac = directory.path("talk.flac"), s16 = directory.path("talk16.wav")
        let run = try CLI.run(["synth", float] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("talk.wav: the mix peaked at +1.9 dBFS (1.245 of full scale), so the whole render was scaled by -2.9 dB"), "\(run.stderr)")
        #expect(try CLI.run(["synth", flac, "-q"] + arguments).status == 0)
        #expect(try CLI.run(["synth", s16, "-q", "--sample-format", "s16le"] + arguments).status == 0)
        let reference = try Self.samples(float)
        #expect(abs(Self.peak(reference) - 0.8913) < 1e-4, "peak \(Self.peak(reference))")
        // The integer versions are the float one, rounded: nothing clipped or wrapped.
        for (path, step) in [(flac, Float(1) / 8_388_608), (s16, Float(1) / 32768)] {
            let copy = try Self.samples(path)
            #expect(copy.left.count == reference.left.count)
            let worst = zip(copy.left + copy.right, reference.left + reference.right).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
            #expect(worst <= step, "\(path): largest difference \(worst)")
        }
        // The truth is the scene's, whatever the gain; a quieter mix is not touched.
        let quiet = directory.path("quiet.wav")
        let quietRun = try CLI.run(["synth", quiet, "--level", "-30"] + arguments)
        #expect(quietRun.status == 0 && !quietRun.stderr.contains("peaked"), "\(quietRun.stderr)")
        #expect(Self.peak(try Self.samples(quiet)) < 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path("talk.truth.csv")))
            == Data(contentsOf: URL(fileURLWithPath: directory.path("quiet.truth.csv"))))
    }
}

// MARK: - Issue 30, item 19: what the documents say about sizes and formats

extension CLITests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Docs")

    @Test("OutputFormat.md's size of JSON lines holds: bytes per record within 5 %, and the 5-minute figure follows from it")
    func recordSizeAsDocumented() throws {
        let page = try String(contentsOf: Self.docs.appendingPathComponent("OutputFormat.md"), encoding: .utf8)
        let stated = try #require(page.firstMatch(of: /about (\d+) bytes a record/).flatMap { Double($0.output.1) })
        let fiveMinutes = try #require(page.firstMatch(of: /A 5-minute file gives about ([0-9 ]+) records, about (\d+) MB/))
        let directory = TemporaryDirectory()
        let wav = directory.path("speech.wav")
        #expect(try CLI.run(["synth", wav, "--source", "speech@-40", "--duration", "20", "--snr", "20", "-q"]).status == 0)
        let result = try CLI.run(["analyze", wav, "--format", "jsonl", "-q"])
        let records = result.stdout.split(separator: "\n").count
        let perRecord = Double(result.stdout.utf8.count) / Double(records)
        #expect(abs(perRecord - stated) / stated <= 0.05, "\(perRecord) bytes a record, the page says \(stated)")
        let count = try #require(Double(fiveMinutes.output.1.replacingOccurrences(of: " ", with: "")))
        let megabytes = try #require(Double(fiveMinutes.output.2))
        #expect(abs(count - Double((300 * 48000 - 2048) / 1024 + 1)) <= 100)
        #expect(abs(count * perRecord / 1e6 - megabytes) <= 0.6, "\(count * perRecord / 1e6) MB")
    }

    /// Copies a sound file into another container and encoding with libsndfile.
    static func convert(_ input: String, to output: String, format: Int32) throws {
        var info = SF_INFO()
        let reader = try #require(sf_open(input, Int32(SFM_READ), &info))
        defer { sf_close(reader) }
        var target = SF_INFO()
        (target.samplerate, target.channels, target.format) = (info.samplerate, info.channels, format)
        let writer = try #require(sf_open(output, Int32(SFM_WRITE), &target), "\(String(cString: sf_strerror(nil)))")
        var buffer = [Float](repeating: 0, count: 4096 * Int(info.channels))
        while case let n = sf_readf_float(reader, &buffer, 4096), n > 0 { _ = sf_writef_float(writer, buffer, n) }
        sf_close(writer)
    }

    @Test("MP3 reads by name and from a pipe, as CLI.md says (libsndfile ≥ 1.1)")
    func mp3() throws {
        let page = try String(contentsOf: Self.docs.appendingPathComponent("CLI.md"), encoding: .utf8)
        #expect(page.contains("MP3 (MPEG-1/2 Layer III, through libmpg123)"))
        let directory = TemporaryDirectory()
        let wav = directory.path("talk.wav"), mp3 = directory.path("talk.mp3")
        #expect(try CLI.run(["synth", wav, "--source", "speech@-30", "--duration", "3", "--snr", "20", "-q"]).status == 0)
        try Self.convert(wav, to: mp3, format: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III))
        for (arguments, stdin) in [([mp3], nil), (["-"], try Data(contentsOf: URL(fileURLWithPath: mp3)))] {
            let result = try CLI.run(["analyze"] + arguments + ["--format", "csv", "--active-only", "-q"], stdin: stdin)
            #expect(result.status == 0, "\(result.stderr)")
            let azimuths = result.stdout.split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[1]) }
            #expect(azimuths.count > 50)
            #expect(abs(median(azimuths) + 30) < 1, "\(arguments)")
        }
    }

    @Test("raw PCM: integer samples given as f32le are refused; CLI.md says float samples given as integers are not caught")
    func rawFormatMistakesAsDocumented() throws {
        let page = try String(contentsOf: Self.docs.appendingPathComponent("CLI.md"), encoding: .utf8)
        #expect(page.contains("Float samples read as\n  an integer encoding cannot be refused"))
        #expect(page.contains("One integer width read as another is not caught."))
        #expect(!page.contains("With integer data read as another\n  integer width, nothing is ever non-finite or too loud. That mistake is not caught."))
        let directory = TemporaryDirectory()
        for encoding in ["s16le", "s32le"] {
            let raw = directory.path("\(encoding).raw")
            #expect(try CLI.run(["synth", raw, "--source", "speech@30", "--duration", "1", "--sample-format", encoding, "-q"]).status == 0)
            let result = try CLI.run(["analyze", raw, "--raw-format", "f32le", "-q"])
            #expect(result.status == 65)
            #expect(result.stderr.contains("does not look like f32le samples"), "\(result.stderr)")
        }
    }
}
