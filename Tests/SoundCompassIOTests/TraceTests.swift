import Foundation
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

private func record(_ scene: Scene, configuration: AnalysisConfiguration) throws -> TraceRecorder {
    let recorder = TraceRecorder(bandNames: configuration.usableBands.map(\.name))
    for r in try analyze(scene.render(), configuration: configuration) { recorder.add(r) }
    return recorder
}

@Suite("Trace plots and summaries")
struct TraceTests {
    let config = AnalysisConfiguration(sampleRate: 48000)

    @Test("the SVG of a moving source parses as XML and holds every element a reader needs")
    func movingSourcePlot() throws {
        let scene = Scene(
            duration: 5, sources: [Source(.pinkNoise, path: .sweep(from: -60, to: 60, between: 0.5, and: 4.5), start: 0.5, end: 4.5, levelDBFS: -24, seed: 5)],
            noise: SensorNoise(snrDecibels: 20, seed: 6))
        let trace = try record(scene, configuration: config)
        let truth = try TruthTrack(text: scene.truthCSV(), name: "moving.truth.csv")
        let svg = TracePlot.render(trace, options: .init(
            title: "moving <&> source.wav", settings: "48000 Hz; spaced 0.15 m", truth: truth,
            maximumITDMicroseconds: config.array.maximumDelaySeconds * 1e6, gateDBFS: -70))
        let doc = try #require(SVGElements.parse(svg), "well-formed XML")
        #expect(doc.elements.first?.name == "svg")
        #expect(doc.texts.contains("SoundCompass trace — moving <&> source.wav"), "title with the file name, escaped")
        #expect(doc.texts.contains("48000 Hz; spaced 0.15 m"), "the settings")
        for label in ["azimuth (°)", "error (°)", "ILD (dB)", "ITD (µs)", "level (dBFS)", "time (s)"] {
            #expect(doc.texts.contains(label), "axis label \(label)")
        }
        for id in ["tracked", "truth", "error", "ild", "itd", "level", "noise-floor", "legend", "activity", "frame-dots"] {
            #expect(doc.element(id: id) != nil, "element \(id)")
        }
        for band in config.usableBands { #expect(doc.element(id: "band-\(band.name)") != nil) }
        // A 5 s clip is drawn frame by frame: a point per frame in the tracked line, a dot per active frame.
        #expect(doc.points(id: "tracked-idle") >= trace.count - 2)
        let dots = doc.elements.filter { $0.attributes["class"] == "dots" }.map { ($0.attributes["d"] ?? "").filter { $0 == "M" }.count }.reduce(0, +)
        let active = (try analyze(scene.render(), configuration: config)).filter(\.active).count
        #expect(dots == active)
        #expect(doc.count("rect", classContaining: nil) > 2)
        #expect(doc.element(id: "yaw") == nil, "no IMU, no yaw panel")
        // The legend names the cues drawn.
        for label in ["tracked azimuth", "frame estimate", "active", "truth", "error (tracked − truth)"] {
            #expect(doc.texts.contains(label), "legend \(label)")
        }
    }

    @Test("read as a person would: sides on the azimuth ticks, the ITD note says it runs opposite (and it does), dashed lines in the legend")
    func readerPlot() throws {
        let scene = Scene(
            duration: 5, sources: [Source(.pinkNoise, path: .sweep(from: -60, to: 60, between: 0.5, and: 4.5), start: 0.5, end: 4.5, levelDBFS: -24, seed: 5)],
            noise: SensorNoise(snrDecibels: 20, seed: 6))
        let records = try analyze(scene.render(), configuration: config)
        let trace = TraceRecorder(bandNames: config.usableBands.map(\.name))
        for r in records { trace.add(r) }
        let truth = try TruthTrack(text: scene.truthCSV(), name: "moving.truth.csv")
        let maxITD = config.array.maximumDelaySeconds * 1e6
        let svg = TracePlot.render(trace, options: .init(
            title: "moving.wav", settings: "", truth: truth, maximumITDMicroseconds: maxITD, gateDBFS: -25))
        let doc = try #require(SVGElements.parse(svg))
        // Azimuth ticks name the side: right at the top, left at the bottom, 0° halfway.
        let azimuthTicks = ["90° R", "60° R", "30° R", "0°", "30° L", "60° L", "90° L"]
        let ys = azimuthTicks.map { doc.y(ofText: $0) }
        try #require(ys.allSatisfy { $0 != nil }, "azimuth ticks \(azimuthTicks)")
        let y = ys.map { $0! }
        #expect(zip(y, y.dropFirst()).allSatisfy { abs($1 - $0 - 50) < 0.2 }, "50 px apart, top to bottom: \(y)")
        let azimuthFrame = try #require(doc.elements.first { $0.attributes["class"] == "frame" }?.attributes["y"].flatMap(Double.init))
        #expect(abs(y[0] - (azimuthFrame + 4)) < 0.2, "90° R at the top of the azimuth panel")
        // ITD ticks: L at the top, R at the bottom (the opposite of the azimuth), and the note says so.
        let itdTop = try #require(doc.y(ofText: "500 L")), itdBottom = try #require(doc.y(ofText: "500 R"))
        #expect(itdTop < itdBottom && itdTop > y[6])
        let noteIndex = try #require(doc.elements.firstIndex { $0.attributes["id"] == "itd-note" })
        let note = try #require(doc.contents[noteIndex])
        #expect(note.contains("positive = right later = source on the LEFT") && note.contains("opposite to the azimuth"))
        #expect(doc.element(id: "ild-note") != nil)
        // ... and it is true of the engine: a source on the left reads a positive ITD.
        let leftITD = records.filter { $0.active && (truth.azimuth(at: $0.time) ?? 0) < -30 }.map(\.itdMicroseconds)
        let rightITD = records.filter { $0.active && (truth.azimuth(at: $0.time) ?? 0) > 30 }.map(\.itdMicroseconds)
        #expect(leftITD.count > 20 && rightITD.count > 20)
        #expect(median(leftITD) > 150 && median(rightITD) < -150, "left \(median(leftITD)) µs, right \(median(rightITD)) µs")
        // Every dashed or dotted line drawn has a legend entry with the same stroke.
        let legendStart = try #require(doc.elements.firstIndex { $0.attributes["id"] == "legend" })
        let styles = { (e: [String: String]) in "\(e["stroke"] ?? "") \(e["stroke-dasharray"] ?? "")" }
        let drawn = Set(doc.elements[..<legendStart].map(\.attributes).filter { $0["stroke-dasharray"] != nil }.map(styles))
        let shown = Set(doc.elements[legendStart...].map(\.attributes).filter { $0["class"] == "legend-dash" }.map(styles))
        #expect(drawn.count == 4, "truth, ITD limit, gate, noise floor: \(drawn)")
        #expect(drawn == shown, "drawn \(drawn), in the legend \(shown)")
        for label in ["truth", "ITD limit ±\(Int(maxITD.rounded())) µs", "noise floor (level)", "silence gate -25 dBFS"] {
            #expect(doc.texts.contains(label), "legend \(label)")
        }
    }

    @Test("a full-circle azimuth axis reads ahead, L, R and behind")
    func circleTicks() throws {
        let recorder = TraceRecorder(bandNames: [])
        for i in 0..<100 {
            var r = AnalysisRecord(frame: i, time: Double(i) * 0.02, azimuth: 150, rawAzimuth: 30, confidence: 0.8, active: true)
            r.hemisphere = .back
            recorder.add(r)
        }
        let doc = try #require(SVGElements.parse(TracePlot.render(recorder, options: .init(title: "t", settings: "", maximumITDMicroseconds: 437))))
        // Bottom to top (the first "180° behind" drawn is −180, at the bottom).
        let labels = ["180° behind", "135° L", "90° L", "45° L", "0° ahead", "45° R", "90° R", "135° R"]
        let ys = try labels.map { try #require(doc.y(ofText: $0), "tick \($0)") }
        #expect(zip(ys, ys.dropFirst()).allSatisfy { abs($0 - $1 - 300.0 / 8) < 0.2 }, "evenly spaced, bottom to top: \(ys)")
        #expect(doc.contents.values.filter { $0 == "180° behind" }.count == 2, "behind at the top and at the bottom")
    }

    @Test("an hour of frames decimates to a few megabytes and still parses")
    func oneHour() throws {
        // Records of an hour at a 21.3 ms hop: a source wandering around the circle, bands, noise.
        let recorder = TraceRecorder(bandNames: ["low", "speech", "alert", "high"])
        var random = SeededRandom(seed: 17)
        let hop = 1024.0 / 48000
        let frames = Int(3600 / hop)
        for i in 0..<frames {
            let t = Double(i) * hop
            let truth = 80 * sin(2 * .pi * t / 600)
            let active = (i / 200) % 5 != 0
            var r = AnalysisRecord(
                frame: i, time: t, azimuth: truth, rawAzimuth: truth + 8 * (random.uniform() - 0.5),
                confidence: active ? random.uniform() : 0, ildDecibels: random.uniform() - 0.5,
                itdMicroseconds: -437 * sin(truth * .pi / 180), levelDBFS: active ? -30 : -60, active: active,
                noiseFloorDBFS: -62)
            r.bands = ["low", "speech", "alert", "high"].map {
                BandRecord(name: $0, lowHz: 0, highHz: 1, azimuth: truth + 10 * (random.uniform() - 0.5), confidence: 0.5, levelDBFS: -40)
            }
            recorder.add(r)
        }
        let svg = TracePlot.render(recorder, options: .init(title: "hour.wav", settings: "", maximumITDMicroseconds: 437, duration: 3600))
        print("one hour: \(frames) frames, SVG \(svg.count) bytes")
        #expect(svg.count < 5_000_000)
        let doc = try #require(SVGElements.parse(svg))
        // M4 decimation: at most four points per pixel column and line break.
        #expect(doc.points(id: "tracked-idle") <= 4 * 1000)
        #expect(doc.texts.contains("time (h:min:s)"))
    }

    @Test("summaries: one segment per burst, at the burst's azimuth, with its dominant band")
    func segments() throws {
        let scene = Scene(
            duration: 6,
            sources: [
                Source(.bandNoise(low: 600, high: 2500), azimuth: -40, start: 0.5, end: 2.0, levelDBFS: -24, seed: 1),
                Source(.bandNoise(low: 3500, high: 7000), azimuth: 25, start: 3.0, end: 5.5, levelDBFS: -24, seed: 2),
            ],
            noise: SensorNoise(snrDecibels: 25, seed: 3))
        var summarizer = SegmentSummarizer()
        for r in try analyze(scene.render(), configuration: config) { summarizer.add(r) }
        let segments = summarizer.finish()
        for s in segments { print("segment \(s)") }
        try #require(segments.count == 2)
        #expect(abs(segments[0].start - 0.5) < 0.15 && abs(segments[0].end - 2.0) < 0.15)
        #expect(abs(segments[1].start - 3.0) < 0.15 && abs(segments[1].end - 5.5) < 0.15)
        #expect(abs(segments[0].medianAzimuth + 40) < 2)
        #expect(abs(segments[1].medianAzimuth - 25) < 2)
        #expect(segments[0].dominantBand == "speech")
        #expect(segments[1].dominantBand == "alert")
        #expect(segments.allSatisfy { $0.spread < 3 && $0.meanConfidence > 0.3 })
    }

    @Test("truth files: interpolation, gaps, folding and bad rows")
    func truthTrack() throws {
        let track = try TruthTrack(text: "time,azimuth\n0,170\n0.01,-170\n0.02,-160\n1.0,10\n1.01,20\n", name: "t.csv")
        #expect(abs(try #require(track.azimuth(at: 0.005)) - 180) < 1e-9, "interpolated the short way round")
        #expect(track.azimuth(at: 0.5) == nil, "no truth across a pause")
        #expect(abs(try #require(track.azimuth(at: 1.005)) - 15) < 1e-9)
        #expect(TruthTrack.lateral(150) == 30 && TruthTrack.lateral(-120) == -60)
        #expect(TruthTrack.error(azimuth: 28, truth: 150, hemisphereKnown: false) == -2)
        #expect(TruthTrack.error(azimuth: 179, truth: -179, hemisphereKnown: true) == -2)
        #expect(throws: TruthError.missingColumn(path: "x.csv", column: "azimuth")) { try TruthTrack(text: "time,az\n0,1\n", name: "x.csv") }
        #expect(throws: TruthError.badRow(path: "x.csv", line: 3, problem: "time 0.0 is not after the previous row's 1.0")) {
            try TruthTrack(text: "time,azimuth\n1,0\n0,0\n", name: "x.csv")
        }
        #expect(throws: TruthError.noRows(path: "x.csv")) { try TruthTrack(text: "time,azimuth\n", name: "x.csv") }
    }
}
