import Foundation
import SoundCompass
import TestSignals
import TestSupport
import Testing

/// `calibrate`, `--profile`, `trace` and the summaries, as a user runs them.
@Suite("Calibration and traces on the command line")
struct CalibrateCLITests {
    /// The rig of the acceptance: a 0.12 m pair whose right channel lags 40 µs and is 3 dB
    /// louder, analysed with the default 0.15 m.
    static let rig = ["--spacing", "0.12", "--channel-delay", "40", "--channel-gain", "3", "--snr", "20"]

    /// Median |azimuth − truth| over the active records of a JSON-lines analysis.
    static func medianError(_ jsonl: String, truth: TruthTrack) throws -> (median: Double, count: Int) {
        var errors: [Double] = []
        for record in try CLITests.parseJSONLines(jsonl) where record["active"] as? Bool == true {
            let time = record["time"] as! Double, azimuth = record["azimuth"] as! Double
            guard let value = truth.azimuth(at: time) else { continue }
            errors.append(abs(TruthTrack.error(azimuth: azimuth, truth: value, hemisphereKnown: false)))
        }
        return (median(errors), errors.count)
    }

    @Test("calibrate recovers the rig from a swept recording; --profile fixes a second recording")
    func calibrateAndApply() throws {
        let dir = TemporaryDirectory()
        let sweep = dir.path("sweep.wav"), profile = dir.path("rig.json")
        var r = try CLI.run(["synth", sweep, "--source", "pink@-70:70", "--duration", "8"] + Self.rig)
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["calibrate", sweep, "--truth", dir.path("sweep.truth.csv"), "-o", profile])
        #expect(r.status == 0, "\(r.stderr)")
        print(r.stderr)
        #expect(r.stderr.contains("nominal") && r.stderr.contains("fitted") && r.stderr.contains("median error"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as! [String: Any]
        let spacing = try #require(json["spacing_m"] as? Double)
        let delay = try #require(json["delay_offset_us"] as? Double)
        let gain = try #require(json["gain_offset_db"] as? Double)
        print("profile: spacing \(spacing) m, delay \(delay) µs, gain \(gain) dB")
        #expect(json["array"] as? String == "spaced")
        #expect(json["sample_rate"] as? Double == 48000)
        #expect(json["ild_gain"] is NSNull, "the spaced model has no ILD gain")
        #expect(abs(spacing - 0.12) / 0.12 < 0.02)
        #expect(abs(delay - 40) < 5)
        #expect(abs(gain - 3) < 0.3)

