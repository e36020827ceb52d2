import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// The multi-source tracker (``AnalysisRecord/sources``) on free-field scenes of speech-like
/// talkers (15 cm spaced pair, 48 kHz, white sensor noise at 20 dB SNR, seeded).
///
/// A talker counts as active in a frame when its own signal, rendered alone, is within 15 dB of
/// its speaking level in that frame (the scenes have no per-source truth of their own); the
/// first second is warm-up and is not judged.
struct MultiSourceTests {
    /// Figures of one scene.
    struct Figures: CustomStringConvertible {
        /// Per talker: share of its active frames with a reported source within 10°.
        var hitRates: [Double]
        /// Reported sources farther than 15° from every talker, over all reported sources.
        var falseShare: Double
        /// Per talker: how often the id of the nearest source within 10° changed (after acquisition).
        var idSwitches: [Int]
        /// Frames (after warm-up, any talker active) with more than one source reported.
        var multipleShare: Double
        var description: String {
            "hit rates \(hitRates.map { String(format: "%.3f", $0) }), false \(String(format: "%.3f", falseShare)), "
                + "id switches \(idSwitches), >1 source in \(String(format: "%.3f", multipleShare))"
        }
    }

    static let sampleRate = 48000.0

    /// Talkers at `azimuths` (speech-like, −20 dBFS, seeds 11, 12, …) for `duration` seconds.
    static func scene(_ azimuths: [Double], duration: Double = 8) -> Scene {
        Scene(
            sampleRate: sampleRate, duration: duration,
            sources: azimuths.enumerated().map { i, azimuth in
                Source(.speech, azimuth: azimuth, levelDBFS: -20, seed: UInt64(11 + i))
            },
            noise: SensorNoise(snrDecibels: 20, seed: 5))
    }

    /// Per frame, whether each source of `scene` is active (see the type's notes).
    static func activity(_ scene: Scene, configuration: AnalysisConfiguration, frames: Int) -> [[Bool]] {
        scene.sources.map { source in
            var alone = scene
            alone.sources = [source]
            alone.noise = nil
            let signal = alone.render()
            let threshold = source.levelDBFS - 15
            return (0..<frames).map { i in
                let start = i * configuration.hopLength
                let end = min(signal.count, start + configuration.frameLength)
                guard end > start else { return false }
                var power = 0.0
                for n in start..<end {
                    power += Double(signal.left[n] * signal.left[n] + signal.right[n] * signal.right[n]) / 2
                }
                return 10 * log10(power / Double(end - start) + 1e-16) >= threshold
            }
        }
    }

    /// The figures of `scene`; id switches are counted from `acquired` seconds on. Only the first
    /// `judged` sources (all by default) are true sources; the others are rendered but are not
    /// to be reported.
    static func figures(
        _ scene: Scene, configuration: AnalysisConfiguration? = nil, acquired: Double = 2, judged: Int? = nil
    ) throws -> Figures {
        let config = configuration ?? AnalysisConfiguration(sampleRate: sampleRate)
        let records = try analyze(scene.render(), configuration: config)
        var truthScene = scene
        truthScene.sources = Array(scene.sources.prefix(judged ?? scene.sources.count))
        let active = activity(truthScene, configuration: config, frames: records.count)
        let truth = truthScene.sources.map { $0.path.azimuth(at: 0) }
        var hits = [Int](repeating: 0, count: truth.count), judged = hits
        var ids = [Int?](repeating: nil, count: truth.count), switches = hits
        var reported = 0, falseCount = 0, busy = 0, multiple = 0
        for (i, record) in records.enumerated() where record.time >= 1 {
            reported += record.sources.count
            falseCount += record.sources.filter { s in truth.allSatisfy { abs(s.azimuth - $0) > 15 } }.count
            if truth.indices.contains(where: { active[$0][i] }) {
                busy += 1
                if record.sources.count > 1 { multiple += 1 }
            }
            for t in truth.indices where active[t][i] {
                judged[t] += 1
                let near = record.sources.filter { abs($0.azimuth - truth[t]) <= 10 }
                    .min { abs($0.azimuth - truth[t]) < abs($1.azimuth - truth[t]) }
                guard let near else { continue }
                hits[t] += 1
                if let id = ids[t], id != near.id, record.time >= acquired { switches[t] += 1 }
                ids[t] = near.id
            }
        }
        return Figures(
            hitRates: truth.indices.map { Double(hits[$0]) / Double(max(1, judged[$0])) },
            falseShare: Double(falseCount) / Double(max(1, reported)), idSwitches: switches,
            multipleShare: Double(multiple) / Double(max(1, busy)))
    }

