import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport

/// Front/back per source (issue 31, item 4): two still talkers, one ahead and one behind, heard
/// together by a turning listener with an IMU log; each tracked source gets its own hemisphere
/// from a histogram of world bearings (``SourceFrontBack``).
@Suite("Front/back per tracked source")
struct SourceFrontBackTests {
    /// Seconds at which the head starts turning.
    static let rotationStart = 1.0

    /// Two talkers (different seeds, equal level) at world bearings `ahead` and `behind`, 20 dB
    /// SNR, a 15 cm pair whose yaw swings ±30° with a 4 s period from 1 s, 10 s long.
    static func listener(ahead: Double, behind: Double) -> RotatingListener {
        var scene = Scene(
            duration: 10, microphones: .spaced(spacing: 0.15),
            sources: [
                Source(.speech, azimuth: ahead, levelDBFS: -26, seed: 3),
                Source(.speech, azimuth: behind, levelDBFS: -26, seed: 17),
            ],
            noise: SensorNoise(snrDecibels: 20, seed: 53))
        scene.interpolationHalfLength = 16
        return RotatingListener(scene: scene, yaw: .sinusoid(amplitude: 30, period: 4, start: rotationStart))
    }

    struct Score {
        var frames = 0, right = 0, unknown = 0, ambiguous = 0
        var ids = Set<Int>()
        var share: Double { Double(right) / Double(max(1, frames)) }
    }

    /// For each true source: the frames (from `after` s on) in which a listed, active source is
    /// nearest to it in lateral position (`sin` of the bearing relative to the pair, which does
    /// not depend on the hemisphere; within 0.25 of it), and of those the frames whose
    /// hemisphere is right. Right: the true source's hemisphere, or either within 3° of ±90°
    /// (the two readings nearly meet there). Where the two true sources are within 0.05 of each
    /// other in lateral position (at 30°/150° that is the yaw within ±2.8° of 0), the pair hears
    /// one direction, and the listed source is right with either source's hemisphere (counted as
    /// `ambiguous`). `.unknown` is never right.
    static func score(_ records: [AnalysisRecord], bearings: [Double], yaw: YawMotion, after: Double) -> [Score] {
        var result = bearings.map { _ in Score() }
        func lateral(_ degrees: Double) -> Double { sin(degrees * Double.pi / 180) }
        func right(_ hemisphere: Hemisphere, relative: Double) -> Bool {
            switch hemisphere {
            case .front: abs(relative) <= 93
            case .back: abs(relative) >= 87
            case .unknown: false
            }
        }
        for record in records where record.time >= after {
            let relative = bearings.map { YawTimeline.wrap($0 - yaw.yaw(at: record.time)) }
            let together = abs(lateral(relative[0]) - lateral(relative[1])) < 0.05
            for source in record.sources where source.active {
                let s = lateral(source.azimuth)
                let truth = relative.indices.min { abs(lateral(relative[$0]) - s) < abs(lateral(relative[$1]) - s) }!
                guard abs(lateral(relative[truth]) - s) <= 0.25 else { continue }
                result[truth].frames += 1
                result[truth].ids.insert(source.id)
                if source.hemisphere == .unknown { result[truth].unknown += 1 }
                if together { result[truth].ambiguous += 1 }
                let isRight = together
                    ? relative.contains { right(source.hemisphere, relative: $0) }
                    : right(source.hemisphere, relative: relative[truth])
                if isRight { result[truth].right += 1 }
            }
        }
        return result
    }

    @Test("A talker ahead and one behind, a turning listener: each source's hemisphere right in ≥ 95 % of its frames after 2 s",
          arguments: [(30.0, 150.0), (-40.0, -140.0), (30.0, -140.0), (-40.0, 150.0), (60.0, -120.0)])
    func twoSources(ahead: Double, behind: Double) throws {
        let listener = Self.listener(ahead: ahead, behind: behind)
        let imu = try IMULog(text: listener.imuCSV(), path: "imu.csv", format: IMUFormat())
        let records = try analyze(listener.render(), orientation: imu.timeline)
        let after = Self.rotationStart + 2
        let scores = Self.score(records, bearings: [ahead, behind], yaw: listener.yaw, after: after)
        let frames = records.filter { $0.time >= after }.count
        for (i, s) in scores.enumerated() {
            print(
                "per-source front/back, \(ahead)°/\(behind)°: source at \(i == 0 ? ahead : behind)°: listed in \(s.frames) of \(frames) frames after \(after) s (ids \(s.ids.sorted())), "
                    + "\(s.unknown) unknown, \(s.ambiguous) with both sources at one lateral bearing; hemisphere right in \(String(format: "%.1f", 100 * s.share)) %")
            // Listed in most frames, so the share is not of a handful.
            #expect(s.frames >= frames / 4, "source \(i): listed in \(s.frames) of \(frames) frames")
            // The issue's target. Measured 95.3–100 % over these scenes; the source ahead at
            // −40°/+150° reached it (90.0 → 97.2 %) when a new track's readings were weighed
            // without the bins of the other source heard that frame (see Docs/IMU.md).
            #expect(s.share >= 0.95, "source \(i): hemisphere right in \(s.right) of \(s.frames) frames")
        }
    }

    @Test("Without turning (yaw still), no source is resolved")
    func withoutTurning() throws {
        var scene = Self.listener(ahead: 30, behind: -140).scene
        scene.duration = 5
        let listener = RotatingListener(scene: scene, yaw: .sinusoid(amplitude: 4, period: 4, start: 1))
        let imu = try IMULog(text: listener.imuCSV(), path: "imu.csv", format: IMUFormat())
        let records = try analyze(listener.render(), orientation: imu.timeline)
        #expect(records.contains { !$0.sources.isEmpty })
        #expect(records.allSatisfy { $0.sources.allSatisfy { $0.hemisphere == .unknown && $0.worldAzimuth == nil } })
    }

    @Test("Without an IMU log, every source's hemisphere is unknown and its bearing within ±90°")
    func withoutIMU() throws {
        let records = try analyze(Self.listener(ahead: 30, behind: -140).render())
        #expect(records.contains { !$0.sources.isEmpty })
        #expect(records.allSatisfy { $0.sources.allSatisfy { $0.hemisphere == .unknown && abs($0.azimuth) <= 90 && $0.worldAzimuth == nil } })
    }
}
