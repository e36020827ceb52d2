import Foundation
import Testing
import TestSupport

/// The README's `synth` example: its truth must say what a correct engine reports.
@Suite("README synth example and its truth")
struct ReadmeTruthTests {
    /// The arguments of the README's `soundcompass synth test.wav …` line, with `test.wav` put in `directory`.
    static func readmeSynthArguments(in directory: TemporaryDirectory) throws -> [String] {
        let readme = try String(contentsOf: ExampleTests.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let line = try #require(readme.split(separator: "\n").first { $0.hasPrefix("soundcompass synth test.wav ") }, "README has a synth test.wav line")
        let words = line.split(separator: "#")[0].split(separator: " ").map(String.init).dropFirst()
        return words.map { $0 == "test.wav" ? directory.path("test.wav") : $0 }
    }

    /// `time,azimuth` rows of a truth file.
    static func truthRows(_ path: String) throws -> [(time: Double, azimuth: Double)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { row in
            let cells = row.split(separator: ",")
            return (try #require(Double(cells[0])), try #require(Double(cells[1])))
        }
    }

    /// The truth at `time`, interpolated between rows 10 ms apart (`nil` in a gap: no source plays).
    static func truth(_ rows: [(time: Double, azimuth: Double)], at time: Double) -> Double? {
        guard let next = rows.firstIndex(where: { $0.time >= time }), next > 0 else { return nil }
        let a = rows[next - 1], b = rows[next]
        guard b.time - a.time < 0.011 else { return nil }
        return a.azimuth + (b.azimuth - a.azimuth) * (time - a.time) / (b.time - a.time)
    }

    @Test("the README example: synth without a warning, and the engine's bearings match its truth (median |error| < 2°, 90th percentile < 6°)")
    func readmeExampleTruthHolds() throws {
        let directory = TemporaryDirectory()
        let arguments = try Self.readmeSynthArguments(in: directory)
        let made = try CLI.run(arguments)
        #expect(made.status == 0)
        #expect(!made.stderr.contains("warning"), "\(made.stderr)")
        let analyzed = try CLI.run(["analyze", directory.path("test.wav"), "--format", "csv", "-q"])
        #expect(analyzed.status == 0)
        let rows = try Self.truthRows(directory.path("test.truth.csv"))
        let lines = analyzed.stdout.split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        let time = try #require(header.firstIndex(of: "time")), azimuth = try #require(header.firstIndex(of: "azimuth"))
        let active = try #require(header.firstIndex(of: "active"))
        var errors: [Double] = []
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells[active] == "true", let t = Double(cells[time]), let a = Double(cells[azimuth]),
                  let truth = Self.truth(rows, at: t) else { continue }
            errors.append(abs(a - truth))
        }
        errors.sort()
        let p90 = errors.isEmpty ? .infinity : errors[Int(0.9 * Double(errors.count - 1))]
        print("README example: \(errors.count) active frames with a truth, median |error| \(median(errors))°, p90 \(p90)°")
        // Measured: 223 frames, median 0.21°, p90 1.3° (the old, overlapping example: median 17.7°, p90 86°).
        #expect(errors.count > 150)
        #expect(median(errors) < 2)
        #expect(p90 < 6)
    }

    @Test("sources that play together: synth warns that the truth follows the first listed there")
    func overlapWarns() throws {
        let directory = TemporaryDirectory()
        let result = try CLI.run([
            "synth", directory.path("o.wav"), "--source", "speech@-40", "--source", "pink@-60:60@2-6", "--duration", "8",
        ])
        #expect(result.status == 0)
        let warnings = result.stderrLines.filter { $0.hasPrefix("soundcompass: warning: ") }
        #expect(warnings == [
            "soundcompass: warning: sources 1 and 2 play together from 2 s to 6 s: the truth follows source 1 there, "
                + "while the engine follows whichever dominates each frame (usually the broadband one); "
                + "give them separate times (KIND@AZIMUTH@START-END) for a truth that holds throughout",
        ])
        // No truth written, nothing to warn about.
        let untruthful = try CLI.run([
            "synth", directory.path("p.wav"), "--source", "speech@-40", "--source", "pink@30@2-6", "--duration", "8", "--truth", "none",
        ])
        #expect(untruthful.status == 0 && !untruthful.stderr.contains("warning"))
    }

    /// Issue 30, item 18: in the README's test.wav source 1 stayed `active` after the speech,
    /// the sweep's source lagged it by about 6°, and ids swapped where the sweep crossed −40°.
    /// OutputFormat.md explains each with figures; they must stay what the engine does.
    @Test("OutputFormat.md's account of test.wav's sources holds: hangover, the sweep's lag with both windows, no ghost with 0.1 s")
    func readmeSourcesAsExplained() throws {
        let page = try String(contentsOf: ExampleTests.repository.appendingPathComponent("Docs/OutputFormat.md"), encoding: .utf8)
        let hangover = try #require(page.firstMatch(of: /stays `active` until ([0-9.]+) s/).flatMap { Double($0.output.1) })
        let lags = page.matches(of: /\(median\s+([0-9.]+)°,\s+at most\s+([0-9.]+)°/).compactMap { Double($0.output.1) }
        try #require(lags.count == 2, "the page gives the lag for the default window and for 0.1 s")
        let directory = TemporaryDirectory()
        #expect(try CLI.run(try Self.readmeSynthArguments(in: directory) + ["-q"]).status == 0)
        func sweep(_ t: Double) -> Double { -60 + (t - 4) * 120 / 3.5 }
        for (window, statedLag) in [(nil, lags[0]), ("0.1", lags[1])] {
            let result = try CLI.run(
                ["analyze", directory.path("test.wav"), "--format", "jsonl", "-q"] + (window.map { ["--source-window", $0] } ?? []))
            #expect(result.status == 0)
            var lastSpeech = 0.0, lag: [Double] = [], ghosts = 0
            for record in try CLITests.parseJSONLines(result.stdout) {
                let time = record["time"] as! Double
                let sources = (record["sources"] as! [[String: Any]]).filter { $0["active"] as! Bool }
                let azimuths = sources.map { $0["azimuth"] as! Double }
                if time < 4.1, azimuths.contains(where: { abs($0 + 40) < 5 }) { lastSpeech = time }
                if time > 4.5, time < 7.4, let nearest = azimuths.min(by: { abs($0 - sweep(time)) < abs($1 - sweep(time)) }) {
                    lag.append(sweep(time) - nearest)
                    ghosts += azimuths.filter { abs($0 - sweep(time)) > 10 }.count
                }
            }
            #expect(abs(median(lag) - statedLag) <= 0.5, "window \(window ?? "0.3"): lag \(median(lag))°, the page says \(statedLag)°")
            if window == nil {
                #expect(abs(lastSpeech - hangover) <= 0.05, "source 1 last active at \(lastSpeech) s, the page says \(hangover) s")
                #expect(ghosts > 0, "the page describes the ghost at −39.4°")
            } else {
                #expect(ghosts == 0)
            }
        }
    }
}