    // Measured (seeds 11, 12, 13; noise seed 5), with the default settings:
    //   two talkers −40°/+30°: hit rates 0.873 / 0.913, false 0.000, no id switch after 2 s
    //     (the candidates' tail weighting costs the talkers some frames of their words' ends
    //     here: without it 1.000 / 0.942, but with 12.9 % false sources).
    //   three talkers −50°/0°/+45°: 0.785 / 0.986 / 0.854, false 0.000 (id switches 1, 0, 1).
    //   one talker at 20° or −65°: hit rate 1.000, a second source in 0.0 % of the frames (with
    //     reflections reported, `echoLimit` 2: 7.6 % and 10.1 %).

    @Test("two talkers at −40° and +30°: each within 10° in ≥ 85 % of its frames, ≤ 10 % false, stable ids")
    func twoTalkers() throws {
        let f = try Self.figures(Self.scene([-40, 30]))
        #expect(f.hitRates.allSatisfy { $0 >= 0.85 }, "\(f)")
        #expect(f.falseShare <= 0.10, "\(f)")
        #expect(f.idSwitches == [0, 0], "\(f)")
    }

    @Test("three talkers at −50°, 0° and +45°: each within 10° in ≥ 70 % of its frames")
    func threeTalkers() throws {
        let f = try Self.figures(Self.scene([-50, 0, 45]))
        #expect(f.hitRates.allSatisfy { $0 >= 0.70 }, "\(f)")
        #expect(f.falseShare <= 0.10, "\(f)")
    }

    @Test("one talker gives one source (a second in ≤ 5 % of the frames)", arguments: [20.0, -65.0])
    func singleTalker(azimuth: Double) throws {
        let f = try Self.figures(Self.scene([azimuth]))
        #expect(f.hitRates[0] >= 0.95, "\(f)")
        #expect(f.multipleShare <= 0.05, "\(f)")
        #expect(f.falseShare <= 0.05, "\(f)")
        #expect(f.idSwitches == [0], "\(f)")
    }

    /// A talker at +20° and its reflection from −35°: the same signal 6 ms later and 6 dB
    /// quieter (a strong early reflection, as from a near wall). The reflection's peak in the
    /// correlation rises and falls with the talker's, so ``SourceCandidate/echo`` marks it.
    static func reflectionScene() -> Scene {
        let duration = 8.0, delay = 0.006
        return Scene(
            sampleRate: sampleRate, duration: duration,
            sources: [
                // Equal lengths and seeds: the same dry signal, the second one `delay` later.
                Source(.speech, azimuth: 20, start: 0, end: duration - delay, levelDBFS: -20, seed: 11),
                Source(.speech, azimuth: -35, start: delay, end: duration, levelDBFS: -26, seed: 11),
            ],
            noise: SensorNoise(snrDecibels: 20, seed: 5))
    }

    // Measured: hit rate 1.000 for the talker, a second source in 0.0 % of the frames, false
    // 0.000 (with reflections reported, `echoLimit` raised to 2: a second source in 11.4 % of
    // the frames, false 0.073).
    @Test("a talker's strong early reflection is not reported as a second source")
    func reflection() throws {
        // Only the talker is judged: the reflection is not a source.
        let f = try Self.figures(Self.reflectionScene(), judged: 1)
        #expect(f.hitRates[0] >= 0.95, "\(f)")
        #expect(f.multipleShare <= 0.05, "\(f)")
        #expect(f.falseShare <= 0.05, "\(f)")
        #expect(f.idSwitches == [0], "\(f)")
    }

