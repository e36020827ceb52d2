import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO

/// `RecordSelection` (which records are written) and `RecordFields` (which fields).
struct RecordSelectionTests {
    /// Hop of the default analysis at 48 kHz, seconds.
    static let hop = 1024.0 / 48000

    /// 300 records a hop apart (6.4 s): every third one quiet, confidence cycling 0…0.9 on the
    /// active ones, two bands whose azimuth is the record's index.
    static let records: [AnalysisRecord] = (0..<300).map { i in
        let active = i % 3 != 0
        return AnalysisRecord(
            frame: i, time: (Double(i) + 1) * hop, azimuth: Double(i % 180) - 90, lateral: 0,
            confidence: active ? Double(i % 10) / 10 : 0, levelDBFS: -30, active: active,
            bands: [
                BandRecord(name: "low", lowHz: 100, highHz: 500, azimuth: Double(i), confidence: 0.5, levelDBFS: -40),
                BandRecord(name: "high", lowHz: 500, highHz: 8000, azimuth: -Double(i), confidence: 0.5, levelDBFS: -40),
            ])
    }

    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test("--fields: each JSON line is valid JSON with exactly the fields asked for, in the documented order")
    func jsonFields() throws {
        let fields = try RecordFields(parsing: "confidence, TIME,azimuth")
        let text = try RecordWriterTests.written(.jsonl, Array(Self.records.prefix(5)), fields: fields)
        let objects = try Self.objects(text)
        #expect(objects.count == 5)
        for object in objects { #expect(Set(object.keys) == ["time", "azimuth", "confidence"]) }
        #expect(text.split(separator: "\n")[1] == #"{"time":0.042667,"azimuth":-89.00,"confidence":0.100}"#)
        // Bands alone, and yaw asked for without an IMU: null.
        let bands = try Self.objects(try RecordWriterTests.written(.jsonl, [Self.records[7]], fields: RecordFields([.bands, .yaw])))
        #expect(Set(bands[0].keys) == ["bands", "yaw"])
        #expect(bands[0]["yaw"] is NSNull)
        #expect((bands[0]["bands"] as? [[String: Any]])?.map { $0["azimuth"] as? Double } == [7, -7])
    }

    @Test("--fields: CSV has those columns only, bands as their columns")
    func csvFields() throws {
        let text = try RecordWriterTests.written(
            .csv, Array(Self.records.prefix(3)), bands: ["low", "high"], fields: RecordFields([.time, .active, .bands]))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines == [
            "time,active,low_azimuth,low_confidence,low_level_dbfs,high_azimuth,high_confidence,high_level_dbfs,loudest_band",
            "0.021333,false,0.00,0.500,-40.0,0.00,0.500,-40.0,",
            "0.042667,true,1.00,0.500,-40.0,-1.00,0.500,-40.0,",
            "0.064000,true,2.00,0.500,-40.0,-2.00,0.500,-40.0,",
        ])
    }

    @Test("--fields: unknown names are all named, with the list of fields")
    func unknownFields() {
        #expect(throws: RecordFields.ParseError(unknown: ["azimut", ""])) { try RecordFields(parsing: "time,azimut,") }
        let message = RecordFields.ParseError(unknown: ["azimut"]).description
        #expect(message.hasPrefix("unknown field 'azimut' (fields: time, azimuth, raw_azimuth,"), "\(message)")
        #expect(message.hasSuffix("noise_floor_dbfs, bands, sources)"))
    }

    @Test("--every 100ms: one record per 100 ms interval, the last of each, bands its own")
    func everyInterval() throws {
        let text = try RecordWriterTests.written(.jsonl, Self.records, selection: RecordSelection(interval: 0.1))
        let objects = try Self.objects(text)
        // The records' last interval by time, per interval index.
        var last: [Int: Int] = [:]
        for (i, r) in Self.records.enumerated() { last[Int((r.time / 0.1).rounded(.down))] = i }
        #expect(objects.count == last.count)
        #expect(objects.count == 64, "6.4 s of records (the last at 6.39999…): intervals 0…63")
        let times = objects.map { $0["time"] as! Double }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        for (object, index) in zip(objects, last.keys.sorted()) {
            let expected = Self.records[last[index]!]
            #expect(abs(object["time"] as! Double - expected.time) < 1e-6)
            let bands = object["bands"] as! [[String: Any]]
            #expect(bands.map { $0["azimuth"] as! Double } == [Double(expected.frame), -Double(expected.frame)])
        }
    }

    @Test("--active-only writes only active frames; --min-confidence only those confident enough; both combine with --every")
    func activeAndConfidence() throws {
        let active = try Self.objects(try RecordWriterTests.written(.jsonl, Self.records, selection: RecordSelection(activeOnly: true)))
        #expect(active.count == 200)
        #expect(active.allSatisfy { $0["active"] as? Bool == true })
        let confident = try Self.objects(
            try RecordWriterTests.written(.jsonl, Self.records, selection: RecordSelection(minimumConfidence: 0.7)))
        // Active records with i % 10 ∈ {7, 8, 9}: 90 of 300, minus the quiet ones (i % 3 == 0).
        #expect(confident.count == Self.records.filter { $0.active && $0.confidence >= 0.7 }.count)
        #expect(confident.count == 60)
        #expect(confident.allSatisfy { ($0["confidence"] as! Double) >= 0.7 })
        let both = try Self.objects(
            try RecordWriterTests.written(
                .jsonl, Self.records, selection: RecordSelection(activeOnly: true, minimumConfidence: 0.5, interval: 1)))
        // Seconds 0…6, each with confident active records: the last of each.
        #expect(both.map { Int(($0["time"] as! Double).rounded(.down)) } == [0, 1, 2, 3, 4, 5, 6])
        #expect(both.allSatisfy { ($0["confidence"] as! Double) >= 0.5 && $0["active"] as! Bool })
        #expect(RecordSelection().passesEverything && !RecordSelection(minimumConfidence: 0.1).passesEverything)
    }
}

extension RecordSelectionTests {
    @Test("RecordFields holds exactly the fields it was made of (each field its own bit)")
    func fieldBits() {
        for field in RecordField.allCases {
            let one = RecordFields([field])
            #expect(RecordField.allCases.filter { one.contains($0) } == [field])
        }
        #expect(RecordField.allCases.allSatisfy { RecordFields.all.contains($0) })
        #expect(RecordFields([]).isEmpty)
    }
}
