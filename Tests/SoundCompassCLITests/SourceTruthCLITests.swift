import Foundation
import Testing
import TestSupport

/// synth's per-source truth and trace's scoring of each tracked source against it.
struct SourceTruthCLITests {
    /// The figures of the "source N: found within 10° in P % of its F frames, median error E°" lines.
    static func figures(_ stderr: String) -> [(found: Double, frames: Int, median: Double)] {
        stderr.split(separator: "\n").compactMap { line -> (Double, Int, Double)? in
            guard line.hasPrefix("  source "), let inRange = line.range(of: " in "), let pct = line.range(of: " % of its "),
                  let framesEnd = line.range(of: " frames, median error "), let found = Double(line[inRange.upperBound..<pct.lowerBound]),
                  let frames = Int(line[pct.upperBound..<framesEnd.lowerBound]),
                  let median = Double(line[framesEnd.upperBound...].dropLast())
            else { return nil }
            return (found, frames, median)
        }
    }

    @Test("two talkers at −40° and +30° (20 dB SNR): synth writes the per-source truth, trace finds each ≥ 85 % within 10°")
    func twoTalkers() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("two.wav")
        let synth = try CLI.run(["synth", wav, "--source", "speech@-40", "--source", "speech@30", "--duration", "8", "--snr", "20"])
        #expect(synth.status == 0, "\(synth.stderr)")
        let sourcesPath = directory.path("two.truth.sources.csv")
        #expect(synth.stderr.contains("and \(directory.path("two.truth.csv")) and \(sourcesPath)"), "\(synth.stderr)")
        let rows = try String(contentsOfFile: sourcesPath, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 1 + 800 * 2 && rows[0] == "time,id,azimuth,active")
        #expect(rows.contains("1.5,1,-40,1") && rows.contains("1.5,2,30,1"))
        // The per-source truth is picked up next to the truth.
        let trace = try CLI.run(["trace", wav, "--truth", directory.path("two.truth.csv"), "--plot", directory.path("two.svg")])
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.stderr.contains("two.wav: sources against \(sourcesPath)"), "\(trace.stderr)")
        let figures = Self.figures(trace.stderr)
        #expect(figures.count == 2, "\(trace.stderr)")
        for f in figures {
            #expect(f.found >= 85 && f.frames == 374 && f.median <= 3, "\(trace.stderr)")
        }
        let falseLine = try #require(trace.stderrLines.first { $0.contains("false sources") })
        let share = try #require(Double(falseLine.split(separator: " ").first { Double($0) != nil } ?? ""))
        #expect(share <= 10, "\(falseLine)")
        // Given directly, the same figures.
        let direct = try CLI.run(["trace", wav, "--truth", sourcesPath, "--plot", directory.path("two2.svg")])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(Self.figures(direct.stderr).map(\.found) == figures.map(\.found))
    }

    @Test("one source: no per-source truth; a bad per-source truth is one error line, exit 65")
    func oneSourceAndBadFile() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("one.wav")
        let synth = try CLI.run(["synth", wav, "--duration", "1", "-q"])
        #expect(synth.status == 0, "\(synth.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("one.truth.sources.csv")))
        let bad = directory.path("bad.csv")
        try "time,id,azimuth,active\n0,1,30,maybe\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let trace = try CLI.run(["trace", wav, "--truth", bad])
        #expect(trace.status == 65)
        #expect(trace.stderrLines == ["soundcompass: error: \(bad): line 2: active \"maybe\" is not 0 or 1"])
    }
}