    /// Runs `phases` through `tracker`, each a number of frames whose candidates are given by
    /// the frame's index within the phase; the records of each phase.
    static func run(
        _ tracker: MultiSourceTracker, capacity: Int, _ phases: [(frames: Int, candidates: (Int) -> [SourceCandidate])]
    ) -> [[[SourceRecord]]] {
        var records = MultiSourceTracker.makeRecords(capacity: capacity)
        return phases.map { phase in
            (0..<phase.frames).map { f in
                let c = phase.candidates(f)
                tracker.update(candidates: c, count: c.count, averageLevelDBFS: -20, into: &records)
                return records
            }
        }
    }

    /// Feeds `frames` frames of the same candidates to `tracker` and returns the records.
    static func feed(
        _ tracker: MultiSourceTracker, _ candidates: [SourceCandidate], frames: Int, capacity: Int
    ) -> [[SourceRecord]] {
        run(tracker, capacity: capacity, [(frames, { _ in candidates })])[0]
    }

    /// A talker heard alone for a second, then with a co-varying peak (`echo` 0.6 between the
    /// two, as ``SourceCandidateFinder`` measures a reflection) that is the higher one in every
    /// frame: the source found first stays the source, the newcomer is not confirmed. With the
    /// order swapped (the other direction heard first), the other direction is kept: the rule
    /// follows who was heard first, not which bearing.
    @Test("of two co-varying peaks, the one that continues the older source is the direct path", arguments: [false, true])
    func echoBlamesTheNewcomer(swapped: Bool) {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let first = swapped ? -12.0 : -40.0, second = swapped ? -40.0 : -12.0
        let second1 = Int((1 / config.hopDuration).rounded())
        let alone = Self.feed(
            tracker, [SourceCandidate(azimuth: first, strength: 0.3, share: 1)], frames: second1,
            capacity: config.maxSources)
        #expect(alone.last?.map(\.id) == [1])
        // The newcomer is stronger; the older direction's candidate co-varies with it.
        let both = Self.feed(
            tracker,
            [
                SourceCandidate(azimuth: second, strength: 0.25, share: 0.55),
                SourceCandidate(azimuth: first, strength: 0.2, share: 0.45, echo: 0.6, echoPartner: 0),
            ],
            frames: 2 * second1, capacity: config.maxSources)
        // Every frame: source 1 alone, active, within 2° of the direction heard first.
        let wrong = both.indices.filter { f in
            let r = both[f]
            return !(r.count == 1 && r[0].id == 1 && r[0].active && abs(r[0].azimuth - first) < 2)
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(both.count) frames wrong, first \(wrong.first.map { both[$0] } ?? [])")
    }

    /// A talker at −40° heard alone for a second; then its peak is missing for 0.3 s and another
    /// stands in for it (as in a room when an image off the floor, the ceiling or a wall ahead
    /// or behind holds the higher peak for a moment and hides the direct sound's: evaluate.py
    /// --multi's two talkers at RT60 0.3 s), then the talker's peak is back. A stand-in on the
    /// talker's side nearer the median plane (−15°) starts no source, whether it comes at once
    /// or began 3 frames earlier beside the talker's peak (`overlap`). One on the other side
    /// (+30°) is a source, and so is one at −15° that comes 0.5 s after the talker was last heard
    /// (new sound after a pause) or is of the onset average (new sound).
    @Test(
        "a peak standing in for a source's missing one, on its side nearer the median plane, starts no source",
        arguments: [
            (-15.0, 0.0, 0, false, false), (-15.0, 0.0, 3, false, false), (30.0, 0.0, 0, false, true),
            (-15.0, 0.5, 0, false, true), (-15.0, 0.0, 0, true, true),
        ])
    func standInStartsNoSource(standIn: Double, gapSeconds: Double, overlap: Int, fromOnsets: Bool, listed: Bool) {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let frames = { (seconds: Double) in Int((seconds / config.hopDuration).rounded()) }
        let talker = SourceCandidate(azimuth: -40, strength: 0.3, share: 1)
        var other = SourceCandidate(azimuth: standIn, strength: 0.2, share: 1)
        other.fromOnsets = fromOnsets
        let phases = Self.run(
            tracker, capacity: config.maxSources,
            [
                (frames(1) - overlap, { _ in [talker] }),
                (overlap, { _ in [talker, other] }),
                (frames(gapSeconds), { _ in [] }),
                (frames(0.3), { _ in [other] }),
                (frames(0.5), { _ in [talker] }),
            ])
        #expect(phases[0].last?.map(\.id) == [1])
        let later = phases[1] + phases[3] + phases[4]
        let newSource = later.contains { $0.contains { $0.id != 1 && abs($0.azimuth - standIn) < 3 } }
        #expect(newSource == listed, "last records \(phases[3].last ?? [])")
        // The talker stays listed, as source 1, at its bearing, once its peak is back.
        #expect(phases[4].last?.contains { $0.id == 1 && abs($0.azimuth + 40) < 2 } == true, "\(phases[4].last ?? [])")
    }

    /// Two reflections of one talker, both co-varying with it: the older reflection (already a
    /// source) does not hand its blame to the newer one, whose own peak is an echo of the
    /// talker's, so both go and only the talker stays.
    @Test("a reflection does not pass its echo on to another reflection")
    func echoOfAnEcho() {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let second = Int((1 / config.hopDuration).rounded())
        let talker = SourceCandidate(azimuth: 60, strength: 0.3, share: 0.6)
        _ = Self.feed(tracker, [talker], frames: second, capacity: config.maxSources)
        // A ghost at −60° that nothing names as an echo yet becomes source 2.
        let ghost = Self.feed(
            tracker, [talker, SourceCandidate(azimuth: -60, strength: 0.1, share: 0.2)], frames: second,
            capacity: config.maxSources)
        #expect(ghost.last?.map(\.id) == [1, 2], "\(ghost.last ?? [])")
        // Then a reflection at +15° joins; it co-varies with the talker, and the ghost with it.
        let both = Self.feed(
            tracker,
            [
                talker,
                SourceCandidate(azimuth: 15, strength: 0.2, share: 0.25, echo: 0.6, echoPartner: 0),
                SourceCandidate(azimuth: -60, strength: 0.1, share: 0.15, echo: 0.6, echoPartner: 1),
            ],
            frames: second, capacity: config.maxSources)
        #expect(both.last?.map(\.id) == [1], "\(both.last ?? [])")
        #expect(both.allSatisfy { $0.allSatisfy { $0.id != 3 } }, "the reflection at +15° became a source")
    }

    /// A steady noise at −70° and a peak at −14° that becomes source 2 before the image test marks
    /// it (its candidates unmarked for a second), then is marked a steady reflection for two
    /// seconds. Fed by the marked peak alone, source 2 is dropped once the marked share of its
    /// matches reaches ``MultiSourceTracker/steadyFeedLimit`` (22 matches, 0.1 each), not
    /// before; had it been read from the onset average at first (a talker beside the noise, who
    /// takes the reflection's peak while silent), it stays.
    @Test("a source fed only by a steady reflection is dropped, unless it ever took an onset candidate", arguments: [false, true])
    func steadyReflectionTrackDropped(fromOnsets: Bool) {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let second = Int((1 / config.hopDuration).rounded())
        let noise = SourceCandidate(azimuth: -70, strength: 0.3, share: 0.6)
        var peak = SourceCandidate(azimuth: -14, strength: 0.15, share: 0.4)
        peak.fromOnsets = fromOnsets
        let before = Self.feed(tracker, [noise, peak], frames: second, capacity: config.maxSources)
        #expect(before.last?.map(\.id) == [1, 2], "\(before.last ?? [])")
        var marked = SourceCandidate(azimuth: -14, strength: 0.15, share: 0.4)
        marked.steadyReflection = true
        let after = Self.feed(tracker, [noise, marked], frames: 2 * second, capacity: config.maxSources)
        let listed = after.map { $0.contains { $0.id == 2 } }
        // 1 − 0.9^n ≥ 0.9 from n = 22 matches on.
        let last = listed.lastIndex(of: true) ?? -1
        if fromOnsets {
            #expect(listed.allSatisfy { $0 }, "source 2 dropped after \(listed.firstIndex(of: false) ?? -1) frames")
        } else {
            #expect(last == 20, "source 2 last listed in frame \(last) of the marked ones, expected 20 (dropped at the 22nd)")
            #expect(after.last?.map(\.id) == [1], "\(after.last ?? [])")
        }
    }

    /// The other way round: the steady noise's floor reflection outgrows it for two seconds in
    /// the plain average, so the image test marks the noise's own candidate (the weaker of the
    /// two). The noise was heard first, so it stays, fed by its marked candidates.
    @Test("a steady source whose reflection outgrows it stays: the younger one would be the reflection")
    func steadySourceOutgrownByItsReflectionStays() {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let second = Int((1 / config.hopDuration).rounded())
        let noise = SourceCandidate(azimuth: -50, strength: 0.3, share: 0.6)
        let reflection = SourceCandidate(azimuth: -12, strength: 0.15, share: 0.4)
        let before = Self.feed(tracker, [noise, reflection], frames: second, capacity: config.maxSources)
        #expect(before.last?.map(\.id) == [1, 2], "\(before.last ?? [])")
        var marked = SourceCandidate(azimuth: -50, strength: 0.2, share: 0.45)
        marked.steadyReflection = true
        let louder = SourceCandidate(azimuth: -12, strength: 0.25, share: 0.55)
        let after = Self.feed(tracker, [louder, marked], frames: 2 * second, capacity: config.maxSources)
        let missing = after.indices.filter { !after[$0].contains { $0.id == 1 && abs($0.azimuth + 50) < 2 } }
        #expect(missing.isEmpty, "the noise (source 1) missing in \(missing.count) of \(after.count) frames")
    }

    /// A reflection heard before its source: a peak at −12° becomes source 1, the steady noise at
    /// −50° source 2; then the image test marks the −12° peak the later copy by the level ripples
    /// (``SourceCandidate/laterCopy``). Source 1 is dropped at the 22nd marked match though it is
    /// the older; marked by height alone (no ripple), the older one stays (the rule above).
    @Test("a source the ripples name the later copy is dropped even when heard first", arguments: [true, false])
    func laterCopyDroppedWhateverItsAge(byRipples: Bool) {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let second = Int((1 / config.hopDuration).rounded())
        let noise = SourceCandidate(azimuth: -50, strength: 0.3, share: 0.6)
        let early = Self.feed(tracker, [SourceCandidate(azimuth: -12, strength: 0.3, share: 1)], frames: second, capacity: config.maxSources)
        #expect(early.last?.map(\.id) == [1], "\(early.last ?? [])")
        let both = Self.feed(
            tracker, [noise, SourceCandidate(azimuth: -12, strength: 0.2, share: 0.4)], frames: second, capacity: config.maxSources)
        #expect(both.last?.map(\.id) == [1, 2], "\(both.last ?? [])")
        var marked = SourceCandidate(azimuth: -12, strength: 0.2, share: 0.4)
        marked.steadyReflection = true
        marked.laterCopy = byRipples
        let after = Self.feed(tracker, [noise, marked], frames: 2 * second, capacity: config.maxSources)
        let listed = after.map { $0.contains { $0.id == 1 } }
        if byRipples {
            let last = listed.lastIndex(of: true) ?? -1
            #expect(last == 20, "source 1 last listed in frame \(last) of the marked ones, expected 20 (dropped at the 22nd)")
            #expect(after.last?.map(\.id) == [2], "\(after.last ?? [])")
        } else {
            #expect(listed.allSatisfy { $0 }, "source 1 dropped after \(listed.firstIndex(of: false) ?? -1) frames")
        }
    }

    /// Without the source tracker there is no onset average, so the broadband tracker does
    /// without its bearing in the frames that carry none of their own (`OnsetBearing`); every
    /// field the frame measures itself is the same.
    @Test("maxSources 0: empty sources, every measured field identical, the tracked bearing close")
    func disabled() throws {
        let signal = Self.scene([-40, 30], duration: 3).render()
        var off = AnalysisConfiguration(sampleRate: Self.sampleRate)
        off.maxSources = 0
        let tracked = try analyze(signal, configuration: AnalysisConfiguration(sampleRate: Self.sampleRate))
        let plain = try analyze(signal, configuration: off)
        #expect(plain.allSatisfy { $0.sources.isEmpty })
        #expect(tracked.contains { $0.sources.count == 2 })
        let measured = { (r: AnalysisRecord) -> AnalysisRecord in
            var m = r
            m.sources = []
            m.azimuth = 0
            m.lateral = 0
            return m
        }
        #expect(tracked.map(measured) == plain.map(measured))
        let moved = zip(tracked, plain).map { abs($0.azimuth - $1.azimuth) }
        print("tracked bearing with and without the sources: \(moved.filter { $0 > 0.01 }.count) of \(moved.count) frames differ, median \(median(moved))°")
        #expect(median(moved) <= 1, "median difference \(median(moved))°")
    }

    @Test("ids count from 1, one per source in a record; an id comes back only where its source was; at most maxSources")
    func idsAndCapacity() throws {
        var config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        config.maxSources = 2
        let records = try analyze(Self.scene([-50, 0, 45]).render(), configuration: config)
        #expect(records.allSatisfy { $0.sources.count <= 2 })
        #expect(records.allSatisfy { zip($0.sources, $0.sources.dropFirst()).allSatisfy { $0.id < $1.id } })
        let ids = records.flatMap { $0.sources.map(\.id) }
        #expect(ids.min() == 1)
        // An id that went and came back: the three talkers stand still, so it returns within
        // the gate of where it was last listed.
        var last: [Int: Double] = [:], previous = Set<Int>()
        for record in records {
            for source in record.sources {
                if !previous.contains(source.id), let before = last[source.id] {
                    #expect(abs(source.azimuth - before) <= MultiSourceTracker.gateDegrees + 1,
                            "id \(source.id) back at \(source.azimuth)°, last at \(before)°")
                }
                last[source.id] = source.azimuth
            }
            previous = Set(record.sources.map(\.id))
        }
    }

