import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO

struct RecordWriterTests {
    static let sample = AnalysisRecord(
        frame: 3, time: 0.085333, azimuth: -45.678, lateral: -0.7151, confidence: 0.93, ildDecibels: -0.0049,
        itdMicroseconds: 312.44, levelDBFS: -23.45, active: true, hemisphere: .unknown, itdConfidence: 0.93,
        ildConfidence: 0,
        bands: [BandRecord(name: "speech \"mid\"", lowHz: 500, highHz: 3000, azimuth: -40, confidence: 0.5, levelDBFS: -30)])

    static func written(
        _ format: RecordFormat, _ records: [AnalysisRecord], bands: [String] = [], orientation: Bool = false,
        sources: Bool = false, fields: RecordFields? = nil, columns: Int = 80, view: TextView = .bearing,
        selection: RecordSelection? = nil
    ) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("records-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = RecordWriter(
            format: format, sink: try LineSink(path: path), bandNames: bands, orientation: orientation, sources: sources,
            fields: fields,
            columns: columns, view: view, selection: selection)
        for r in records { try writer.write(r) }
        try writer.finish()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test("JSON lines parse and carry every field")
    func jsonLines() throws {
        let text = try Self.written(.jsonl, [Self.sample, AnalysisRecord()])
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        for key in ["time", "azimuth", "lateral", "confidence", "ild_db", "itd_us", "level_dbfs", "active", "hemisphere", "bands"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect((object["azimuth"] as? Double) == -45.68)
        #expect((object["itd_us"] as? Double) == 312.4)
        #expect((object["active"] as? Bool) == true)
        #expect((object["hemisphere"] as? String) == "unknown")
        let bands = try #require(object["bands"] as? [[String: Any]])
        #expect(bands.first?["name"] as? String == "speech \"mid\"")
        #expect(bands.first?["low_hz"] as? Double == 500)
        // Every field, its rounding and its order, and the quote in the band name escaped.
        #expect(lines[0] == #"{"time":0.085333,"azimuth":-45.68,"raw_azimuth":0.00,"lateral":-0.7151,"confidence":0.930,"#
            + #""ild_db":0.00,"itd_us":312.4,"level_dbfs":-23.5,"active":true,"hemisphere":"unknown","itd_confidence":0.930,"#
            + #""ild_confidence":0.000,"dominant_hz":0.0,"noise_floor_dbfs":-160.0,"bands":[{"name":"speech \"mid\"","#
            + #""low_hz":500.0,"high_hz":3000.0,"azimuth":-40.00,"confidence":0.500,"level_dbfs":-30.0,"loudest":false}]}"#)
        #expect(lines[1] == #"{"time":0.000000,"azimuth":0.00,"raw_azimuth":0.00,"lateral":0.0000,"confidence":0.000,"#
            + #""ild_db":0.00,"itd_us":0.0,"level_dbfs":-160.0,"active":false,"hemisphere":"unknown","itd_confidence":0.000,"#
            + #""ild_confidence":0.000,"dominant_hz":0.0,"noise_floor_dbfs":-160.0,"bands":[]}"#)
    }

    static let twoSources: [SourceRecord] = [
        SourceRecord(id: 1, azimuth: -40.123, confidence: 0.8349, levelDBFS: -31.24, active: true),
        SourceRecord(id: 12, azimuth: 30.25, confidence: 0.5, levelDBFS: -40, active: false, worldAzimuth: 120.5),
    ]

    @Test("sources: a JSON array after the bands, one CSV column; only when the analysis tracks them")
    func sources() throws {
        var record = AnalysisRecord(frame: 1, time: 0.5, active: true)
        record.sources = Self.twoSources
        let json = try Self.written(.jsonl, [record, AnalysisRecord()], sources: true).split(separator: "\n").map(String.init)
        #expect(json[0].hasSuffix(#""bands":[],"sources":[{"id":1,"azimuth":-40.12,"confidence":0.835,"level_dbfs":-31.2,"#
            + #""active":true},{"id":12,"azimuth":30.25,"confidence":0.500,"level_dbfs":-40.0,"active":false}]}"#), "\(json[0])")
        #expect(json[1].hasSuffix(#""bands":[],"sources":[]}"#))
        // With an IMU, each source has its world bearing (null until resolved) and its own hemisphere.
        var resolved = record
        resolved.sources[1].hemisphere = .back
        let world = try Self.written(.jsonl, [resolved], orientation: true, sources: true)
        #expect(world.contains(#""active":true,"world_azimuth":null,"hemisphere":"unknown"},{"id":12"#), "\(world)")
        #expect(world.contains(#""active":false,"world_azimuth":120.50,"hemisphere":"back"}]"#), "\(world)")
        // Without source tracking the records are as before: no key, no column.
        #expect(!(try Self.written(.jsonl, [record])).contains("sources"))
        let csv = try Self.written(.csv, [record, AnalysisRecord()], bands: ["speech"], sources: true)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(csv[0].hasSuffix(",speech_azimuth,speech_confidence,speech_level_dbfs,loudest_band,sources"))
        #expect(csv[1].hasSuffix(",0,0,-160.0,,1:-40.1:0.83:-31.2:1;12:30.3:0.50:-40.0:0"), "\(csv[1])")
        #expect(csv[2].hasSuffix(",0,0,-160.0,,"), "no sources: an empty cell")
        let only = try Self.written(.csv, [record], fields: RecordFields([.time, .sources])).split(separator: "\n")
        #expect(only == ["time,sources", "0.500000,1:-40.1:0.83:-31.2:1;12:30.3:0.50:-40.0:0"])
    }

    @Test("CSV has a header and one row per record, bands flattened")
    func csv() throws {
        var loud = Self.sample
        loud.bands[0].loudest = true
        let text = try Self.written(.csv, [Self.sample, loud], bands: ["speech", "alert"])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 4 && lines[3].isEmpty, "header, two rows, a final newline")
        #expect(lines[0] == "time,azimuth,raw_azimuth,lateral,confidence,ild_db,itd_us,level_dbfs,active,hemisphere,"
            + "itd_confidence,ild_confidence,dominant_hz,noise_floor_dbfs,"
            + "speech_azimuth,speech_confidence,speech_level_dbfs,alert_azimuth,alert_confidence,alert_level_dbfs,loudest_band")
        // The record's band is named `speech "mid"`, so it fills neither column: both get the
        // "no band" cells; the loudest band is named by the second row only.
        #expect(lines[1] == "0.085333,-45.68,0.00,-0.7151,0.930,0.00,312.4,-23.5,true,unknown,0.930,0.000,0.0,-160.0,"
            + "0,0,-160.0,0,0,-160.0,")
        #expect(lines[2] == "0.085333,-45.68,0.00,-0.7151,0.930,0.00,312.4,-23.5,true,unknown,0.930,0.000,0.0,-160.0,"
            + "0,0,-160.0,0,0,-160.0,speech \"mid\"")
        let named = try Self.written(.csv, [loud], bands: ["speech \"mid\""]).split(separator: "\n").map(String.init)
        #expect(named[1].hasSuffix(",-160.0,-40.00,0.500,-30.0,speech \"mid\""), "\(named[1])")
        for line in lines.dropFirst().dropLast() {
            #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == 21)
        }
    }

    @Test("text is one readable line per record: 80 columns hold time, bearing, bar, side and confidence; 120 add level, ILD and ITD")
    func text() throws {
        let text = try Self.written(.text, [Self.sample])
        // −45.678° on 31 cells over −90…90°: cell round(44.322 / 180 · 30) = 7; ahead is cell 15.
        #expect(text == "   0.085 s   -45.7°  L ───────●───────┼─────────────── R  far left   conf 0.93\n")
        let wide = try Self.written(.text, [Self.sample], columns: 120)
        #expect(wide == "   0.085 s   -45.7°  L ───────●───────┼─────────────── R  far left   conf 0.93"
            + "   -23.5 dBFS  ILD   0.0 dB  ITD  +312 µs\n")
    }

    /// The direction word of a text line: the column between the bar and `conf`.
    static func directionWord(_ line: String) throws -> String {
        let afterBar = try #require(line.split(separator: " R  ", maxSplits: 1).last)
        let field = try #require(afterBar.split(separator: "  conf", maxSplits: 1).first)
        #expect(field.count == 9, "padded to 9 columns: '\(field)'")
        return field.trimmingCharacters(in: .whitespaces)
    }

    @Test("text names the direction with one whole word per side: left is not far left", arguments: [
        (-0.9, Hemisphere.unknown, "far left"), (-0.4, .unknown, "left"), (-0.1, .unknown, "ahead"), (0.1, .front, "ahead"),
        (0.4, .unknown, "right"), (0.9, .unknown, "far right"), (0.4, .back, "behind"),
    ])
    func directionWords(lateral: Double, hemisphere: Hemisphere, word: String) throws {
        let record = AnalysisRecord(
            azimuth: asin(lateral) * 180 / .pi, lateral: lateral, confidence: 0.8, active: true, hemisphere: hemisphere)
        let line = try Self.written(.text, [record])
        #expect(try Self.directionWord(line) == word, "\(line)")
        var unsure = record
        unsure.confidence = 0
        #expect(try Self.directionWord(try Self.written(.text, [unsure])) == "-", "no confidence, no word")
    }

    @Test("fixed-point formatting rounds and never prints -0")
    func numbers() throws {
        var r = AnalysisRecord()
        r.azimuth = -0.001
        r.time = 12.3456789
        r.levelDBFS = -160
        let text = try Self.written(.jsonl, [r])
        #expect(text.contains("\"azimuth\":0.00,"))
        #expect(text.contains("\"time\":12.345679,"))
        #expect(text.contains("\"level_dbfs\":-160.0,"))
    }
}
