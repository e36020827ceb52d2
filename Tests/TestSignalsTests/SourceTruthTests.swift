import Testing
import TestSignals

/// The per-source truth of a scene of several sources.
struct SourceTruthTests {
    @Test("per-source truth: a row per source every 10 ms, ids in listed order, azimuth along the path, active in its window")
    func rows() {
        let scene = Scene(
            sampleRate: 8000, duration: 3,
            sources: [
                Source(.whiteNoise, path: .sweep(from: -60, to: 60, between: 0, and: 2), start: 0, end: 2),
                Source(.pinkNoise, azimuth: 40, start: 1, end: 3),
            ])
        let lines = scene.sourceTruthCSV().split(separator: "\n")
        #expect(lines.first == "time,id,azimuth,active")
        #expect(lines.count == 1 + 300 * 2)
        #expect(lines[1] == "0,1,-60,1" && lines[2] == "0,2,40,0")
        // 0.5 s: source 1 a quarter along its sweep (−30°), source 2 not started.
        #expect(lines.contains("0.5,1,-30,1") && lines.contains("0.5,2,40,0"))
        #expect(lines.contains("1.5,1,30,1") && lines.contains("1.5,2,40,1"))
        // 2.5 s: source 1 has ended (at the end of its path), source 2 plays.
        #expect(lines.contains("2.5,1,60,0") && lines.contains("2.5,2,40,1"))
        var pieces = 0, joined = ""
        scene.sourceTruthCSV { pieces += 1; joined += $0 }
        #expect(joined == scene.sourceTruthCSV() && pieces >= 1)
    }
}