    /// Two talkers taking turns, 4 s each, −40° then +30°, four times over (32 s, free field):
    /// each is dropped during the other's turn (1.5 s unheard) and comes back. Every source
    /// reported active within 10° of −40° is id 1, and of +30° id 2.
    @Test("two talkers taking turns keep ids 1 and 2 through every turn")
    func turnsKeepIDs() throws {
        let turns = (0..<4).flatMap { k -> [Source] in
            let t = Double(8 * k)
            return [
                Source(.speech, azimuth: -40, start: t, end: t + 4, levelDBFS: -20, seed: UInt64(21 + 2 * k)),
                Source(.speech, azimuth: 30, start: t + 4, end: t + 8, levelDBFS: -20, seed: UInt64(22 + 2 * k)),
            ]
        }
        let scene = Scene(sampleRate: Self.sampleRate, duration: 32, sources: turns, noise: SensorNoise(snrDecibels: 20, seed: 5))
        let records = try analyze(scene.render(), configuration: AnalysisConfiguration(sampleRate: Self.sampleRate))
        var idsNear: [Double: Set<Int>] = [-40: [], 30: []]
        var dropped = 0, previous = Set<Int>()
        for record in records {
            for source in record.sources where source.active {
                for talker in [-40.0, 30] where abs(source.azimuth - talker) <= 10 { idsNear[talker]?.insert(source.id) }
            }
            let now = Set(record.sources.map(\.id))
            dropped += previous.subtracting(now).count
            previous = now
        }
        #expect(dropped >= 6, "each talker is dropped during the other's turns (\(dropped) drops)")
        #expect(idsNear[-40] == [1], "\(idsNear)")
        #expect(idsNear[30] == [2], "\(idsNear)")
    }

