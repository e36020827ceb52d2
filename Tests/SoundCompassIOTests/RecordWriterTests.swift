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

    static func written(_ format: RecordFormat, _ records: [AnalysisRecord], bands: [String] = []) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("records-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = RecordWriter(format: format, sink: try LineSink(path: path), bandNames: bands)
        for r in records { try writer.write(r) }
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
    }

    @Test("CSV has a header and one row per record, bands flattened")
    func csv() throws {
        let text = try Self.written(.csv, [Self.sample], bands: ["speech \"mid\""])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("time,azimuth,raw_azimuth,lateral,confidence,ild_db,itd_us,level_dbfs,active,hemisphere"))
        #expect(lines[0].split(separator: ",").count == lines[1].split(separator: ",", omittingEmptySubsequences: false).count)
        #expect(lines[1].hasPrefix("0.085333,-45.68,0.00,-0.7151,0.930,0.00,312.4,-23.5,true,unknown"))
    }

    @Test("text is one readable line per record")
    func text() throws {
        let text = try Self.written(.text, [Self.sample])
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains("-45.7°") && text.contains("left") && text.contains("dBFS"))
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
