import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport

/// What the engine made of a rotating-listener scene.
struct FrontBackOutcome: CustomStringConvertible {
    /// Seconds from the rotation's start to the first resolved frame (`nil`: never resolved).
    var commitDelay: Double?
    /// Frames after the first resolved one.
    var framesAfter = 0
    /// Of those, frames whose hemisphere is wrong (more than 3° from ±90°), and frames that went
    /// back to unknown.
    var wrong = 0, unknown = 0
    /// Median and 90th percentile of |azimuth − truth| over active frames after the commit, degrees.
    var medianError = Double.nan, p90Error = Double.nan
    /// Median |world_azimuth − bearing| over the same frames, degrees.
    var medianWorldError = Double.nan

    var description: String {
        let delay = commitDelay.map { String(format: "%.2f s", $0) } ?? "never"
        return "commit after \(delay), \(framesAfter) frames after: \(wrong) wrong, \(unknown) unknown; "
            + String(format: "azimuth error median %.2f° p90 %.2f°, world %.2f°", medianError, p90Error, medianWorldError)
    }

    init(records: [AnalysisRecord], listener: RotatingListener, rotationStart: Double, bearing: Double) {
        guard let first = records.firstIndex(where: { $0.hemisphere != .unknown }) else { return }
        commitDelay = records[first].time - rotationStart
        var errors: [Double] = [], worldErrors: [Double] = []
        for record in records[first...] {
            guard let truth = listener.relativeAzimuth(at: record.time) else { continue }
            framesAfter += 1
            switch record.hemisphere {
            case .unknown: unknown += 1
            // Within 3° of the pair's axis the two readings are nearly the same bearing: either
            // hemisphere is right there.
            case .front: if abs(truth) > 93 { wrong += 1 }
            case .back: if abs(truth) < 87 { wrong += 1 }
            }
            guard record.active else { continue }
            errors.append(abs(YawTimeline.wrap(record.azimuth - truth)))
            if let world = record.worldAzimuth { worldErrors.append(abs(YawTimeline.wrap(world - bearing))) }
        }
        if !errors.isEmpty {
            medianError = median(errors)
            p90Error = quantile(errors, 0.9)
        }
        if !worldErrors.isEmpty { medianWorldError = median(worldErrors) }
    }
}

@Suite("Front/back from a turning listener")
struct FrontBackTests {
    static let bearings: [Double] = [-20, 20, -45, 45, -70, 70, -110, 110, -135, 135, -160, 160]
    /// Seconds at which the head starts turning.
    static let rotationStart = 1.0

    /// Speech at `bearing` in the world, 20 dB SNR, a 15 cm pair whose yaw swings ±`amplitude`
    /// degrees with a 4 s period from `start` seconds.
    static func listener(bearing: Double, amplitude: Double = 30, start: Double = rotationStart) -> RotatingListener {
        var scene = Scene(
            duration: 6, microphones: .spaced(spacing: 0.15),
            sources: [Source(.speech, azimuth: bearing, levelDBFS: -26, seed: 3)],
            noise: SensorNoise(snrDecibels: 20, seed: 53))
        scene.interpolationHalfLength = 16
        return RotatingListener(scene: scene, yaw: .sinusoid(amplitude: amplitude, period: 4, start: start))
    }

    /// Each acceptance scene rendered once, shared by the tests that read it with different logs.
    static let rendered: [Double: StereoSignal] = Dictionary(
        uniqueKeysWithValues: bearings.map { ($0, listener(bearing: $0).render()) })

    static func run(
        _ listener: RotatingListener, signal: StereoSignal? = nil, log: RotatingListener.IMULog = .init(),
        format: IMUFormat = IMUFormat()
    ) throws -> [AnalysisRecord] {
        let imu = try IMULog(text: listener.imuCSV(log), path: "imu.csv", format: format)
        return try analyze(signal ?? listener.render(), orientation: imu.timeline)
    }

