import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO

/// Text records: the bearing view and the bands view fit the width they are given.
struct TextViewTests {
    static func columns(_ line: Substring) -> Int { line.unicodeScalars.count }

    /// Records that push every column: hours of stream time, a bearing behind, huge cues, yaw,
    /// long band names, a quiet frame.
    static let extremes: [AnalysisRecord] = {
        let bands = [
            BandRecord(name: "a-very-long-band-name", lowHz: 100, highHz: 500, azimuth: -179.9, confidence: 0.9, levelDBFS: -20, loudest: true),
            BandRecord(name: "speech", lowHz: 500, highHz: 3000, azimuth: 12, confidence: 0.1, levelDBFS: -30),
            BandRecord(name: "high", lowHz: 3000, highHz: 16000, azimuth: 88, confidence: 0.5, levelDBFS: -30),
        ]
        var r = AnalysisRecord(
            time: 123_456.789, azimuth: -179.95, rawAzimuth: -0.05, lateral: -0.001, confidence: 1, ildDecibels: -1234.5,
            itdMicroseconds: -99_999, levelDBFS: -160, active: true, hemisphere: .back, bands: bands, yaw: -179.9,
            worldAzimuth: 179.9)
        var quiet = r
        quiet.active = false
        quiet.confidence = 0
        quiet.yaw = nil
        quiet.worldAzimuth = nil
        r.time = 0.5
        return [r, quiet, RecordWriterTests.sample, AnalysisRecord()]
    }()

    @Test("no text line is wider than its columns, whatever the record", arguments: [20, 40, 56, 60, 79, 80, 100, 120, 200])
    func width(columns: Int) throws {
        for view in TextView.allCases {
            let text = try RecordWriterTests.written(
                .text, Self.extremes, bands: ["a-very-long-band-name", "speech", "high"], orientation: true, columns: columns,
                view: view)
            let lines = text.split(separator: "\n")
            #expect(lines.count == Self.extremes.count)
            for line in lines { #expect(Self.columns(line) <= columns, "\(view) at \(columns): \(line)") }
            if columns >= 80 { #expect(lines.allSatisfy { $0.contains(" s  ") }, "time on every line") }
        }
    }

    @Test("a quiet frame shows a dash and an empty bar, never a bearing")
    func quietDash() throws {
        // The analyzer's quiet frames carry a made-up azimuth (−90° here): it must not show.
        let quiet = AnalysisRecord(time: 0.021, azimuth: -90, rawAzimuth: -90, lateral: -1, levelDBFS: -51)
        let line = try RecordWriterTests.written(.text, [quiet], columns: 120)
        #expect(line == "   0.021 s     -     L ───────────────┼─────────────── R  quiet      conf 0.00"
            + "   -51.0 dBFS  ILD     -     ITD     -\n")
        #expect(!line.contains("90") && !line.contains("°") && !line.contains("●"))
        // Active but with no confidence: a dash for the side too.
        var unsure = quiet
        unsure.active = true
        let unsureLine = try RecordWriterTests.written(.text, [unsure])
        #expect(unsureLine == "   0.021 s     -     L ───────────────┼─────────────── R  -          conf 0.00\n")
    }

    @Test("the bar: ● at a confident bearing, ○ at an unsure one, a bearing behind mirrored and labelled")
    func bar() throws {
        func bar(_ r: AnalysisRecord) throws -> [Character] {
            let line = try RecordWriterTests.written(.text, [r], orientation: true)
            let start = try #require(line.range(of: "L ")), end = try #require(line.range(of: " R"))
            return Array(line[start.upperBound..<end.lowerBound])
        }
        let right = AnalysisRecord(azimuth: 90, lateral: 1, confidence: 0.9, active: true)
        #expect(try bar(right).last == "●" && bar(right).count == 31)
        var unsure = right
        unsure.azimuth = -90
        unsure.confidence = 0.1
        #expect(try bar(unsure).first == "○")
        // 135° (behind right) is drawn where 45° is: cell round(135 / 180 · 30) = 23 of 0…30.
        let behind = AnalysisRecord(azimuth: 135, lateral: 0.7, confidence: 0.9, active: true, hemisphere: .back)
        #expect(try bar(behind).firstIndex(of: "●") == 23)
        let line = try RecordWriterTests.written(.text, [behind], orientation: true)
        #expect(line.contains(" +135.0°  L ") && line.contains(" R  behind "), "\(line)")
    }

    @Test("a wider terminal adds yaw and world bearing with an IMU, then level, ILD, ITD and the loudest band")
    func wideColumns() throws {
        var r = RecordWriterTests.sample
        r.yaw = 10
        r.worldAzimuth = -35.7
        r.bands[0].loudest = true
        let line = try RecordWriterTests.written(.text, [r], orientation: true, columns: 200)
        #expect(line == "   0.085 s   -45.7°  L ───────●───────┼─────────────── R  far left   conf 0.93"
            + "  world  -35.7°  yaw  +10.0°   -23.5 dBFS  ILD   0.0 dB  ITD  +312 µs  loudest speech \"mid\"\n")
        // At 100 columns the world bearing and yaw come first.
        let hundred = try RecordWriterTests.written(.text, [r], orientation: true, columns: 100)
        #expect(hundred == "   0.085 s   -45.7°  L ───────●───────┼─────────────── R  far left   conf 0.93"
            + "  world  -35.7°\n")
    }

    @Test("the bands view: each band's bearing, full names when they fit, initials when not")
    func bandsView() throws {
        let names = ["low", "speech", "alert", "high"]
        var r = AnalysisRecord(time: 3.2, azimuth: 35, lateral: 0.57, confidence: 1, active: true)
        r.bands = names.enumerated().map { i, name in
            BandRecord(name: name, lowHz: 0, highHz: 1, azimuth: [33, 35, -5, 35][i], confidence: i == 2 ? 0.1 : 0.9,
                       levelDBFS: -30, loudest: i == 3)
        }
        let line = try RecordWriterTests.written(.text, [r], bands: names, view: .bands)
        #expect(line == "   3.200 s   +35.0°  low  +33°  speech  +35°  alert    -   high* +35°  conf 1.00\n")
        let narrow = try RecordWriterTests.written(.text, [r], bands: names, columns: 60, view: .bands)
        // 60 columns: initials, and no room for the confidence.
        #expect(narrow == "   3.200 s   +35.0°  l  +33°  s  +35°  a    -   h* +35°\n")
        var quiet = r
        quiet.active = false
        quiet.confidence = 0
        let quietLine = try RecordWriterTests.written(.text, [quiet], bands: names, view: .bands)
        #expect(quietLine == "   3.200 s     -     low    -   speech    -   alert    -   high    -   conf 0.00\n")
    }
}