        // A second recording of the rig: speech still, then moving, then noise.
        let second = dir.path("second.wav")
        r = try CLI.run(["synth", second, "--source", "speech@-35@0-3", "--source", "speech@50:-20@3.2-6.5",
                         "--source", "white@65@6.7-8", "--duration", "8", "--seed", "9"] + Self.rig)
        #expect(r.status == 0, "\(r.stderr)")
        let truth = try TruthTrack(path: dir.path("second.truth.csv"))
        let without = try CLI.run(["analyze", second, "--format", "jsonl", "-q"])
        #expect(without.status == 0 && without.stderr.isEmpty, "\(without.stderr)")
        let with = try CLI.run(["analyze", second, "--format", "jsonl", "-q", "--profile", profile])
        #expect(with.status == 0 && with.stderr.isEmpty, "\(with.stderr)")
        let recordCount: Int = (8 * 48000 - 2048) / 1024 + 1
        #expect(try CLITests.parseJSONLines(with.stdout).count == recordCount)
        let before = try Self.medianError(without.stdout, truth: truth), after = try Self.medianError(with.stdout, truth: truth)
        print("second recording: median error \(before.median)° without the profile, \(after.median)° with it (\(after.count) frames)")
        #expect(after.count > recordCount / 2, "most of the recording is active and has a truth")
        #expect(after.median < 1)
        #expect(before.median > 2)
        // The records report the cues with the hardware offsets removed.
        let records = try CLITests.parseJSONLines(with.stdout).filter { ($0["confidence"] as! Double) > 0.5 }
        let ild = median(records.map { $0["ild_db"] as! Double })
        #expect(abs(ild) < 0.3, "ILD after removing the gain offset: \(ild) dB")
    }

    @Test("calibrate refuses recordings that cannot support a fit, with exit 65 and one line")
    func refusals() throws {
        let dir = TemporaryDirectory()
        func synth(_ name: String, _ args: [String]) throws -> String {
            let path = dir.path(name)
            let r = try CLI.run(["synth", path] + args)
            #expect(r.status == 0, "\(r.stderr)")
            return path
        }
        let narrow = try synth("narrow.wav", ["--source", "pink@10:16", "--duration", "4"] + Self.rig)
        let short = try synth("short.wav", ["--source", "white@20@0-0.3", "--duration", "3"])
        let silent = try synth("silent.wav", ["--source", "white@20", "--level=-119", "--duration", "3"])
        // `parser`: found by swift-argument-parser (the line points to the help), else by the
        // tool; either way one `soundcompass: error:` line.
        let cases: [(args: [String], status: Int32, message: String, parser: Bool)] = [
            (["calibrate", narrow, "--truth", dir.path("narrow.truth.csv")], 65, "fitting the spacing needs a span of at least", false),
            (["calibrate", narrow, "--truth", "12", "--fit", "spacing"], 65, "the truth covers only +12…+12°", false),
            (["calibrate", short, "--truth", dir.path("short.truth.csv")], 65, "confident frames where the truth knows the source", false),
            (["calibrate", silent, "--truth", "20"], 65, "no sound above the noise floor", false),
            (["calibrate", narrow, "--truth", dir.path("missing.csv")], 66, "truth file not found", false),
            (["calibrate", narrow, "--truth", "12", "--fit", "ild-gain"], 64, "the spaced model has no such parameter", false),
            (["calibrate", narrow, "--truth", "12", "--fit", "width"], 64, "is not one of spacing, delay, gain, ild-gain", true),
        ]
        for c in cases {
            let r = try CLI.run(c.args)
            #expect(r.status == c.status, "\(c.args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
            if c.parser {
                #expect(r.stderrLines.count == 1, "\(r.stderr)")
                let first = String(r.stderrLines.first ?? "")
                #expect(first.hasPrefix("soundcompass: error: ") && first.contains(c.message), "\(c.args): \(r.stderr)")
                #expect(first.hasSuffix("(see 'soundcompass calibrate --help')"), "\(r.stderr)")
            } else {
                // One error line, the last; before it at most notes of the tool's own (a still
                // source's "fixes the offsets only"), never a usage text or a trace.
                let errors = r.stderrLines.filter { $0.hasPrefix("soundcompass: error: ") }
                #expect(errors.count == 1, "one error line: \(r.stderr)")
                let last = String(r.stderrLines.last ?? "")
                #expect(last.hasPrefix("soundcompass: error: ") && last.contains(c.message), "\(c.args): \(r.stderr)")
                #expect(r.stderrLines.allSatisfy { $0.hasPrefix("soundcompass: ") }, "\(r.stderr)")
            }
        }
        // A still source fits the offsets only, and says so.
        let still = try synth("still.wav", ["--source", "pink@0", "--duration", "3"] + Self.rig)
        let r = try CLI.run(["calibrate", still, "--truth", "0"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("a still source fixes the offsets only"))
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(json["fitted"] as? [String] == ["delay", "gain"])
        #expect(abs((json["delay_offset_us"] as! Double) - 40) < 3, "at 0° the spacing does not matter")
    }

    @Test("bad profiles: one line naming the file, and the documented exit code")
    func badProfiles() throws {
        let dir = TemporaryDirectory()
        let wav = dir.path("a.wav")
        let made = try CLI.run(["synth", wav, "--duration", "1", "--truth", "none"])
        #expect(made.status == 0, "\(made.stderr)")
        let cases: [(content: String?, status: Int32, message: String)] = [
            (nil, 66, "profile not found"),
            ("{", 65, "not valid JSON"),
            ("{\"array\": \"spaced\"}", 65, "missing field \"spacing_m\""),
            ("{\"array\": \"triangle\", \"spacing_m\": 0.1, \"delay_offset_us\": 0, \"gain_offset_db\": 0, \"sample_rate\": 48000}", 65, "array \"triangle\""),
            ("{\"array\": \"spaced\", \"spacing_m\": -1, \"delay_offset_us\": 0, \"gain_offset_db\": 0, \"sample_rate\": 48000}", 65, "spacing_m -1.0"),
            ("{\"array\": \"spaced\", \"spacing_m\": \"wide\", \"delay_offset_us\": 0, \"gain_offset_db\": 0, \"sample_rate\": 48000}", 65, "field \"spacing_m\" should be a number"),
        ]
        for (i, c) in cases.enumerated() {
            let path = dir.path("p\(i).json")
            if let content = c.content { try content.write(toFile: path, atomically: true, encoding: .utf8) }
            let r = try CLI.run(["analyze", wav, "--profile", path, "-q"])
            #expect(r.status == c.status, "\(c.content ?? "missing"): \(r.stderr)")
            #expect(r.stdout.isEmpty, "no records from a run that failed")
            #expect(r.stderrLines.count == 1, "\(r.stderr)")
            let line = String(r.stderrLines.first ?? "")
            #expect(line.hasPrefix("soundcompass: error: ") && line.contains(path) && line.contains(c.message), "\(line)")
        }
        let conflict = try CLI.run(["analyze", wav, "--profile", dir.path("p0.json"), "--spacing", "0.2"])
        #expect(conflict.status == 64 && conflict.stderr.contains("--spacing conflicts with --profile"), "\(conflict.stderr)")
        #expect(conflict.stdout.isEmpty)
        #expect(conflict.stderrLines.count == 1 && conflict.stderrLines.first?.hasPrefix("soundcompass: error: ") == true, "\(conflict.stderr)")
    }

    @Test("trace writes a plot and the summary; analyze --plot too, with its records")
    func trace() throws {
        let dir = TemporaryDirectory()
        let wav = dir.path("scene.wav")
        let made = try CLI.run(["synth", wav, "--source", "white@-40@0.3-2", "--source", "pink@-60:60@3-6", "--duration", "7", "--snr", "25"])
        #expect(made.status == 0, "\(made.stderr)")
        let json = dir.path("summary.json")
        let r = try CLI.run(["trace", wav, "--truth", dir.path("scene.truth.csv"), "--summary-json", json])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty, "trace writes no records")
        print(r.stderr)
        let svg = try Data(contentsOf: URL(fileURLWithPath: dir.path("scene.trace.svg")))
        let doc = try #require(SVGElements.parse(Array(svg)), "the default plot path is NAME.trace.svg")
        #expect(doc.element(id: "truth") != nil && doc.element(id: "error") != nil)
        #expect(r.stderr.contains("2 active segments"))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
        let segments = try #require(summary["segments"] as? [[String: Any]])
        try #require(segments.count == 2)
        #expect(abs((segments[0]["median_azimuth"] as! Double) + 40) < 2)
        #expect(abs((segments[0]["truth_azimuth"] as! Double) + 40) < 0.01)
        #expect((segments[1]["spread"] as! Double) > 40, "a moving source spreads")
        #expect((segments[1]["median_error"] as! Double) < 2)

        let plot = dir.path("analyze.svg")
        let a = try CLI.run(["analyze", wav, "--format", "csv", "--plot", plot, "--summary", "-q"])
        #expect(a.status == 0, "\(a.stderr)")
        let rows: Int = (7 * 48000 - 2048) / 1024 + 1
        #expect(a.stdout.split(separator: "\n").count == rows + 1, "records still go to stdout: a header and every frame")
        #expect(a.stdout.hasPrefix("time,azimuth,"))
        #expect(SVGElements.parse(Array(try Data(contentsOf: URL(fileURLWithPath: plot)))) != nil)
        let size = try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int
        let clash = try CLI.run(["trace", wav, "--plot", wav])
        #expect(clash.status == 64, "\(clash.stderr)")
        #expect(clash.stdout.isEmpty && clash.stderrLines.count == 1, "\(clash.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int == size, "the input is not overwritten")
    }
}
