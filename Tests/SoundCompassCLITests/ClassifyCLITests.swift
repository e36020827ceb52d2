import Foundation
import Testing
import TestSupport

/// `--classify` end to end: the record and source label fields, an alert with its bearing in
/// JSON and text, the trace plot's labels, and the one-line errors (Docs/Classification.md).
/// Where scripts/fetch-model puts the model (as the classifier looks for it).
let classifierModelDirectory: String = {
    let env = ProcessInfo.processInfo.environment
    if let dir = env["SOUNDCOMPASS_MODEL_DIR"], !dir.isEmpty { return dir }
    if let cache = env["XDG_CACHE_HOME"], !cache.isEmpty { return cache + "/soundcompass" }
    return (env["HOME"] ?? ".") + "/.cache/soundcompass"
}()

let classifierModelFetched = FileManager.default.fileExists(atPath: classifierModelDirectory + "/yamnet.weights")

@Suite(
    "analyze --classify",
    .serialized,
    .enabled(if: availableOrOnCI(classifierModelFetched), "the YAMNet model is not fetched (run scripts/fetch-model); runs on CI"))
struct ClassifyCLITests {

    /// A 4 s scene: 3 kHz-ish tone beeps are not in synth, so pink noise at −40° and a 3 kHz
    /// tone at +30°.
    static func scene(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("mix.wav")
        let r = try CLI.run(["synth", path, "--source", "pink@-40", "--source", "tone:3000@30", "--duration", "4", "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    @Test("JSON records carry label fields on the record and each source, and alert")
    func jsonFields() throws {
        let directory = TemporaryDirectory()
        let path = try Self.scene(directory)
        let r = try CLI.run(["analyze", path, "--classify", "--alert", "Sine wave,alarm", "--format", "jsonl", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let records = r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count > 100)
        let late = records.filter { ($0["time"] as? Double ?? 0) > 2 }
        #expect(!late.isEmpty && late.allSatisfy { $0["label"] is String && $0["label_score"] is Double && $0.keys.contains("alert") })
        let sources = late.flatMap { $0["sources"] as? [[String: Any]] ?? [] }.filter { $0["active"] as? Bool == true }
        #expect(sources.contains { $0["label"] is String && ($0["next_labels"] as? [String])?.count == 2 })
        // The tone reads as a sine wave or an alarm: an alert, with the bearing of the heard
        // source it came from (the tracker may follow only the noise, which then takes every
        // bin, tone included: Docs/Classification.md, "Where it fails").
        let alerting = late.filter { $0["alert"] is [String: Any] }
        #expect(!alerting.isEmpty, "no alert in \(late.count) records")
        for record in alerting.prefix(20) {
            let alert = record["alert"] as! [String: Any]
            let source = (record["sources"] as? [[String: Any]] ?? []).first { ($0["id"] as? Int) == (alert["source"] as? Int) }
            #expect((source?["azimuth"] as? Double) == (alert["azimuth"] as? Double), "\(alert)")
        }
        // Without --classify the same file has no label fields.
        let plain = try CLI.run(["analyze", path, "--format", "jsonl", "-q"])
        #expect(!plain.stdout.contains("\"label\""))
    }

    @Test("an alert takes the text line; the trace plot writes labels along the tracks")
    func textAndPlot() throws {
        let directory = TemporaryDirectory()
        let path = try Self.scene(directory)
        let text = try CLI.run(["analyze", path, "--alert", "Sine wave,alarm", "--format", "text", "-q"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("!! "), "no alert line")
        let plot = directory.path("mix.svg")
        let trace = try CLI.run(["trace", path, "--classify", "--plot", plot, "-q"])
        #expect(trace.status == 0, "\(trace.stderr)")
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.contains("class=\"source-sound\""))
    }

    @Test("errors: a missing model (66) and an unknown label (64), each one line")
    func errors() throws {
        let directory = TemporaryDirectory()
        let path = try Self.scene(directory)
        let missing = try CLI.run(["analyze", path, "--classify", "--model-dir", directory.path("none"), "-q"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("scripts/fetch-model") && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        let unknown = try CLI.run(["analyze", path, "--labels", "speech,sirens", "-q"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown label \"sirens\""), "\(unknown.stderr)")
    }

    /// #47 item 1: `--labels ' '` exited 132 (SIGILL, an index out of range) after the first
    /// classified patch, with records already written; the same in `live` and `trace`.
    @Test("#47 item 1: a --labels or --alert list that names nothing is a one-line usage error (64), in analyze, live and trace")
    func emptyLabelLists() throws {
        let directory = TemporaryDirectory()
        let path = try Self.scene(directory)
        for command in [["analyze", path], ["live", "--input", path], ["trace", path, "--plot", directory.path("t.svg")]] {
            for (option, text) in [("--labels", " "), ("--labels", ","), ("--labels", "\"\""), ("--alert", " , ")] {
                let r = try CLI.run(command + ["--classify", option, text, "-q"])
                #expect(r.status == 64, "\(command[0]) \(option) '\(text)': \(r.status) \(r.stderr)")
                #expect(r.stdout.isEmpty, "\(command[0]) \(option) '\(text)': records written")
                #expect(r.stderrLines.count == 1 && r.stderr.contains("\(option) names no class"), "\(r.stderr)")
            }
        }
    }
}
