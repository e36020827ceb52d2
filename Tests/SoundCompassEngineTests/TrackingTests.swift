import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

struct TrackingTests {
    struct Result { var lag: Double; var medianError: Double; var rawMedianError: Double }

    /// A free-field source sweeping from `from` to `to` degrees at `speed` °/s (pink noise, SNR
    /// 20 dB). Lag: the delay (0…300 ms) of the true path that best matches the tracked azimuth.
    static func sweep(from: Double, to: Double, speed: Double, response: TrackerResponse) throws -> Result {
        let duration = abs(to - from) / speed
        let scene = Scene(
            sampleRate: 48000, duration: duration + 1,
            sources: [Source(.pinkNoise, path: .sweep(from: from, to: to, between: 0.5, and: 0.5 + duration), levelDBFS: -25, seed: 3)],
            noise: SensorNoise(snrDecibels: 20, seed: 4))
        let config = AnalysisConfiguration(sampleRate: 48000, response: response)
        // Judge the moving part only, away from the ends of the sweep.
        let records = try analyze(scene.render(), configuration: config).filter { $0.time > 1.0 && $0.time < 0.5 + duration - 0.2 }
        func medianError(shift: Double, raw: Bool = false) -> Double {
            median(records.map { abs((raw ? $0.rawAzimuth : $0.azimuth) - scene.sources[0].path.azimuth(at: $0.time - shift)) })
        }
        let shifts = stride(from: 0.0, through: 0.3, by: 0.001)
        let lag = shifts.min { medianError(shift: $0) < medianError(shift: $1) }!
        return Result(lag: lag, medianError: medianError(shift: 0), rawMedianError: medianError(shift: 0, raw: true))
    }

    @Test("a source sweeping −60→+60° at 15°/s is followed with lag ≤ 150 ms and median error ≤ 2°")
    func sweep15() throws {
        let r = try Self.sweep(from: -60, to: 60, speed: 15, response: .balanced)
        #expect(r.lag <= 0.150, "lag \(r.lag * 1000) ms")
        #expect(r.medianError <= 2, "median error \(r.medianError)°")
    }

    @Test("balanced follows 30°/s with lag ≤ 150 ms; every preset follows 15°/s", arguments: TrackerResponse.allCases)
    func presets(response: TrackerResponse) throws {
        let r = try Self.sweep(from: -45, to: 45, speed: response == .balanced ? 30 : 15, response: response)
        #expect(r.lag <= (response == .calm ? 0.3 : 0.150), "\(response): lag \(r.lag * 1000) ms")
        #expect(r.medianError <= 3, "\(response): median error \(r.medianError)°")
    }

    // Measured when written, speech-like source: standard deviations 0.69°, 0.49°, 0.14° at
    // −50°, 0°, 35°.
    @Test("a still source at SNR 20 dB: tracked azimuth steady (standard deviation ≤ 1°)", arguments: [
        (-50.0, SourceSignal.pinkNoise), (0, .pinkNoise), (35, .pinkNoise), (-50, .speech), (0, .speech), (35, .speech),
    ])
    func stillSource(azimuth: Double, signal kind: SourceSignal) throws {
        let signal = TestSupport.stillSource(azimuth: azimuth, duration: 5, signal: kind, snr: 20, seed: 12)
        let records = try analyze(signal).filter { $0.time > 0.5 }
        let values = records.map(\.azimuth)
        let mean = values.reduce(0, +) / Double(values.count)
        let sd = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
        #expect(sd <= 1, "standard deviation \(sd)°")
        #expect(abs(mean - azimuth) <= 1, "mean \(mean)°")
    }

    @Test("inactive frames do not move the tracker")
    func inactiveFramesHold() {
        var tracker = AzimuthTracker(hopDuration: 0.02)
        for _ in 0..<50 { tracker.update(measurement: 30, confidence: 1) }
        for _ in 0..<50 { tracker.update(measurement: -70, confidence: 0) }
        #expect(abs(tracker.azimuth - 30) < 0.5)
    }

    @Test("a new source far away takes over after two fully confident frames")
    func jump() {
        var tracker = AzimuthTracker(hopDuration: 0.02)
        for _ in 0..<50 { tracker.update(measurement: -40, confidence: 1) }
        tracker.update(measurement: 50, confidence: 1)
        #expect(abs(tracker.azimuth + 40) < 1, "one outlier is ignored")
        tracker.update(measurement: 50, confidence: 1)
        #expect(abs(tracker.azimuth - 50) < 1e-9)
    }
}


struct TrackerReacquisitionTests {
    @Test("a track started on a weak wrong frame moves to the source after a few consistent frames")
    func wrongStart() {
        var tracker = AzimuthTracker(hopDuration: 0.016)
        tracker.update(measurement: 10, confidence: 0.25)  // a reflection on the first frame
        var frames = 0
        while abs(tracker.azimuth - 60) > 3 && frames < 50 {
            // The source, heard weakly, between inactive frames.
            tracker.update(measurement: 60 + (frames % 2 == 0 ? 1.5 : -1.5), confidence: 0.3)
            tracker.update(measurement: 0, confidence: 0)
            frames += 1
        }
        #expect(frames <= 6, "took \(frames) weak frames")
    }

