#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Follows up to ``Configuration/maxSources`` sources from the candidate directions of
/// each frame (``SourceCandidateFinder``) and fills ``AnalysisRecord/sources``.
///
/// - **Association.** Each track predicts its bearing from its velocity and, with an IMU, from
///   the listener's own turning in its own hemisphere (see ``turned(_:hemisphere:by:)``: a
///   source ahead moves against the turn, one behind with it); candidate–track pairs closer
///   than ``gateDegrees`` are matched greedily, nearest first, one candidate per track.
///   Prediction keeps identities when two sources cross, as far as their speeds differ, and
///   when a turning listener moves a source ahead and one behind across each other.
/// - **Hemispheres.** A source's hemisphere is told by ``setHemisphere(_:ofSourceWithID:)``
///   (from ``SourceFrontBack``) after each frame; the turn moves it across the pair's axis
///   where the yaw carries it there. A source of unknown hemisphere, and a tentative track,
///   is not moved by the turn.
/// - **Birth.** An unmatched candidate at least ``birthStrength`` strong starts a tentative
///   track; it becomes a source once matched in ``birthHits`` frames by such candidates, and
///   is dropped after ``tentativeMisses`` frames in a row without one. A stand-in for a
///   source's missing peak (see `standsIn`: an image off the floor, the ceiling or a wall
///   ahead or behind, holding the higher peak while the source's own is gone) starts its
///   tentative track with no hit and grows it by none, for up to ``standInSeconds``. A tentative
///   track none of whose candidates led onsets of their own (``SourceCandidate/leadsOnsets``),
///   told in at least ``onsetlessShare`` of its hits, is not confirmed: the room's late
///   reverberation (a lone talker's peak at the other end-fire) rises without onsets.
/// - **Ids.** A new source gets the next id, from 1. A source that went quiet and was dropped
///   is remembered for ``recallSeconds``: a new source within ``gateDegrees`` of where it was
///   last heard, or of where its velocity would have carried it (for up to
///   ``recallCoastSeconds``), both moved by the listener's turning since then in its
///   hemisphere, takes its id back (the nearest such), and its hemisphere, so a talker who pauses
///   between sentences, or waits while another talks, keeps one id. Two sources never share
///   an id; a source dropped as a reflection is not remembered.
/// - **Reflections.** Each track smooths its candidates' ``SourceCandidate/echo`` (share
///   ``echoSmoothing`` per match). From ``echoLimit`` on it is taken for a reflection of a
///   stronger source: a tentative track is not confirmed, and a source is dropped (were it a
///   talker after all, its candidates start a new track, which is confirmed once their echo
///   falls). Of two co-varying candidates, the one that continues the older source is taken
///   for the direct path, whichever peak is higher in the frame (see `assignEchoes`).
///   A steady source's reflection (``SourceCandidate/steadyReflection``) starts no track but
///   may feed a source already confirmed (a talker near it takes that peak while silent). A
///   source that has only been fed by such candidates for a while (their smoothed share of its
///   matches at least ``steadyFeedLimit``), never took a candidate of the onset average
///   (``SourceCandidate/fromOnsets``: new sound beside the steady one), and was confirmed after
///   a source that never took one either (a steady source) is dropped: it is the reflection's
///   own track, born before the image test marked its peak. When the level ripples named those
///   candidates the later copy (``SourceCandidate/laterCopy``: their smoothed share at least
///   ``steadyFeedLimit`` too), the condition on age is not needed: a reflection heard before its
///   source is dropped all the same. A talker beside a steady source is
///   read from the onsets, so it keeps its track through its pauses; and a steady source whose
///   reflection outgrows it for a while in the plain average (the image test then marks the
///   weaker, the source) was heard first, so it stays. (On the steady-noise room sweep, RT60
///   0.3 s, noise as loud as the talker: false sources 9.9 % → 9.4 %, over four sensor-noise
///   seeds 10.6 % → 10.1 % on average, the talker's and the noise's shares within 0.1 point.
///   Without the onset condition the talker at RT60 0.6 s fell 60.3 → 60.1 %; without the
///   condition on age a noise at −50° was dropped for its floor reflection, 98 % → 76 % of its
///   frames.)
/// - **Death.** A source not matched for ``deathSeconds``, or for ``patience`` times the frames
///   it was matched in if fewer, is dropped. While not matched it keeps its bearing (its
///   velocity fades) and is reported inactive once ``activeHoldSeconds`` pass, plus up to
///   ``confidentHoldSeconds`` more the more confident it is.
/// - **Smoothing.** An alpha-beta filter on the bearing (α = ``positionGain``, β =
///   ``velocityGain``), velocity at most ``maximumSpeed``.
/// - **Confidence** follows the source's share of the evidence (and its peak's height) with the
///   window's time constant, and falls towards 0 while it is not heard. **Level** is the
///   window's frame level times the source's share, dBFS.
/// - A tentative track can only become a source while fewer than `maxSources` exist, or by
///   replacing the weakest inactive one.
///
/// - **Reported.** Each source record carries the hemisphere the track holds before this
///   frame's decision (``SourceRecord/hemisphere``), and ``heardAzimuths`` the candidate it took:
///   ``SourceFrontBack`` decides each source from its own candidate, and falls back on the
///   track's hemisphere, so the decision follows the track through id changes and recalls.
///
/// Life cycle: `init` allocates; ``update(candidates:count:averageLevelDBFS:yaw:into:)`` and
/// ``setHemisphere(_:ofSourceWithID:)`` never allocate (given a `sources` array it may write into without copying).
package final class MultiSourceTracker {
    /// What the tracker needs of the analysis settings (the analyzer's `AnalysisConfiguration`
    /// gives one).
    package struct Configuration: Sendable, Equatable {
        /// Most sources reported at once (> 0).
        package var maxSources: Int
        /// Time between frames, seconds.
        package var hopDuration: Double
        /// The sources' averaging window, seconds.
        package var sourceWindowSeconds: Double

        package init(maxSources: Int, hopDuration: Double, sourceWindowSeconds: Double) {
            self.maxSources = maxSources
            self.hopDuration = hopDuration
            self.sourceWindowSeconds = sourceWindowSeconds
        }
    }

    /// Largest distance between a track's predicted bearing and a candidate it takes, degrees.
    package static let gateDegrees = 12.0
    /// How long after a source was last heard a stand-in for its missing peak is held back
    /// (see `standsIn`), seconds.
    package static let standInSeconds = 1.0
    /// A stand-in's track began at most this long after the source was last heard, seconds
    /// (or before): a stand-in takes the source's place at once, a new sound after a pause
    /// does not.
    package static let standInStartSeconds = 0.05
    /// While the pair turns faster than this (degrees per second, averaged over about a
    /// second, from the yaw), no candidate stands in for a missing peak: a turn moves every
    /// source's peak, and a source whose hemisphere is not yet known (or wrongly) is predicted
    /// off its own (see `standsIn`).
    package static let standInTurnSpeed = 5.0
    /// Within this many degrees of the median plane a candidate counts as on either side.
    package static let medianPlaneDegrees = 5.0
    /// Matched frames before a tentative track becomes a source.
    package static let birthHits = 5
    /// Least candidate strength that starts or grows a tentative track (a source, once born,
    /// is kept by candidates down to ``SourceCandidateFinder/absoluteFloor``): hysteresis, so
    /// that the background's chance peaks do not become sources.
    package static let birthStrength = 0.08
    /// Frames in a row without a match after which a tentative track is dropped.
    package static let tentativeMisses = 2
    /// Seconds without a match after which a source is dropped.
    package static let deathSeconds = 1.5
    /// A source heard in `h` frames is dropped after at most `patience·h` frames without a
    /// match: a brief, weak source (a spurious one, most likely) goes quickly.
    package static let patience = 2
    /// Seconds without a match after which a source of no confidence is reported inactive.
    package static let activeHoldSeconds = 0.1
    /// Longest extra time a confident source stays active without a match, seconds: a talker
    /// who is masked by a louder one for a few syllables is still talking.
    package static let confidentHoldSeconds = 0.4
    /// Confidence from which a source gets the whole ``confidentHoldSeconds``.
    package static let confidentHoldConfidence = 0.2
    /// Share of the innovation taken into the bearing.
    package static let positionGain = 0.35
    /// Share of the innovation (per hop) taken into the velocity.
    package static let velocityGain = 0.02
    /// Largest velocity, degrees per second.
    package static let maximumSpeed = 120.0
    /// Smoothed ``SourceCandidate/echo`` from which a track counts as a reflection of a
    /// stronger source: not confirmed, or dropped. Independent talkers measured −0.5…0
    /// (frame by frame, one talker's peak falls when the other's rises: they share the bins);
    /// the reflections of one talker in a room +0.3…+0.5.
    package static let echoLimit = 0.3
    /// Share of a new candidate's echo taken into a track's.
    package static let echoSmoothing = 0.2
    /// A tentative track none of whose candidates led onsets of their own
    /// (``SourceCandidate/leadsOnsets`` false), judged in at least this share of its hits, is
    /// not confirmed: a peak of the room's late reverberation (in a lone talker's pauses, at the
    /// other end-fire) rises without onsets, a talker's syllables start in its direct sound. A
    /// share rather than any judged hit: a steady noise that the steady test misses at RT60
    /// 0.6 s is judged in a few of its frames (see ``ExcessCandidateSearch/holdsNewSoundLikeTheMost(_:)``).
    /// On `evaluate.py --steady` 0.2 cost such a noise a point (RT60 0.6 s, −5 dB), 0.3 nothing.
    package static let onsetlessShare = 0.3
    /// Share of each match in a source's smoothed share of matches that took a steady
    /// reflection's candidate (about 22 matches in a row reach ``steadyFeedLimit``).
    package static let steadyFeedSmoothing = 0.1
    /// A source whose smoothed share of matches that took a steady reflection's candidate
    /// reaches this may be dropped (see the type's notes). On the steady-noise room sweep,
    /// before the condition on age: at RT60 0.3 s, noise as loud as the talker, 0.8 gave 8.8 %
    /// false sources against 8.9 % with 0.9, but took the noise's share at RT60 0.6 s from
    /// 74.3 % to 72.3 %.
    package static let steadyFeedLimit = 0.9
    /// Candidate strength that counts as full confidence (with a share of 1).
    package static let fullStrength = 0.3
    /// How long the id of a source dropped for silence is kept for a new source at its
    /// bearing, seconds: turns in a conversation, a talker waiting while others speak.
    package static let recallSeconds = 30.0
    /// Longest time over which a dropped source's bearing is carried on by the velocity it had
    /// when last heard, seconds: a talker walking on through a pause is recalled where they
    /// are (a still one is recalled where they were).
    package static let recallCoastSeconds = 2.0

    private struct Track {
        var id = 0
        var azimuth = 0.0
        var velocity = 0.0
        var hits = 0
        /// Frames in a row without a match.
        var misses = 0
        var confidence = 0.0
        var levelDBFS = AnalysisRecord.silenceDBFS
        var confirmed = false
        var matched = false
        /// Smoothed ``SourceCandidate/echo`` of the candidates it took.
        var echo = 0.0
        /// Smoothed share of its matches that took a steady reflection's candidate
        /// (``SourceCandidate/steadyReflection``; share ``steadyFeedSmoothing`` per match).
        var steadyFeed = 0.0
        /// Smoothed share of its matches that took a candidate the level ripples name the later
        /// copy of another (``SourceCandidate/laterCopy``; share ``steadyFeedSmoothing`` per match).
        var laterFeed = 0.0
        /// Whether it ever took a candidate of the onset average (``SourceCandidate/fromOnsets``).
        var tookOnsets = false
        /// Matches whose candidate could be told to lead onsets of its own or not
        /// (``SourceCandidate/leadsOnsets`` not nil), and those whose candidate led them.
        var onsetsJudged = 0, onsetsLed = 0
        /// When it was confirmed, counting confirmations: which of two sources is older (an id
        /// taken back from a dropped source says nothing of that).
        var order = 0
        /// Bearing (degrees) and velocity (degrees per second) when last matched, and the frame.
        var heardAzimuth = 0.0, heardVelocity = 0.0, heardFrame = 0
        /// The frame it was started in.
        var bornFrame = 0
        /// Front/back relative to the pair, as last told (and moved across the axis by the turn).
        var hemisphere = Hemisphere.unknown
        /// The hemisphere and the yaw (degrees, unwrapped; nil without one) of the frame it was
        /// last matched in.
        var heardHemisphere = Hemisphere.unknown
        var heardYaw: Double?
        /// The bearing (degrees) of the candidate it took this frame and that candidate's
        /// share of the evidence (NaN and 0: none).
        var candidateAzimuth = Double.nan, candidateShare = 0.0
        /// A source heard within ``standInSeconds`` that no candidate of this frame lies near
        /// (see `standsIn`).
        var peakMissing = false
    }

    /// A source dropped for silence, as `recall` remembers it.
    private struct Gone {
        var id = 0
        /// Its bearing (degrees) and velocity (degrees per second) when last heard.
        var azimuth = 0.0, velocity = 0.0
        /// The frame it was last heard in and the one it was dropped in (see `frame`).
        var heardFrame = 0, droppedFrame = 0
        /// Its hemisphere and the yaw (degrees, unwrapped) when last heard.
        var hemisphere = Hemisphere.unknown
        var yaw: Double?
    }

    private let capacity: Int
    private let hop: Double
    private let smoothing: Double
    private var tracks: [Track]
    private var trackCount = 0
    private var nextID = 1
    /// Confirmations so far (``Track/order``).
    private var confirmations = 0
    /// Frames seen since the start or the last `reset`.
    private var frame = 0
    /// This frame's yaw and the last frame's, degrees (unwrapped; nil where the IMU says nothing).
    private var yaw: Double?, previousYaw: Double?
    /// How fast the pair turns, degrees per second, averaged over about a second (0 without
    /// yaw).
    private var turnSpeed = 0.0
    /// Sources dropped for silence, oldest first; the first `goneCount` are valid.
    private var gone: [Gone]
    private var goneCount = 0
    /// Frames a dropped source is remembered (``recallSeconds``).
    private let recallFrames: Int
    /// Frames a dropped source's bearing is carried on by its velocity (``recallCoastSeconds``).
    private let recallCoastFrames: Int
    /// Whether each candidate of this frame is taken by a track.
    private var taken: [Bool]
    /// The track each candidate of this frame went to (−1: none).
    private var trackOf: [Int]
    /// Each candidate's echo as the tracks take it (see `assignEchoes`).
    private var echoes: [Double]
    /// For each source of the last ``update(candidates:count:averageLevelDBFS:yaw:into:)``, in
    /// the records' order: the bearing of the candidate it took that frame, degrees (NaN: it
    /// took none), and that candidate's share of the evidence (0…1). No two sources took the
    /// same candidate. Entries past the records' count are stale.
    package private(set) var heardAzimuths: [Double]
    package private(set) var heardShares: [Double]

    /// - Parameters:
    ///   - configuration: the tracker's settings (``Configuration/maxSources`` > 0).
    ///   - candidateCapacity: most candidates per frame.
    package init(configuration: Configuration, candidateCapacity: Int) {
        self.capacity = max(1, configuration.maxSources)
        self.hop = configuration.hopDuration
        self.smoothing = min(1, configuration.hopDuration / configuration.sourceWindowSeconds)
        // Sources plus as many tentative tracks.
        self.tracks = [Track](repeating: Track(), count: 2 * max(1, configuration.maxSources) + candidateCapacity)
        self.taken = [Bool](repeating: false, count: max(1, candidateCapacity))
        self.trackOf = [Int](repeating: -1, count: max(1, candidateCapacity))
        self.echoes = [Double](repeating: 0, count: max(1, candidateCapacity))
        self.gone = [Gone](repeating: Gone(), count: 2 * max(1, configuration.maxSources))
        self.heardAzimuths = [Double](repeating: .nan, count: max(1, configuration.maxSources))
        self.heardShares = [Double](repeating: 0, count: max(1, configuration.maxSources))
        self.recallFrames = Int((Self.recallSeconds / configuration.hopDuration).rounded(.up))
        self.recallCoastFrames = Int((Self.recallCoastSeconds / configuration.hopDuration).rounded())
    }

    /// Forgets every track and every dropped source; ids start from 1 again.
    package func reset() {
        trackCount = 0
        nextID = 1
        confirmations = 0
        frame = 0
        goneCount = 0
        yaw = nil
        previousYaw = nil
        turnSpeed = 0
    }

    /// Empty storage for a record's sources, able to hold `maxSources` without growing.
    package static func makeRecords(capacity: Int) -> [SourceRecord] {
        var records: [SourceRecord] = []
        records.reserveCapacity(capacity)
        return records
    }

    /// Takes in one frame's candidates and writes the sources into `records` (by increasing id).
    /// - Parameters:
    ///   - candidates: the frame's candidates, strongest first; the first `count` are valid.
    ///   - averageLevelDBFS: the frame level averaged over the candidate window.
    ///   - yaw: the listener's yaw the candidates were heard at, degrees (unwrapped, from an IMU;
    ///     nil without one; ``SourceCandidateFinder/averageYaw``, which lags the frame's yaw as
    ///     the candidates' average lags the turn): its change since the last frame moves each
    ///     source of known hemisphere across the pair (see ``turned(_:hemisphere:by:)``).
    ///   - records: replaced by the sources (capacity kept).
    package func update(
        candidates: [SourceCandidate], count: Int, averageLevelDBFS: Double, yaw: Double? = nil,
        into records: inout [SourceRecord]
    ) {
        frame += 1
        previousYaw = self.yaw
        self.yaw = yaw.flatMap { $0.isFinite ? $0 : nil }
        let speed = self.yaw.flatMap { now in previousYaw.map { abs(now - $0) / hop } } ?? 0
        turnSpeed += min(1, hop) * (speed - turnSpeed)
        predict()
        associate(candidates: candidates, count: count, averageLevelDBFS: averageLevelDBFS)
        spawn(candidates: candidates, count: count)
        retire()
        write(into: &records)
    }

    /// Tells the source listed with `id` its hemisphere (from ``SourceFrontBack``), for the
    /// next frames' predictions and for its recall; no source with that id: nothing.
    package func setHemisphere(_ hemisphere: Hemisphere, ofSourceWithID id: Int) {
        for t in 0..<trackCount where tracks[t].confirmed && tracks[t].id == id {
            tracks[t].hemisphere = hemisphere
            // Where it was last heard it was in this hemisphere too, unless heard since then
            // in a known other one.
            if tracks[t].matched || tracks[t].heardHemisphere == .unknown { tracks[t].heardHemisphere = hemisphere }
        }
    }

    /// Where a still source at lateral bearing `lateral` (degrees, −90…90) in `hemisphere`
    /// (relative to the pair) is heard after the listener turns by `turn` degrees (clockwise
    /// positive), and its hemisphere then. Its bearing relative to the listener, `lateral`
    /// ahead or `180 − lateral` behind, falls by the turn; the pair hears the sine of it. So a
    /// source ahead moves against the turn and one behind with it, and one carried past the
    /// pair's axis turns back and changes hemisphere. `.unknown`: unmoved.
    package static func turned(_ lateral: Double, hemisphere: Hemisphere, by turn: Double) -> (lateral: Double, hemisphere: Hemisphere) {
        let relative: Double
        switch hemisphere {
        case .front: relative = lateral - turn
        case .back: relative = 180 - lateral - turn
        case .unknown: return (lateral, .unknown)
        }
        let radians = relative * Double.pi / 180
        let moved = asin(max(-1, min(1, sin(radians)))) * 180 / Double.pi
        return (moved, cos(radians) >= 0 ? .front : .back)
    }

    /// Moves every track by its velocity, and a source of known hemisphere by the turn since
    /// the last frame.
    private func predict() {
        var turn = 0.0
        if let yaw, let previousYaw { turn = yaw - previousYaw }
        for t in 0..<trackCount {
            var predicted = tracks[t].azimuth + tracks[t].velocity * hop
            if turn != 0 && tracks[t].confirmed && tracks[t].hemisphere != .unknown {
                (predicted, tracks[t].hemisphere) = Self.turned(
                    max(-90, min(90, predicted)), hemisphere: tracks[t].hemisphere, by: turn)
            }
            tracks[t].azimuth = max(-90, min(90, predicted))
            tracks[t].matched = false
            tracks[t].candidateAzimuth = .nan
            tracks[t].candidateShare = 0
        }
    }

    /// Matches candidates to tracks, nearest pair first, and updates the matched tracks.
    private func associate(candidates: [SourceCandidate], count: Int, averageLevelDBFS: Double) {
        for j in 0..<count { taken[j] = false; trackOf[j] = -1 }
        for t in 0..<trackCount {
            // Only a confirmed source heard lately can miss its peak (``standsIn``).
            tracks[t].peakMissing = false
            guard tracks[t].confirmed, Double(frame - tracks[t].heardFrame) * hop <= Self.standInSeconds else { continue }
            var near = false
            for j in 0..<count where abs(candidates[j].azimuth - tracks[t].azimuth) < Self.gateDegrees { near = true; break }
            tracks[t].peakMissing = !near
        }
        while true {
            var bestTrack = -1, bestCandidate = -1
            var bestDistance = Self.gateDegrees
            for t in 0..<trackCount where !tracks[t].matched {
                for j in 0..<count where !taken[j] {
                    // Sources win ties against tentative tracks.
                    let d = abs(candidates[j].azimuth - tracks[t].azimuth) - (tracks[t].confirmed ? 0.5 : 0)
                    if d < bestDistance { bestDistance = d; bestTrack = t; bestCandidate = j }
                }
            }
            guard bestTrack >= 0 else { break }
            taken[bestCandidate] = true
            trackOf[bestCandidate] = bestTrack
            let candidate = candidates[bestCandidate]
            var track = tracks[bestTrack]
            let innovation = candidate.azimuth - track.azimuth
            track.azimuth = max(-90, min(90, track.azimuth + Self.positionGain * innovation))
            track.velocity = max(
                -Self.maximumSpeed, min(Self.maximumSpeed, track.velocity + Self.velocityGain * innovation / hop))
            if !track.confirmed && (candidate.strength < Self.birthStrength || candidate.steadyReflection) {
                // Too weak to grow a tentative track: it counts as missed (the candidate is
                // still used up, so it does not start another).
                continue
            }
            if standsIn(candidate, bornFrame: track.bornFrame) {
                // Standing in for a missing peak: held, without a hit.
                track.matched = true
                track.misses = 0
                tracks[bestTrack] = track
                continue
            }
            track.hits += 1
            track.misses = 0
            track.matched = true
            track.heardAzimuth = track.azimuth
            track.heardVelocity = track.velocity
            track.heardFrame = frame
            track.heardYaw = yaw
            track.heardHemisphere = track.hemisphere
            track.candidateAzimuth = candidate.azimuth
            track.candidateShare = candidate.share
            track.confidence += smoothing * (Self.evidence(candidate) - track.confidence)
            let level = averageLevelDBFS + 10 * log10(max(candidate.share, 1e-6))
            track.levelDBFS = track.hits == 1 ? level : track.levelDBFS + smoothing * (level - track.levelDBFS)
            tracks[bestTrack] = track
        }
        assignEchoes(candidates: candidates, count: count)
        for j in 0..<count where trackOf[j] >= 0 && tracks[trackOf[j]].matched {
            tracks[trackOf[j]].echo += Self.echoSmoothing * (echoes[j] - tracks[trackOf[j]].echo)
            let fed: Double = candidates[j].steadyReflection ? 1 : 0
            tracks[trackOf[j]].steadyFeed += Self.steadyFeedSmoothing * (fed - tracks[trackOf[j]].steadyFeed)
            let later: Double = candidates[j].laterCopy ? 1 : 0
            tracks[trackOf[j]].laterFeed += Self.steadyFeedSmoothing * (later - tracks[trackOf[j]].laterFeed)
            if candidates[j].fromOnsets { tracks[trackOf[j]].tookOnsets = true }
            if let led = candidates[j].leadsOnsets {
                tracks[trackOf[j]].onsetsJudged += 1
                if led { tracks[trackOf[j]].onsetsLed += 1 }
            }
        }
        for t in 0..<trackCount where !tracks[t].matched {
            tracks[t].misses += 1
            tracks[t].velocity *= 0.8
            tracks[t].confidence -= smoothing * tracks[t].confidence
        }
    }

    /// Decides which of two co-varying candidates is the reflection, into `echoes`. The finder
    /// blames the weaker one (``SourceCandidate/echoPartner`` is the stronger). When the weaker
    /// one continues a source confirmed before the stronger one's track (or the stronger one
    /// has no source yet), the stronger one is the newcomer and takes the blame instead: a
    /// reflection is not heard before its source, so the source found first is the direct
    /// path. (In a room, the direct path and a reflection often trade places as the stronger
    /// peak; blaming the weaker one then dropped the talker and kept the wall.) A stronger
    /// candidate that is itself an echo of a still stronger one takes no blame from the weaker:
    /// both are reflections of that one's source.
    private func assignEchoes(candidates: [SourceCandidate], count: Int) {
        for j in 0..<count { echoes[j] = candidates[j].echo }
        for j in 0..<count {
            let i = candidates[j].echoPartner
            guard i >= 0, i < count, trackOf[j] >= 0, tracks[trackOf[j]].confirmed else { continue }
            // A partner that is itself an echo of a stronger peak is no direct path either: both
            // are reflections of that peak's source, and each keeps its own blame.
            if candidates[i].echo >= Self.echoLimit { continue }
            // The older source keeps its place.
            if trackOf[i] >= 0 && tracks[trackOf[i]].confirmed && tracks[trackOf[i]].order < tracks[trackOf[j]].order {
                continue
            }
            echoes[i] = max(echoes[i], candidates[j].echo)
            echoes[j] = 0
        }
    }

    /// What one frame's candidate says for its source, 0…1: its share of the frame's evidence
    /// times its peak's strength, full at ``fullStrength``. A track's confidence follows it.
    @inline(__always)
    private static func evidence(_ candidate: SourceCandidate) -> Double {
        min(1, candidate.share * candidate.strength / fullStrength)
    }

    /// Whether a candidate, of a tentative track started at `bornFrame`, stands in for a
    /// source whose own peak is missing from this frame: the source was heard within
    /// ``standInSeconds`` and has no candidate within ``gateDegrees``; the track began at most
    /// ``standInStartSeconds`` after the source was last heard (or before, beside it); and the
    /// candidate lies on the source's side (or within ``medianPlaneDegrees`` of the median
    /// plane), nearer the median plane than the source.
    ///
    /// An image off a surface parallel to the pair's axis (the floor, the ceiling, the walls
    /// ahead and behind) is the source seen from farther along the same lateral offset, so on
    /// its side and nearer the median plane. In a room it can hold the higher peak of the
    /// average for a few hundred milliseconds and hide the direct sound's (within
    /// ``SourceCandidateFinder/minimumSeparationSamples``), and at RT60 0.6 s go on standing
    /// through the talker's pause; nothing else heard then can show it to be a copy.
    ///
    /// Not for a candidate of the onset average (``SourceCandidate/fromOnsets``): it is new
    /// sound, and beside a steady source the plain candidates other than the steady sources
    /// are dropped by design. Not while the pair turns faster than ``standInTurnSpeed``: a
    /// turn moves every source's peak, and a talker heard again after a pause, more than
    /// ``gateDegrees`` from a track predicted into the wrong hemisphere, is no stand-in
    /// (`SourceFrontBackTests`: one such talker lost 20 of its 258 listed frames to the rule).
    /// Measured in Docs/Accuracy.md ("A stand-in for a missing peak").
    private func standsIn(_ candidate: SourceCandidate, bornFrame: Int) -> Bool {
        guard !candidate.fromOnsets, turnSpeed < Self.standInTurnSpeed else { return false }
        for t in 0..<trackCount where tracks[t].peakMissing {
            if Double(bornFrame - tracks[t].heardFrame) * hop > Self.standInStartSeconds { continue }
            let a = tracks[t].azimuth, c = candidate.azimuth
            if (c * a > 0 || abs(c) < Self.medianPlaneDegrees) && abs(c) < abs(a) { return true }
        }
        return false
    }

    /// Starts a tentative track at each candidate no track took, while there is room.
    private func spawn(candidates: [SourceCandidate], count: Int) {
        for j in 0..<count where !taken[j] && trackCount < tracks.count && candidates[j].strength >= Self.birthStrength
            && !candidates[j].steadyReflection {
            var track = Track()
            track.azimuth = candidates[j].azimuth
            // A stand-in starts held, with no hit (see `standsIn`).
            track.bornFrame = frame
            track.hits = standsIn(candidates[j], bornFrame: frame) ? 0 : 1
            track.matched = true
            track.echo = echoes[j]
            track.tookOnsets = candidates[j].fromOnsets
            if let led = candidates[j].leadsOnsets {
                track.onsetsJudged = 1
                track.onsetsLed = led ? 1 : 0
            }
            track.confidence = smoothing * Self.evidence(candidates[j])
            tracks[trackCount] = track
            trackCount += 1
        }
    }

    /// Confirms tentative tracks with enough hits, drops tracks missed too long.
    private func retire() {
        let deathFrames = Int((Self.deathSeconds / hop).rounded(.up))
        var t = 0
        while t < trackCount {
            let track = tracks[t]
            let reflection = track.echo >= Self.echoLimit
            // Fed by a reflection's candidates alone, never by an onset, and either named the
            // later copy by the level ripples or younger than a steady source (see the notes).
            let steadyImage = track.confirmed && track.steadyFeed >= Self.steadyFeedLimit && !track.tookOnsets
                && (track.laterFeed >= Self.steadyFeedLimit || hasOlderSteadySource(than: track))
            let dead = track.confirmed
                ? track.misses > min(deathFrames, Self.patience * track.hits) || reflection || steadyImage
                : track.misses >= Self.tentativeMisses
            if dead {
                // A reflection's track leaves no id to take back.
                if track.confirmed && !reflection && !steadyImage { remember(track) }
                tracks[t] = tracks[trackCount - 1]
                trackCount -= 1
                continue
            }
            t += 1
        }
        for t in 0..<trackCount
        where !tracks[t].confirmed && tracks[t].hits >= Self.birthHits && tracks[t].echo < Self.echoLimit
            && !Self.isOnsetless(tracks[t]) {
            var confirmedCount = 0
            var weakest = -1
            for u in 0..<trackCount where tracks[u].confirmed && tracks[u].misses < Int.max / 2 {
                confirmedCount += 1
                // Only a source reported inactive (see `write`) can give way.
                if Double(tracks[u].misses) * hop > holdSeconds(confidence: tracks[u].confidence)
                    && (weakest < 0 || tracks[u].confidence < tracks[weakest].confidence)
                {
                    weakest = u
                }
            }
            if confirmedCount >= capacity {
                guard weakest >= 0 else { continue }
                remember(tracks[weakest])
                tracks[weakest].misses = Int.max / 2  // dropped below
            }
            tracks[t].confirmed = true
            confirmations += 1
            tracks[t].order = confirmations
            if let k = recall(near: tracks[t].azimuth) {
                tracks[t].id = gone[k].id
                tracks[t].hemisphere = moved(gone[k], lateral: gone[k].azimuth).hemisphere
                tracks[t].heardHemisphere = tracks[t].hemisphere
                forget(k)
            } else {
                tracks[t].id = nextID
                nextID += 1
            }
        }
        // Drop replaced sources.
        var u = 0
        while u < trackCount {
            if tracks[u].misses >= Int.max / 2 {
                tracks[u] = tracks[trackCount - 1]
                trackCount -= 1
                continue
            }
            u += 1
        }
    }

    /// Whether a tentative track has no onsets of its own: none of its candidates led onsets
    /// (``SourceCandidate/leadsOnsets``) while at least ``onsetlessShare`` of its matches could
    /// be told. Such a track is not confirmed (it stays tentative, and is confirmed once one of
    /// its candidates leads onsets).
    private static func isOnsetless(_ track: Track) -> Bool {
        track.onsetsLed == 0 && Double(track.onsetsJudged) >= Self.onsetlessShare * Double(track.hits)
    }

    /// Whether a source confirmed before `track` never took a candidate of the onset average (a
    /// steady source, or a source heard without one).
    private func hasOlderSteadySource(than track: Track) -> Bool {
        for u in 0..<trackCount where tracks[u].confirmed && !tracks[u].tookOnsets && tracks[u].order < track.order {
            return true
        }
        return false
    }

    /// Keeps a dropped source's id and bearing for ``recallSeconds`` (the oldest is forgotten
    /// when every place is taken).
    private func remember(_ track: Track) {
        if goneCount == gone.count { forget(0) }
        gone[goneCount] = Gone(
            id: track.id, azimuth: track.heardAzimuth, velocity: track.heardVelocity, heardFrame: track.heardFrame,
            droppedFrame: frame, hemisphere: track.heardHemisphere, yaw: track.heardYaw)
        goneCount += 1
    }

    /// The remembered source nearest to `azimuth` within ``gateDegrees``, dropped at most
    /// ``recallSeconds`` ago (older ones are forgotten here), if any. Each is taken both where
    /// it was last heard and where its velocity would have carried it in up to
    /// ``recallCoastSeconds``, whichever is nearer, each moved by the listener's turning since
    /// it was heard (in its hemisphere).
    private func recall(near azimuth: Double) -> Int? {
        while goneCount > 0 && frame - gone[0].droppedFrame > recallFrames { forget(0) }
        var best: Int?
        var bestDistance = Self.gateDegrees
        for k in 0..<goneCount {
            // Where it was, or where its velocity carried it: a still talker's velocity is the
            // noise of its bearings, and carried on for two seconds could take it out of the gate.
            let coast = Double(min(frame - gone[k].heardFrame, recallCoastFrames)) * hop
            let carried = max(-90, min(90, gone[k].azimuth + gone[k].velocity * coast))
            let d = min(
                abs(moved(gone[k], lateral: gone[k].azimuth).lateral - azimuth),
                abs(moved(gone[k], lateral: carried).lateral - azimuth))
            if d <= bestDistance { bestDistance = d; best = k }
        }
        return best
    }

    /// A remembered source's lateral bearing `lateral` (degrees) as the listener's turning
    /// since it was heard moves it, and its hemisphere now (unmoved without both yaws).
    private func moved(_ source: Gone, lateral: Double) -> (lateral: Double, hemisphere: Hemisphere) {
        guard let yaw, let heardYaw = source.yaw else { return (lateral, source.hemisphere) }
        return Self.turned(lateral, hemisphere: source.hemisphere, by: yaw - heardYaw)
    }

    /// Removes remembered source `k`, keeping the rest oldest first.
    private func forget(_ k: Int) {
        for m in k..<(goneCount - 1) { gone[m] = gone[m + 1] }
        goneCount -= 1
    }

    /// How long a source stays active without a match: ``activeHoldSeconds``, plus up to
    /// ``confidentHoldSeconds`` as its confidence approaches ``confidentHoldConfidence``.
    private func holdSeconds(confidence: Double) -> Double {
        Self.activeHoldSeconds + Self.confidentHoldSeconds * min(1, max(0, confidence) / Self.confidentHoldConfidence)
    }

    /// The sources, by increasing id.
    private func write(into records: inout [SourceRecord]) {
        records.removeAll(keepingCapacity: true)
        var lastID = 0
        // Ids are few: pick the next larger one each pass.
        while records.count < capacity {
            var next = -1
            for t in 0..<trackCount where tracks[t].confirmed && tracks[t].id > lastID {
                if next < 0 || tracks[t].id < tracks[next].id { next = t }
            }
            guard next >= 0 else { break }
            let track = tracks[next]
            lastID = track.id
            heardAzimuths[records.count] = track.matched ? track.candidateAzimuth : .nan
            heardShares[records.count] = track.matched ? track.candidateShare : 0
            // The hemisphere it holds: as last told, moved across the pair's axis by the turn,
            // or recalled with its id (`.unknown` without an IMU).
            var record = SourceRecord(
                id: track.id, azimuth: track.azimuth, confidence: max(0, min(1, track.confidence)),
                levelDBFS: max(AnalysisRecord.silenceDBFS, track.levelDBFS),
                active: Double(track.misses) * hop <= holdSeconds(confidence: track.confidence))
            record.hemisphere = track.hemisphere
            records.append(record)
        }
    }
}