    /// Asserts the acceptance figures for every bearing read through `log` and `format`.
    static func expectResolved(log: RotatingListener.IMULog, format: IMUFormat, _ what: String) throws {
        for bearing in bearings {
            let listener = listener(bearing: bearing)
            let records = try run(listener, signal: rendered[bearing]!, log: log, format: format)
            let outcome = FrontBackOutcome(records: records, listener: listener, rotationStart: rotationStart, bearing: bearing)
            print("\(what), bearing \(bearing)°: \(outcome)")
            let delay = try #require(outcome.commitDelay, "\(what) \(bearing)°: never resolved")
            #expect(delay >= 0 && delay <= 2, "\(what) \(bearing)°: resolved \(delay) s after the turning began")
            #expect(outcome.wrong == 0 && outcome.unknown == 0, "\(what) \(bearing)°: \(outcome)")
            #expect(outcome.medianError <= 3, "\(what) \(bearing)°: \(outcome)")
            #expect(outcome.medianWorldError <= 3, "\(what) \(bearing)°: \(outcome)")
        }
    }

    @Test("±20/45/70° in front and ±110/135/160° behind, yaw ±30°: resolved within 2 s, every frame right, median error ≤ 3°")
    func acceptance() throws {
        try Self.expectResolved(log: .init(), format: IMUFormat(), "yaw column")
    }

    @Test("A logger counting yaw the other way, read with --imu-yaw-sign -1, gives the same answers")
    func reversedSign() throws {
        try Self.expectResolved(
            log: .init(orientation: .yaw(column: "Heading", radians: true), sign: -1, timeScale: 1000, timeColumn: "timestamp"),
            format: IMUFormat(timeUnit: .ms, yawUnit: .rad, yawSign: -1), "reversed sign, rad, ms")
    }

    @Test("A quaternion log (with pitch and roll) gives the same answers")
    func quaternion() throws {
        try Self.expectResolved(log: .init(rate: 50, orientation: .quaternion), format: IMUFormat(), "quaternion")
    }

    @Test("A reversed-sign log read without flipping the sign resolves the wrong way", arguments: [45.0, -135.0])
    func wrongSignIsWrong(bearing: Double) throws {
        let listener = Self.listener(bearing: bearing)
        let records = try Self.run(listener, signal: Self.rendered[bearing]!, log: .init(sign: -1))
        let outcome = FrontBackOutcome(records: records, listener: listener, rotationStart: Self.rotationStart, bearing: bearing)
        // The mirror image is what a backwards yaw makes consistent: most frames wrong.
        #expect(outcome.wrong > outcome.framesAfter / 2, "\(outcome)")
    }

    @Test("Turning less than 10° leaves front/back unknown", arguments: [-45.0, 20.0, 135.0, -160.0])
    func smallRotation(bearing: Double) throws {
        let listener = Self.listener(bearing: bearing, amplitude: 4.5)  // 9° from side to side
        let records = try Self.run(listener)
        #expect(records.allSatisfy { $0.hemisphere == .unknown && $0.worldAzimuth == nil })
        #expect(records.allSatisfy { abs($0.azimuth) <= 90 })
        #expect(records.contains { $0.yaw != nil })
    }

    @Test("An IMU log that starts 2 s after the audio, read with an offset of 2 s")
    func offset() throws {
        for bearing in [-45.0, 135.0] {
            let listener = Self.listener(bearing: bearing, start: 2.5)
            let records = try Self.run(
                listener, log: .init(start: 2), format: IMUFormat(offsetSeconds: 2))
            #expect(records.filter { $0.time < 1.5 }.allSatisfy { $0.yaw == nil })
            let outcome = FrontBackOutcome(records: records, listener: listener, rotationStart: 2.5, bearing: bearing)
            print("offset 2 s, bearing \(bearing)°: \(outcome)")
            let delay = try #require(outcome.commitDelay)
            #expect(delay >= 0 && delay <= 2)
            #expect(outcome.wrong == 0 && outcome.unknown == 0 && outcome.medianError <= 3, "\(outcome)")
        }
    }
}