    /// ``run(_:capacity:_:)`` with each phase's length in seconds.
    static func phases(
        _ tracker: MultiSourceTracker, _ config: AnalysisConfiguration, _ phases: [(seconds: Double, candidates: (Int) -> [SourceCandidate])]
    ) -> [[[SourceRecord]]] {
        run(tracker, capacity: config.maxSources, phases.map { (Int(($0.seconds / config.hopDuration).rounded()), $0.candidates) })
    }

    /// Talkers at −30° and +40°; −30° pauses for 3 s (dropped after 1.5 s) and comes back at
    /// −27°: it gets id 1 again; a new talker at +5° gets id 3; a talker back after more than
    /// ``MultiSourceTracker/recallSeconds`` gets a new id.
    @Test("a talker who pauses and comes back at the same place keeps their id")
    func pausedTalkerKeepsID() {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let a = SourceCandidate(azimuth: -30, strength: 0.3, share: 0.5)
        let b = SourceCandidate(azimuth: 40, strength: 0.3, share: 0.5)
        let back = SourceCandidate(azimuth: -27, strength: 0.3, share: 0.5)
        let c = SourceCandidate(azimuth: 5, strength: 0.3, share: 0.3)
        let r = Self.phases(tracker, config, [
            (1, { _ in [a, b] }), (3, { _ in [b] }), (1, { _ in [back, b] }), (1, { _ in [back, b, c] }),
            (MultiSourceTracker.recallSeconds + 2, { _ in [b] }), (1, { _ in [a, b] }),
        ])
        #expect(r[0].last?.map(\.id) == [1, 2])
        #expect(r[1].last?.map(\.id) == [2], "the paused talker is dropped")
        #expect(r[2].last?.map(\.id) == [1, 2])
        #expect(r[2].last.map { abs($0[0].azimuth - -27) < 1 } == true, "\(r[2].last ?? [])")
        #expect(r[3].last?.map(\.id) == [1, 2, 3])
        #expect(r[3].last.map { abs($0[2].azimuth - 5) < 1 } == true, "\(r[3].last ?? [])")
        // Gone for longer than the recall: 1 and 3 are forgotten; −30° is new, id 4.
        #expect(r[5].last?.map(\.id) == [2, 4], "\(r[5].last ?? [])")
    }