    @Test("scattered reflections do not take a confident track away")
    func reflectionsIgnored() {
        var tracker = AzimuthTracker(hopDuration: 0.016)
        for i in 0..<500 {
            // Every fifth frame is a reflection at 15°, the rest the source at −60°.
            if i % 5 == 4 {
                tracker.update(measurement: 15, confidence: 0.4)
            } else {
                tracker.update(measurement: -60, confidence: 0.6)
            }
            #expect(abs(tracker.azimuth + 60) < 2, "frame \(i): \(tracker.azimuth)°")
            if abs(tracker.azimuth + 60) >= 2 { break }
        }
    }

    @Test("a challenger without support for a second is forgotten")
    func challengerExpires() {
        var tracker = AzimuthTracker(hopDuration: 0.016)
        for _ in 0..<50 { tracker.update(measurement: -20, confidence: 1) }
        for _ in 0..<20 {
            // One rejected frame at 40° every 1.1 s: never enough at once to restart.
            tracker.update(measurement: 40, confidence: 0.9)
            for _ in 0..<69 { tracker.update(measurement: 0, confidence: 0) }
        }
        #expect(abs(tracker.azimuth + 20) < 1)
    }
}

/// A bearing averaged over time (``OnsetBearing``) is fed with a gate.
struct GatedMeasurementTests {
    @Test("a gated bearing far from the track does not move it, and restarts it only with about twice an ungated one's support")
    func farSupportsAChallenger() {
        var tracker = AzimuthTracker(hopDuration: 0.016)
        for _ in 0..<50 { tracker.update(measurement: -40, confidence: 1) }
        // At half their confidence, nine frames at 0.3 (a challenger's weight 1.35) do not restart it.
        for _ in 0..<9 { tracker.update(measurement: 0, confidence: 0.3, gate: 20) }
        #expect(abs(tracker.azimuth + 40) < 0.5, "after 9 gated frames: \(tracker.azimuth)°")
        // Ungated, the same frames would have: ten at 0.3 restart it there (weight 1.5 at the fifth).
        var ungated = AzimuthTracker(hopDuration: 0.016)
        for _ in 0..<50 { ungated.update(measurement: -40, confidence: 1) }
        for _ in 0..<10 { ungated.update(measurement: 0, confidence: 0.3) }
        #expect(abs(ungated.azimuth) < 1, "the same frames ungated: \(ungated.azimuth)°")
        // Nor do ten (their weights sum to 1.4999…, just under 1.5); the eleventh does.
        tracker.update(measurement: 0, confidence: 0.3, gate: 20)
        #expect(abs(tracker.azimuth + 40) < 0.5, "after 10 gated frames: \(tracker.azimuth)°")
        tracker.update(measurement: 0, confidence: 0.3, gate: 20)
        #expect(abs(tracker.azimuth) < 1, "after 11 gated frames: \(tracker.azimuth)°")
    }

    @Test("gated bearings that disagree with each other never restart the track")
    func disagreeingIgnored() {
        var tracker = AzimuthTracker(hopDuration: 0.016)
        for _ in 0..<50 { tracker.update(measurement: -40, confidence: 1) }
        // 0°, +30°, 0°, …: each one 30° from the last starts a new challenger.
        for i in 0..<200 { tracker.update(measurement: i % 2 == 0 ? 0 : 30, confidence: 0.3, gate: 20) }
        #expect(abs(tracker.azimuth + 40) < 0.5, "\(tracker.azimuth)°")
    }

    @Test("a gated bearing within the gate moves the position, not the rate")
    func positionOnly() {
        var tracker = AzimuthTracker(hopDuration: 0.016)
        for _ in 0..<50 { tracker.update(measurement: -40, confidence: 1) }
        for _ in 0..<100 { tracker.update(measurement: -30, confidence: 0.3, gate: 20) }
        #expect(abs(tracker.azimuth + 30) < 1, "\(tracker.azimuth)°")
        #expect(abs(tracker.rate) < 1e-6, "rate \(tracker.rate)°/s")
        // The same measurements ungated teach it a rate on the way.
        var ungated = AzimuthTracker(hopDuration: 0.016)
        for _ in 0..<50 { ungated.update(measurement: -40, confidence: 1) }
        ungated.update(measurement: -30, confidence: 0.3)
        #expect(abs(ungated.rate) > 1, "ungated rate \(ungated.rate)°/s")
    }
}

struct TailWeightingTests {
    @Test("frames falling at the decay rate or faster get 0, steady and rising frames 1")
    func weights() {
        var tail = TailWeighting(decayRate: 125, hopDuration: 0.016)
        // 0.016 s × 125 dB/s = 2 dB per hop.
        let levels = [-30.0, -30, -29, -30, -31, -33, -36, -20]
        let expected = [1.0, 1, 1, 0.5, 0.5, 0, 0, 1]
        for (level, weight) in zip(levels, expected) {
            #expect(abs(tail.weight(levelDBFS: level) - weight) < 1e-9, "level \(level)")
        }
        var off = TailWeighting(decayRate: 0, hopDuration: 0.016)
        #expect(off.weight(levelDBFS: -20) == 1 && off.weight(levelDBFS: -60) == 1)
    }
}
