#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Front/back for each tracked source on its own, so that a source ahead and one behind, heard
/// together by a turning listener, each get their own hemisphere.
///
/// **Two hypotheses per bearing.** A far source at world bearing ψ (relative to yaw 0), heard
/// by the pair at yaw `y`, sits at the lateral bearing φ ∈ [−90, 90] with `sin φ = sin(ψ − y)`.
/// So each measured φ puts the source at one of two world bearings: `y + φ` if it is in front,
/// `y + 180° − φ` if it is behind. As the head turns, the true one stays put in the world; the
/// other moves by twice the yaw change.
///
/// **A world-bearing histogram.** Every frame that is active and has a yaw, each of the frame's
/// candidate directions (``SourceCandidateFinder``, the peaks of the averaged correlation) votes
/// for both of its world bearings, weighted by its share of the evidence, into a histogram of
/// ``binCount`` bins of ``binWidth``° over the circle, which forgets with a time constant of
/// ``timeConstant``. The true bearings of still sources pile up; their mirror images smear.
/// Candidates, not tracked sources, vote: the candidates follow the head at once, while the
/// tracked bearings are smoothed and held through pauses.
///
/// **Each source.** A tracked source (``MultiSourceTracker``, whose ids and smoothed bearings
/// the records list) at φ (the bearing of the candidate its track took this frame: the tracker
/// gives a candidate to one track at most, so two sources near a crossing do not both read the
/// nearer one; else its tracked bearing) takes the hemisphere whose world bearing holds the
/// clearly larger mass, summed over ±``neighbourhood`` bins: at least ``margin`` times the
/// other's, and the two together at least ``minimumMass``. Where neither is clearly larger (the
/// two readings nearly meet near the pair's axis, or another source's true bearing sits on this
/// one's mirror image) the source keeps the hemisphere its track holds (the last decision, moved
/// across the pair's axis by the turn and kept through an id taken back: it goes with the track,
/// not the id), or stays `.unknown`; so it does too while its track took no candidate (not
/// heard, its tracked bearing held).
///
/// **Another source's bins.** Where neither reading is clearly larger and the source's track
/// holds no hemisphere yet (a new track), the two are weighed again without the bins within
/// ±``neighbourhood`` of the world bearing of every other source that holds a hemisphere and
/// whose track took a candidate this frame. A source ahead and one behind heard a few degrees
/// apart in lateral bearing (both near the pair's axis at a turn's extreme, say) put each one's
/// mirror reading those few degrees from the other's true bearing: the mass there is the other
/// source's, not evidence for this one. A track that holds a hemisphere keeps it instead
/// (reading the other sources' bins out for those too lowered one test scene's source,
/// 96.9 → 96.8 %).
///
/// Nothing is resolved while the yaw has swept less than ``minimumSweep`` over the last
/// ``sweepWindow``: without turning, both readings pile up alike.
///
/// Life cycle: `init` allocates everything; ``update(yaw:active:candidates:count:sources:heardAzimuths:heardShares:)``
/// never allocates.
package struct SourceFrontBack {
    /// Width of a histogram bin, degrees.
    static let binWidth = 2.0
    /// Bins over the circle.
    static let binCount = 180
    /// Time constant of the histogram's forgetting, seconds.
    static let timeConstant = 3.0
    /// Seconds over which the yaw's sweep is measured.
    static let sweepWindow = 4.0
    /// Smallest yaw sweep (largest minus smallest yaw over ``sweepWindow``), degrees, before any
    /// source is resolved.
    static let minimumSweep = 15.0
    /// Smallest share of the evidence a candidate needs to vote (0…1).
    static let minimumShare = 0.05
    /// Bins summed either side of a hypothesis's bin (±8°).
    static let neighbourhood = 4
    /// How many times the other's mass a hypothesis needs to win.
    static let margin = 1.25
    /// Smallest mass of the two hypotheses together (a sum of decayed shares) for a decision.
    static let minimumMass = 1.0

    private var histogram: [Double]
    private let decay: Double
    private var yaws: [Double]
    private var yawHead = 0, yawCount = 0
    /// The hemisphere of each source of the last update, in the sources' order (entries past
    /// their count are stale).
    package private(set) var hemispheres: [Hemisphere]

    /// - Parameters:
    ///   - capacity: most sources listed at once (``MultiSourceTracker/Configuration/maxSources``), ≥ 0.
    ///   - hopDuration: seconds between frames, > 0.
    package init(capacity: Int, hopDuration: Double) {
        histogram = [Double](repeating: 0, count: Self.binCount)
        decay = exp(-hopDuration / Self.timeConstant)
        yaws = [Double](repeating: 0, count: max(1, Int((Self.sweepWindow / hopDuration).rounded(.up))))
        hemispheres = [Hemisphere](repeating: .unknown, count: max(0, capacity))
    }

    /// Forgets everything.
    package mutating func reset() {
        for b in histogram.indices { histogram[b] = 0 }
        yawHead = 0
        yawCount = 0
        for i in hemispheres.indices { hemispheres[i] = .unknown }
    }

    /// The histogram's position of a world bearing, in bins from bearing 0, in [0, binCount).
    private static func position(_ bearing: Double) -> Double {
        let turns = bearing / 360
        let wrapped = (turns - turns.rounded(.down)) * Double(binCount)
        return wrapped < Double(binCount) ? wrapped : 0
    }

    /// Adds `weight` at world bearing `bearing`, shared linearly between the two nearest bins.
    private mutating func vote(_ bearing: Double, weight: Double) {
        let p = Self.position(bearing)
        let low = Int(p), fraction = p - Double(low)
        histogram[low] += weight * (1 - fraction)
        histogram[(low + 1) % Self.binCount] += weight * fraction
    }

    /// The histogram's mass within ±``neighbourhood`` bins of world bearing `bearing` (degrees),
    /// over the bins (indices) that `counts` accepts: all of them unless told.
    private func mass(_ bearing: Double, counting counts: (Int) -> Bool = { _ in true }) -> Double {
        let centre = Int(Self.position(bearing).rounded()) % Self.binCount
        var sum = 0.0
        for k in -Self.neighbourhood...Self.neighbourhood {
            let bin = (centre + k + Self.binCount) % Self.binCount
            if counts(bin) { sum += histogram[bin] }
        }
        return sum
    }

    /// Whether histogram bin `bin` lies within ±``neighbourhood`` bins of the world bearing of a
    /// source of `sources` other than `source` that holds a hemisphere and whose track took a
    /// candidate this frame (at that candidate's bearing, `heardAzimuths`, degrees; share ≥
    /// ``minimumShare``), with the listener at `yaw` (degrees, unwrapped).
    private static func isAnotherSourcesBin(
        _ bin: Int, apartFrom source: Int, yaw: Double, sources: [SourceRecord], heardAzimuths: [Double],
        heardShares: [Double]
    ) -> Bool {
        for other in 0..<min(sources.count, min(heardAzimuths.count, heardShares.count)) where other != source {
            let phi = heardAzimuths[other]
            guard phi.isFinite, heardShares[other] >= minimumShare else { continue }
            let world: Double
            switch sources[other].hemisphere {
            case .front: world = yaw + phi
            case .back: world = yaw + 180 - phi
            case .unknown: continue
            }
            let d = abs(bin - Int(position(world).rounded()) % binCount)
            if min(d, binCount - d) <= neighbourhood { return true }
        }
        return false
    }

    /// The reading whose mass is at least ``margin`` times the other's, the two holding at
    /// least ``minimumMass`` together; nil when neither is clearly larger.
    private static func clearReading(front: Double, back: Double) -> Hemisphere? {
        guard front + back >= minimumMass else { return nil }
        if front >= margin * back { return .front }
        if back >= margin * front { return .back }
        return nil
    }

    /// The yaw's sweep over the last ``sweepWindow``: largest minus smallest, degrees.
    private var sweep: Double {
        guard yawCount > 0 else { return 0 }
        var low = Double.infinity, high = -Double.infinity
        for i in 0..<yawCount {
            low = min(low, yaws[i])
            high = max(high, yaws[i])
        }
        return high - low
    }

    /// Advances one frame and sets ``hemispheres`` for `sources`.
    /// - Parameters:
    ///   - yaw: the unwrapped yaw at the frame, degrees (`nil` where the IMU says nothing: no
    ///     votes, and every source `.unknown`).
    ///   - active: whether the activity detector marks the frame active (only active frames vote).
    ///   - candidates: the frame's candidate directions (bearing in [−90, 90], share 0…1).
    ///   - count: how many of `candidates` are valid.
    ///   - sources: the tracker's sources this frame (at most `capacity`; bearings in [−90, 90]),
    ///     each with the hemisphere its track holds (``SourceRecord/hemisphere``, `.unknown` if none).
    ///   - heardAzimuths: for each of `sources`, the bearing of the candidate its track took this
    ///     frame, degrees (NaN: none; see ``MultiSourceTracker/heardAzimuths``).
    ///   - heardShares: that candidate's share of the evidence, 0…1.
    package mutating func update(
        yaw: Double?, active: Bool, candidates: [SourceCandidate], count: Int, sources: [SourceRecord],
        heardAzimuths: [Double], heardShares: [Double]
    ) {
        for b in histogram.indices { histogram[b] *= decay }
        guard let yaw else {
            for i in hemispheres.indices { hemispheres[i] = .unknown }
            return
        }
        yaws[yawHead] = yaw
        yawHead = (yawHead + 1) % yaws.count
        yawCount = min(yawCount + 1, yaws.count)
        if active {
            for j in 0..<min(count, candidates.count) where candidates[j].share >= Self.minimumShare {
                let phi = candidates[j].azimuth, weight = candidates[j].share
                vote(yaw + phi, weight: weight)
                vote(yaw + 180 - phi, weight: weight)
            }
        }
        let turned = sweep >= Self.minimumSweep
        let listed = min(sources.count, hemispheres.count)
        for i in 0..<listed {
            var hemisphere = Hemisphere.unknown
            if turned {
                // The hemisphere the source's track holds: decided in an earlier frame, moved
                // across the pair's axis by the turn, and kept through an id taken back.
                let previous = sources[i].hemisphere
                // Read the candidate the source's track took this frame (the tracker gives each
                // candidate to one track at most): not its tracked bearing, which is smoothed and
                // moved by the turn in the hemisphere it holds, nor the nearest candidate, which
                // near a crossing is the other source's.
                var phi = sources[i].azimuth
                let heard = i < heardAzimuths.count && heardAzimuths[i].isFinite
                    && i < heardShares.count && heardShares[i] >= Self.minimumShare
                if heard {
                    phi = heardAzimuths[i]
                } else if previous != .unknown {
                    // Not heard this frame: its bearing is held; it keeps its hemisphere.
                    hemispheres[i] = previous
                    continue
                }
                let front = mass(yaw + phi), back = mass(yaw + 180 - phi)
                if front + back >= Self.minimumMass {
                    hemisphere = Self.clearReading(front: front, back: back) ?? previous
                    if hemisphere == .unknown {
                        // A track that holds no hemisphere yet, its readings tied: one of them
                        // may sit in the bins of another source heard this frame, whose mass is
                        // that source's, not evidence for this one. Weighed without those bins.
                        let ownFront = mass(yaw + phi) {
                            !Self.isAnotherSourcesBin(
                                $0, apartFrom: i, yaw: yaw, sources: sources, heardAzimuths: heardAzimuths,
                                heardShares: heardShares)
                        }
                        let ownBack = mass(yaw + 180 - phi) {
                            !Self.isAnotherSourcesBin(
                                $0, apartFrom: i, yaw: yaw, sources: sources, heardAzimuths: heardAzimuths,
                                heardShares: heardShares)
                        }
                        hemisphere = Self.clearReading(front: ownFront, back: ownBack) ?? .unknown
                    }
                }
            }
            hemispheres[i] = hemisphere
        }
    }
}
