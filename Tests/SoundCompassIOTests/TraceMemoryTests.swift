import Foundation
@testable import SoundCompassIO
import SoundCompassEngine
import TestSignals
import TestSupport
import Testing

/// Frames of a source sweeping from −60° to +60° over `frames` 20 ms hops, bursts of activity
/// with pauses, noisy raw estimates and four bands (seeded).
private func sweep(frames: Int, into recorders: [TraceRecorder]) {
    var random = SeededRandom(seed: 29)
    for i in 0..<frames {
        let t = Double(i) * 0.02
        let truth = -60 + 120 * Double(i) / Double(frames - 1)
        let active = (i / 150) % 4 != 3
        var r = AnalysisRecord(
            frame: i, time: t, azimuth: truth, rawAzimuth: truth + 6 * (random.uniform() - 0.5),
            confidence: active ? random.uniform() : 0, ildDecibels: truth / 10 + random.uniform() - 0.5,
            itdMicroseconds: -437 * sin(truth * .pi / 180), levelDBFS: active ? -30 + 4 * random.uniform() : -62,
            active: active, noiseFloorDBFS: -63)
        r.bands = ["low", "speech", "alert", "high"].map {
            BandRecord(name: $0, lowHz: 0, highHz: 1, azimuth: truth + 4 * (random.uniform() - 0.5), confidence: 0.6, levelDBFS: -40)
        }
        for recorder in recorders { recorder.add(r, truthAzimuth: truth) }
    }
}

/// The y coordinates of a path's points, in order.
private func pathPoints(_ doc: SVGElements, id: String) -> [(x: Double, y: Double)] {
    let d = doc.element(id: id)?["d"] ?? ""
    return d.split(whereSeparator: { $0 == "M" || $0 == "L" }).compactMap { pair in
        let xy = pair.split(separator: " ").compactMap { Double($0) }
        return xy.count == 2 ? (xy[0], xy[1]) : nil
    }
}

@Suite("Trace memory: long recordings are decimated in bounded memory")
struct TraceMemoryTests {
    @Test("past its frame limit the recorder keeps buckets only, and the plot keeps the sweep's shape and axes")
    func decimatedSweep() throws {
        // 40 000 frames (13 min at 20 ms) against a limit of 1000 frames: 40× the limit, and
        // about 5× the bucket limit, so the buckets coarsen three times.
        let frames = 40_000
        let decimated = TraceRecorder(bandNames: ["low", "speech", "alert", "high"], frameLimit: 1000)
        let exact = TraceRecorder(bandNames: ["low", "speech", "alert", "high"], frameLimit: frames)
        sweep(frames: frames, into: [decimated, exact])
        #expect(decimated.isDecimated && !exact.isDecimated)
        #expect(decimated.count == frames && decimated.storedCount == 0, "no frame kept: \(decimated.storedCount)")
        #expect(exact.storedCount == frames)
        let buckets = decimated.decimation
        #expect(buckets.used <= TraceDecimation.bucketLimit && buckets.used > TraceDecimation.bucketLimit / 2,
            "\(buckets.used) buckets in use")
        #expect(buckets.tracked.buckets.count == TraceDecimation.bucketLimit, "storage stays at the limit")

        let truth = try TruthTrack(text: "time,azimuth\n0,-60\n\(Double(frames - 1) * 0.02),60\n", name: "sweep.csv")
        let options = TracePlot.Options(title: "sweep", settings: "", truth: truth, maximumITDMicroseconds: 437, gateDBFS: -50)
        let a = try #require(SVGElements.parse(TracePlot.render(decimated, options: options)))
        let b = try #require(SVGElements.parse(TracePlot.render(exact, options: options)))
        // The tracked azimuth rises monotonically (y falls) from −60° to +60° across the plot.
        for id in ["tracked-idle", "tracked", "band-speech", "truth"] {
            let points = pathPoints(a, id: id)
            #expect(points.count > 500 && points.count <= 4 * 910, "\(id): \(points.count) points")
            #expect(zip(points, points.dropFirst()).allSatisfy { $1.x >= $0.x && $1.y <= $0.y + (id == "band-speech" ? 8 : 0.11) },
                "\(id) drawn monotonic")
        }
        let idle = pathPoints(a, id: "tracked-idle"), reference = pathPoints(b, id: "tracked-idle")
        // azimuth panel: 300 px for ±90°, from y = 64.
        #expect(abs(idle.first!.y - (64 + 150 * 300.0 / 180)) < 1 && abs(idle.last!.y - (64 + 30 * 300.0 / 180)) < 1, "\(idle.first!) \(idle.last!)")
        #expect(abs(idle.first!.x - reference.first!.x) < 1 && abs(idle.last!.x - reference.last!.x) < 1.5)
        // The same axes as the exact plot (ranges from binned quantiles), the same element kinds.
        #expect(a.texts == b.texts, "tick labels and legend")
        for id in ["activity", "frame-dots", "error", "ild", "itd", "level", "noise-floor"] {
            #expect(a.element(id: id) != nil, "element \(id)")
        }
        #expect(a.count("rect") > 20, "activity boxes")
        let dots = a.elements.filter { $0.attributes["class"] == "dots" }.count
        #expect(dots >= 3, "dots in several shades: \(dots)")
    }

    @Test("at its frame limit the recorder still keeps every frame, and draws exactly as before")
    func atTheLimit() throws {
        let atLimit = TraceRecorder(bandNames: ["low", "speech", "alert", "high"], frameLimit: 3000)
        let unlimited = TraceRecorder(bandNames: ["low", "speech", "alert", "high"], frameLimit: .max)
        sweep(frames: 3000, into: [atLimit, unlimited])
        #expect(!atLimit.isDecimated && atLimit.storedCount == 3000)
        let options = TracePlot.Options(title: "sweep", settings: "", maximumITDMicroseconds: 437)
        #expect(TracePlot.render(atLimit, options: options) == TracePlot.render(unlimited, options: options))
    }

    @Test("a segment longer than the azimuths kept: subsampled, with the same median and every frame counted")
    func longSegment() {
        var summarizer = SegmentSummarizer()
        let frames = SegmentSummarizer.keptAzimuths * 2 + 1234
        for i in 0..<frames {
            // A slow sweep from −30° to +30°: median 0°, quartiles ±15°.
            let az = -30 + 60 * Double(i) / Double(frames - 1)
            summarizer.add(AnalysisRecord(frame: i, time: Double(i) * 0.02, azimuth: az, rawAzimuth: az, confidence: 0.9, active: true))
        }
        let segments = summarizer.finish()
        #expect(segments.count == 1)
        let s = segments[0]
        #expect(s.frames == frames && s.confidentFrames == frames)
        #expect(abs(s.medianAzimuth) < 0.01, "median \(s.medianAzimuth)")
        #expect(abs(s.spread - 30) < 0.01, "spread \(s.spread)")
    }
}
