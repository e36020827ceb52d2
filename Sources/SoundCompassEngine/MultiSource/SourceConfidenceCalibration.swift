#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns the tracker's confidence of each listed source into a measured one: the share of the
/// sources so reported that were within 10° of a real source, on the evaluation's rooms
/// (issue 46, item 3; `Benchmarks/accuracy/confidence.py`, Docs/OutputFormat.md).
///
/// The tracker's own confidence (its share and height of the averaged evidence) says little by
/// itself: a steady noise's peak is low and broad, a talker's reflection can be high. So the
/// reported confidence is a logistic model of what the record itself shows of each source:
/// - `c`, the tracker's confidence, 0…1;
/// - `a = ln(1 + min(age, 10))`, with `age` the seconds since its id was first listed (a
///   reflection's track is mostly young);
/// - `l = clamp(level − frame level, −40…10 dB) / 10`, its level against the frame's;
///
/// `confidence = 1 / (1 + e^−(β₀ + β_c·c + β_a·a + β_l·l))`, with the weights fitted by
/// maximum likelihood on the `--steady` room sweep of `evaluate.py` (176 runs, 184 k active
/// source entries) and checked on the `--multi` scenes, held out. Every input is a field of the
/// record, so the model can be refitted from records alone: `confidence.py --fit` on a build
/// with ``isIdentity`` set. (The number of sources listed would have sharpened it on the sweep,
/// but there it stands for "more than the sweep's two", and three real talkers then read 0.3
/// under the truth: it is left out.)
///
/// A component that owns its state: the first time each recent id was listed (a ring of
/// ``capacity`` ids, the first inserted forgotten first: ids only grow, and a recalled id is
/// still remembered, so that is the smallest). No allocation after `init`. The model's range
/// is about 0.51 (no evidence, new, 40 dB under the frame) to 0.95.
package final class SourceConfidenceCalibration {
    /// Set to report the tracker's own confidence (to refit the weights from records).
    package static let isIdentity = false
    /// The model's weights: intercept, confidence, log age, level re the frame per 10 dB
    /// (`confidence.py --fit`, 2026-11-29, on the tracker with stand-ins held).
    static let intercept = 0.635, confidenceWeight = 1.557, ageWeight = 0.275, levelWeight = 0.137
    /// Ids remembered (a few times `maxSources`: a source long gone is old anyway).
    static let capacity = 32
    /// Age beyond which a source counts as old, seconds.
    static let oldSeconds = 10.0

    private var ids: [Int], firstTimes: [Double]
    private var next = 0

    package init() {
        ids = [Int](repeating: 0, count: Self.capacity)
        firstTimes = [Double](repeating: 0, count: Self.capacity)
    }

    /// Forgets every id.
    package func reset() {
        for i in ids.indices { ids[i] = 0 }
        next = 0
    }

    /// The seconds since `id` was first listed, remembering it at `time` when new (ids start
    /// at 1; 0 marks an empty place). An id forgotten from the ring counts as old.
    private func age(of id: Int, at time: Double) -> Double {
        var oldest = Int.max
        for i in ids.indices where ids[i] != 0 {
            if ids[i] == id { return time - firstTimes[i] }
            oldest = min(oldest, ids[i])
        }
        if oldest != Int.max && id < oldest && ids[next] != 0 { return Self.oldSeconds }
        ids[next] = id
        firstTimes[next] = time
        next = (next + 1) % Self.capacity
        return 0
    }

    /// The measured confidence of a source (see the type's notes).
    /// - Parameters:
    ///   - confidence: the tracker's, 0…1.
    ///   - age: seconds since its id was first listed.
    ///   - levelDBFS: its level; `frameLevelDBFS` the frame's.
    static func calibrated(confidence: Double, age: Double, levelDBFS: Double, frameLevelDBFS: Double) -> Double {
        let a = log1p(min(max(0, age), oldSeconds))
        let l = min(10, max(-40, levelDBFS - frameLevelDBFS)) / 10
        let z = intercept + confidenceWeight * confidence + ageWeight * a + levelWeight * l
        return 1 / (1 + exp(-z))
    }

    /// Replaces each source's confidence by the measured one.
    /// - Parameters:
    ///   - sources: the record's sources (the tracker's confidences in, measured ones out).
    ///   - time: the record's time, seconds.
    ///   - frameLevelDBFS: the record's level.
    package func calibrate(_ sources: inout [SourceRecord], time: Double, frameLevelDBFS: Double) {
        for i in sources.indices {
            let age = age(of: sources[i].id, at: time)
            guard !Self.isIdentity else { continue }
            sources[i].confidence = Self.calibrated(
                confidence: sources[i].confidence, age: age, levelDBFS: sources[i].levelDBFS,
                frameLevelDBFS: frameLevelDBFS)
        }
    }
}
