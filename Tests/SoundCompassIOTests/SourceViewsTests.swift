import Foundation
@testable import SoundCompassIO
import SoundCompassEngine
import TestSupport
import Testing

/// Several tracked sources (``AnalysisRecord/sources``) in the text view, the live compass,
/// the trace plot and the per-source scoring.
struct SourceViewsTests {
    /// The sample record with three sources: two heard (−45.7°, +30.2°), one held.
    static var withSources: AnalysisRecord {
        var r = RecordWriterTests.sample
        r.sources = [
            SourceRecord(id: 1, azimuth: -45.7, confidence: 0.6, levelDBFS: -25, active: true),
            SourceRecord(id: 2, azimuth: 30.2, confidence: 0.3, levelDBFS: -30, active: true),
            SourceRecord(id: 4, azimuth: 70, confidence: 0.1, levelDBFS: -40, active: false),
        ]
        return r
    }

    @Test("text view: a src column of the heard sources after the ITD, slots as they fit, never wider than the columns",
          arguments: [20, 40, 80, 100, 120, 131, 132, 139, 140, 149, 200])
    func textSources(columns: Int) throws {
        let records = TextViewTests.extremes + [Self.withSources]
        let text = try RecordWriterTests.written(.text, records, bands: ["a-very-long-band-name", "speech", "high"],
            sources: true, columns: columns)
        let lines = text.split(separator: "\n")
        #expect(lines.count == records.count)
        for line in lines { #expect(TextViewTests.columns(line) <= columns, "\(columns): \(line)") }
        let last = String(lines.last!)
        // 119 columns up to the ITD (78 + level 13 + ILD 14 + ITD 14), then 5 for "  src" and 8 a slot.
        switch columns {
        case ..<132: #expect(!last.contains("src"), "\(last)")
        case 132..<140: #expect(last.hasSuffix("ITD  +312 µs  src 1:-46"), "\(last)")
        default: #expect(last.hasSuffix("ITD  +312 µs  src 1:-46   2:+30"), "\(last)")
        }
    }

    @Test("text view: exact lines with sources and with none heard; without source tracking as before")
    func textSourcesExact() throws {
        let start = "   0.085 s   -45.7°  L ───────●───────┼─────────────── R  far left   conf 0.93   -23.5 dBFS  ILD   0.0 dB  ITD  +312 µs"
        var loud = Self.withSources
        loud.bands[0].loudest = true
        let line = try RecordWriterTests.written(.text, [loud], sources: true, columns: 200)
        #expect(line == start + "  src 1:-46   2:+30" + String(repeating: " ", count: 10) + "  loudest speech \"mid\"\n")
        var none = Self.withSources
        none.sources = [SourceRecord(id: 4, azimuth: 70, confidence: 0.1, levelDBFS: -40, active: false)]
        let noneLine = try RecordWriterTests.written(.text, [none], sources: true, columns: 200)
        #expect(noneLine == start + "  src -\n")
        // Without source tracking the line is as it always was.
        let plain = try RecordWriterTests.written(.text, [Self.withSources], columns: 200)
        #expect(plain == start + "\n")
    }

    @Test("with labels: the text view names each heard source in its slot, the compass names them beside their bearings")
    func labelledSources() throws {
        var record = Self.withSources
        record.sources[0].label = SoundLabel(name: "Speech", score: 0.9)
        record.sources[1].label = SoundLabel(name: "Vehicle horn, car horn, honking", score: 0.4)
        record.label = SoundLabel(name: "Speech", score: 0.8)
        // The text view (labels on, as --classify sets them), wide enough for two slots.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("labels-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = RecordWriter(format: .text, sink: try LineSink(path: path), sources: true, columns: 200)
        writer.labels = true
        try writer.write(record)
        try writer.finish()
        let line = try String(contentsOfFile: path, encoding: .utf8)
        #expect(line.contains("src 1:-46  Speech ") && line.hasSuffix(" 2:+30  Vehicle horn\n"), "\(line)")
        #expect(TextViewTests.columns(line.dropLast()) <= 200)
        // The live compass's status line.
        let compassPath = FileManager.default.temporaryDirectory.appendingPathComponent("compass-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: compassPath) }
        let compass = TerminalCompass(sink: try LineSink(path: compassPath), columns: 100, bandNames: [])
        compass.update(record)
        try compass.draw(status: .init(streamSeconds: 1, frames: 47, overruns: 0))
        compass.finish()
        let drawing = try String(contentsOfFile: compassPath, encoding: .utf8)
        #expect(drawing.contains("sound: 1 Speech -46°  2 Vehicle horn +30°"), "\(drawing)")
        // On 80 columns the names that do not fit are left out, never cut mid-way.
        let narrowPath = compassPath + "-80"
        defer { try? FileManager.default.removeItem(atPath: narrowPath) }
        let narrow = TerminalCompass(sink: try LineSink(path: narrowPath), columns: 60, bandNames: [])
        narrow.update(record)
        try narrow.draw(status: .init(streamSeconds: 1, frames: 47, overruns: 0))
        narrow.finish()
        let small = try String(contentsOfFile: narrowPath, encoding: .utf8)
        #expect(small.contains("sound: 1 Speech -46°") && !small.contains("Vehicle"), "\(small)")
    }

    @Test("compass: each heard source's id digit at its bearing on the dial, the main marker kept")
    func compassDigits() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("compass.txt")
        let compass = TerminalCompass(sink: try LineSink(path: path), columns: 80, bandNames: [])
        var record = AnalysisRecord(azimuth: 30, lateral: 0.5, confidence: 0.9, levelDBFS: -20, active: true)
        record.sources = [
            SourceRecord(id: 1, azimuth: -40, confidence: 0.5, levelDBFS: -25, active: true),
            SourceRecord(id: 2, azimuth: 30, confidence: 0.5, levelDBFS: -25, active: true),
            SourceRecord(id: 3, azimuth: 75, confidence: 0.1, levelDBFS: -40, active: false),
        ]
        compass.update(record)
        try compass.draw(status: .init(streamSeconds: 1, frames: 47, overruns: 0))
        record.azimuth = -40
        compass.update(record)
        try compass.draw(status: .init(streamSeconds: 1.1, frames: 52, overruns: 0))
        compass.finish()
        let drawings = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\u{1B}[5F")
        #expect(drawings.count == 2)
        func dial(_ drawing: String) -> [Character] {
            Array(drawing.split(separator: "\n")[0].replacingOccurrences(of: "\u{1B}[2K", with: "")
                .replacingOccurrences(of: "\u{1B}[?25l\u{1B}[?7l", with: ""))
        }
        // 72 dial cells after " L ├": −40° is cell round(50/180·71) = 20, +30° cell 47, +75° cell 65.
        let first = dial(drawings[0]), second = dial(drawings[1])
        #expect(first.count == 79 && second.count == 79)
        #expect(first.firstIndex(of: "1") == 4 + 20 && first.firstIndex(of: "●") == 4 + 47, "\(String(first))")
        #expect(!first.contains("2"), "source 2 shares the main marker's cell: the marker wins")
        #expect(!first.contains("3"), "a held source is not drawn")
        #expect(second.firstIndex(of: "●") == 4 + 20 && second.firstIndex(of: "2") == 4 + 47, "\(String(second))")
        #expect(!second.contains("1"))
    }

    /// Frames every 20 ms for `seconds`: source 1 at −40° throughout, source 2 at +30° for the
    /// first half, source 3 at +60° from a third on.
    static func recorder(seconds: Double, hop: Double = 0.02, frameLimit: Int = TraceRecorder.exactFrameLimit) -> TraceRecorder {
        let recorder = TraceRecorder(bandNames: [], frameLimit: frameLimit)
        let count = Int(seconds / hop)
        for i in 0..<count {
            let t = Double(i) * hop
            var r = AnalysisRecord(time: t, azimuth: -40, lateral: -0.64, confidence: 0.8, levelDBFS: -20, active: true)
            r.sources = [SourceRecord(id: 1, azimuth: -40, confidence: 0.6, levelDBFS: -22, active: true)]
            if t < seconds / 2 { r.sources.append(SourceRecord(id: 2, azimuth: 30, confidence: 0.3, levelDBFS: -25, active: true)) }
            if t >= seconds / 3 { r.sources.append(SourceRecord(id: 3, azimuth: 60, confidence: 0.3, levelDBFS: -25, active: true)) }
            recorder.add(r)
        }
        return recorder
    }

    @Test("plot: one path per source id in its own colour, its id at the track's start, a legend entry each",
          arguments: [false, true])
    func plotTracks(decimated: Bool) throws {
        // Decimated: 1000 s of frames every 0.1 s, past the first buckets' 128 s (three merges).
        let recorder = decimated ? Self.recorder(seconds: 1000, hop: 0.1, frameLimit: 100) : Self.recorder(seconds: 8)
        #expect(recorder.isDecimated == decimated)
        let svg = TracePlot.render(recorder, options: .init(title: "t", settings: "s", maximumITDMicroseconds: 440))
        let parsed = try #require(SVGElements.parse(svg))
        #expect(parsed.count("path", classContaining: "source") == 3)
        let panelY = { (azimuth: Double) in 64 + (90 - azimuth) / 180 * 300 }
        for (k, azimuth) in [-40.0, 30, 60].enumerated() {
            let path = try #require(parsed.element(id: "source-\(k + 1)"))
            #expect(path["stroke"] == TracePlot.sourceColors[k])
            // Every point of the track at its source's bearing (±0.1 px).
            let numbers = (path["d"] ?? "").split { "ML ".contains($0) }.compactMap { Double($0) }
            let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
            #expect(!ys.isEmpty && ys.allSatisfy { abs($0 - panelY(azimuth)) < 0.1 }, "source \(k + 1): \(Set(ys))")
            let label = try #require(Self.label(parsed, k + 1))
            #expect(label["fill"] == TracePlot.sourceColors[k])
            #expect(parsed.texts.contains("source \(k + 1)"), "legend entry")
        }
        // Track 2 ends halfway, track 3 starts a third in: its label is there.
        let label3 = try #require(Self.label(parsed, 3).flatMap { $0["x"] }.flatMap(Double.init))
        let plotWidth = 1200 - TracePlot.left - TracePlot.right, seconds = decimated ? 1000.0 : 8
        #expect(abs(label3 + 4 - (TracePlot.left + seconds / 3 / recorder.duration * plotWidth)) < 2, "\(label3)")
    }

    /// Source 1 heard for 0–2 s, 5–6 s and 6.5–8 s (a 3 s gap, then a 0.5 s one): its id is
    /// written at 0 s and at 5 s, where it came back after more than
    /// ``TracePlot/sourceRelabelSeconds``, and not at 6.5 s.
    @Test("plot: a source's id is written again where its track resumes after a long gap")
    func plotRelabels() throws {
        let recorder = TraceRecorder(bandNames: [], frameLimit: TraceRecorder.exactFrameLimit)
        for i in 0..<400 {
            let t = Double(i) * 0.02
            var r = AnalysisRecord(time: t, azimuth: -40, lateral: -0.64, confidence: 0.8, levelDBFS: -20, active: true)
            if t < 2 || (t >= 5 && t < 6) || t >= 6.5 {
                r.sources = [SourceRecord(id: 1, azimuth: -40, confidence: 0.6, levelDBFS: -22, active: true)]
            }
            recorder.add(r)
        }
        let svg = TracePlot.render(recorder, options: .init(title: "t", settings: "s", maximumITDMicroseconds: 440))
        let parsed = try #require(SVGElements.parse(svg))
        let xs = Self.labels(parsed, 1).compactMap { $0["x"].flatMap(Double.init) }.sorted()
        let plotWidth = 1200 - TracePlot.left - TracePlot.right
        let expected = [0.0, 5.0].map { TracePlot.left + $0 / recorder.duration * plotWidth - 4 }
        #expect(xs.count == 2, "\(xs)")
        #expect(zip(xs, expected).allSatisfy { abs($0 - $1) < 2 }, "\(xs) vs \(expected)")
    }

    /// The attributes of every id label of source `id`'s track, in document order.
    static func labels(_ svg: SVGElements, _ id: Int) -> [[String: String]] {
        svg.contents.filter { $0.value == "\(id)" && svg.elements[$0.key].attributes["class"] == "source-label" }
            .keys.sorted().map { svg.elements[$0].attributes }
    }

    /// The attributes of the first id label of source `id`'s track.
    static func label(_ svg: SVGElements, _ id: Int) -> [String: String]? { labels(svg, id).first }

    @Test("source buckets: a merged bucket keeps the ids heard most, means across ±180°")
    func sourceBuckets() {
        var buckets = SourceTrackBuckets(bucketCount: 4)
        // Bucket 0: id 9 four times; bucket 1: ids 1…8 once each (full, so id 9 is not kept there).
        for id in 1...8 { buckets.add(bucket: 1, id: id, azimuth: Double(id)) }
        for _ in 0..<3 { buckets.add(bucket: 0, id: 9, azimuth: 179) }
        buckets.add(bucket: 0, id: 9, azimuth: -179)
        buckets.add(bucket: 1, id: 9, azimuth: -177)
        #expect(buckets.sources(in: 1).count == SourceTrackBuckets.slots, "full: id 9 ignored in bucket 1")
        buckets.merge(0, 1, into: 0)
        let merged = buckets.sources(in: 0)
        #expect(merged.count == SourceTrackBuckets.slots)
        #expect(merged.first?.id == 9 && merged.first?.count == 4)
        // 179, 179, 179, −179: mean 179.5 (not 89.5).
        #expect(abs(Double(buckets.azimuth(of: 9, in: 0) ?? 0) - 179.5) < 1e-3)
        #expect(buckets.azimuth(of: 8, in: 0) == nil, "the one id heard least (the last of the ties) is dropped")
    }

    @Test("scoring: found shares, median errors and the false share against a per-source truth")
    func scoring() throws {
        var csv = "time,id,azimuth,active\n"
        for i in 0..<100 {
            let t = String(format: "%.2f", Double(i) * 0.01)
            csv += "\(t),1,-40,1\n\(t),2,30,\(i < 50 ? 1 : 0)\n"
        }
        let truth = try SourceTruth(text: csv, name: "t.csv")
        #expect(truth.tracks.map(\.id) == [1, 2])
        var scoring = SourceScoring(truth: truth)
        for i in 0..<100 {
            var r = AnalysisRecord(time: Double(i) * 0.01, azimuth: -38, active: true)
            r.sources = [SourceRecord(id: 7, azimuth: -38, confidence: 0.5, levelDBFS: -20, active: true)]
            if i < 40 { r.sources.append(SourceRecord(id: 8, azimuth: 33, confidence: 0.5, levelDBFS: -20, active: true)) }
            if i >= 90 { r.sources.append(SourceRecord(id: 9, azimuth: 80, confidence: 0.5, levelDBFS: -20, active: true)) }
            scoring.add(r)
        }
        let f = scoring.figures
        #expect(f.map(\.frames) == [100, 50])
        #expect(f[0].foundShare == 1 && f[1].foundShare == 0.8)
        #expect(abs((f[0].medianError ?? 0) - 2) < 0.01 && abs((f[1].medianError ?? 0) - 3) < 0.01)
        // 150 reported; the 10 at +80° (only −40° playing then) are false.
        #expect(scoring.reported == 150 && scoring.falseCount == 10)
        #expect(scoring.summaryLines == [
            "source 1: found within 10° in 100.0 % of its 100 frames, median error 2.0°",
            "source 2: found within 10° in 80.0 % of its 50 frames, median error 3.0°",
            "false sources (over 15° from every true one): 6.7 % of 150 reported",
        ])
    }

    @Test("per-source truth files: recognised by their id column; bad rows named")
    func sourceTruthParsing() throws {
        #expect(SourceTruth.isPerSource("time,id,azimuth,active\n0,1,30,1\n"))
        #expect(!SourceTruth.isPerSource("time,azimuth\n0,30\n"))
        #expect(throws: TruthError.missingColumn(path: "x", column: "active")) { try SourceTruth(text: "time,id,azimuth\n0,1,3\n", name: "x") }
        #expect(throws: TruthError.badRow(path: "x", line: 3, problem: "time 0.0 is not after source 1's previous row's 0.0")) {
            try SourceTruth(text: "time,id,azimuth,active\n0,1,3,1\n0,1,4,1\n", name: "x")
        }
        #expect(throws: TruthError.badRow(path: "x", line: 2, problem: "active \"yes\" is not 0 or 1")) {
            try SourceTruth(text: "time,id,azimuth,active\n0,1,3,yes\n", name: "x")
        }
        #expect(throws: TruthError.noRows(path: "x")) { try SourceTruth(text: "time,id,azimuth,active\n", name: "x") }
    }
}