    /// A talker walking at 10°/s from −60° pauses for 1.8 s and goes on walking: recalled where
    /// their velocity carried them (−22°, 18° from where they were last heard).
    @Test("a walking talker who pauses is recalled where their velocity carried them")
    func walkingTalkerKeepsID() {
        let config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let hop = config.hopDuration
        func at(_ seconds: Double) -> [SourceCandidate] { [SourceCandidate(azimuth: -60 + 10 * seconds, strength: 0.3, share: 1)] }
        let r = Self.phases(tracker, config, [
            (2, { at(Double($0) * hop) }), (1.8, { _ in [] }), (1, { at(3.8 + Double($0) * hop) }),
        ])
        #expect(r[0].last?.map(\.id) == [1])
        #expect(r[1].last?.map(\.id) == [], "dropped during the pause")
        #expect(r[2].last?.map(\.id) == [1], "\(r[2].last ?? [])")
        #expect(r[2].last.map { abs($0[0].azimuth - (-60 + 48)) < 3 } == true, "\(r[2].last ?? [])")
    }

    @Test("maxSources and the source window are checked")
    func validation() {
        var config = AnalysisConfiguration(sampleRate: Self.sampleRate)
        config.maxSources = 9
        #expect(throws: ConfigurationError.badMaxSources(9)) { try config.validate() }
        config.maxSources = 8
        config.sourceWindowSeconds = 0.01
        #expect(throws: ConfigurationError.badSourceWindow(0.01)) { try config.validate() }
    }

    /// Talkers at `azimuths` before an XY pair of cardioids at 90° (the default coincident model).
    static func coincidentScene(_ azimuths: [Double]) -> Scene {
        var scene = Self.scene(azimuths)
        scene.microphones = .coincident(halfAngle: 45)
        return scene
    }

    static let coincidentConfiguration = AnalysisConfiguration(sampleRate: sampleRate, array: ArrayModel(kind: .coincident))

    // Measured (XY cardioids, seeds as above): two talkers 1.000 / 1.000, false 0.000, no id
    // switch; one talker at 30° or −60°: 1.000, a second source in 0.0 % of the frames.
    @Test("a coincident pair: two talkers at −40° and +30° from the bins' level ratios, each within 10° in ≥ 85 %")
    func coincidentTwoTalkers() throws {
        let f = try Self.figures(Self.coincidentScene([-40, 30]), configuration: Self.coincidentConfiguration)
        #expect(f.hitRates.allSatisfy { $0 >= 0.85 }, "\(f)")
        #expect(f.falseShare <= 0.10, "\(f)")
    }

    @Test("a coincident pair: one talker gives one source", arguments: [30.0, -60.0])
    func coincidentOneTalker(azimuth: Double) throws {
        let f = try Self.figures(Self.coincidentScene([azimuth]), configuration: Self.coincidentConfiguration)
        #expect(f.hitRates[0] >= 0.95, "\(f)")
        #expect(f.multipleShare <= 0.05, "\(f)")
        #expect(f.falseShare <= 0.05, "\(f)")
    }
}
