import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// A source leads onsets of its own (issue 46, item 1): ``SourceCandidate/leadsOnsets`` from the
/// onset average (``ExcessCandidateSearch/leadsOnsets(lag:)``), and the tracker's rule that a
/// tentative track none of whose candidates ever led onsets, judged in at least
/// ``MultiSourceTracker/onsetlessShare`` of its hits, is not confirmed (a peak of the room's late
/// reverberation, such as a lone talker's mirror ghost at the other end-fire).
struct OnsetLeadTests {
    static let sampleRate = 16000.0

    /// The tracker's records of a talker at −40° whose candidates lead onsets, heard alone for a
    /// second, then for `seconds` seconds beside a second peak whose candidate in frame `f` of
    /// that phase is `other(f)`: one array of records per phase.
    static func besideTalker(seconds: Int, _ other: @escaping (Int) -> SourceCandidate) -> [[[SourceRecord]]] {
        let config = AnalysisConfiguration(sampleRate: sampleRate)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        let second = Int((1 / config.hopDuration).rounded())
        var talker = SourceCandidate(azimuth: -40, strength: 0.3, share: 0.7)
        talker.leadsOnsets = true
        return MultiSourceTests.run(
            tracker, capacity: config.maxSources,
            [(second, { _ in [talker] }), (seconds * second, { f in [talker, other(f)] })])
    }

    /// A talker at −40° heard alone for a second (its candidates lead onsets), then a second peak
    /// at +60° for two seconds whose candidates are told `told` in every frame but every
    /// `ledEvery`-th, which leads (0: none does). Onset-less in every frame it starts no source;
    /// once one of its candidates leads it is confirmed; not told at all (nil: no new sound, or a
    /// steady peak) it is confirmed as before.
    @Test(
        "a peak none of whose candidates leads onsets starts no source; one that leads once, or that cannot be told, does",
        arguments: [(Bool?.some(false), 0, false), (Bool?.some(false), 25, true), (Bool?.none, 0, true)])
    func onsetlessPeakStartsNoSource(told: Bool?, ledEvery: Int, listed: Bool) {
        let phases = Self.besideTalker(seconds: 2) { f in
            var ghost = SourceCandidate(azimuth: 60, strength: 0.1, share: 0.3)
            ghost.leadsOnsets = ledEvery > 0 && f % ledEvery == ledEvery - 1 ? true : told
            return ghost
        }
        #expect(phases[0].last?.map(\.id) == [1])
        let firstListed = phases[1].firstIndex { $0.contains { abs($0.azimuth - 60) < 3 } }
        if listed {
            // Confirmed at its fifth hit, or at the first that leads.
            let expected = ledEvery > 0 ? ledEvery - 1 : MultiSourceTracker.birthHits - 1
            #expect(firstListed == expected, "first listed in frame \(firstListed ?? -1), expected \(expected)")
        } else {
            #expect(firstListed == nil, "listed from frame \(firstListed ?? -1)")
        }
        // The talker stays source 1 throughout.
        #expect(phases[1].allSatisfy { $0.contains { $0.id == 1 && abs($0.azimuth + 40) < 2 } })
    }

    /// A peak judged onset-less in fewer than ``MultiSourceTracker/onsetlessShare`` of its hits
    /// (one frame in five: a steady noise the steady test misses, judged now and then) is
    /// confirmed at its fifth hit; judged so in two of five it is not.
    @Test("a peak judged onset-less in only a few of its hits is still a source", arguments: [(5, true), (2, false)])
    func fewOnsetlessHitsDoNotBlock(judgedEvery: Int, listed: Bool) {
        let phases = Self.besideTalker(seconds: 1) { f in
            var noise = SourceCandidate(azimuth: 50, strength: 0.12, share: 0.3)
            noise.leadsOnsets = f % judgedEvery == 0 ? false : nil
            return noise
        }
        let noiseListed = phases[1].contains { $0.contains { abs($0.azimuth - 50) < 3 } }
        #expect(noiseListed == listed)
    }

    /// Two speech-like talkers at −40° and +30° in free field (16 kHz, 15 cm, 20 dB sensor
    /// noise), frame by frame through ``SourceCandidateFinder``: of each talker's candidates whose
    /// onsets could be told, the share that lead them.
    static func ledShares() -> [Double] {
        let configuration = AnalysisConfiguration(sampleRate: sampleRate)
        let scene = Scene(
            sampleRate: sampleRate, duration: 8,
            sources: [
                Source(.speech, azimuth: -40, levelDBFS: -20, seed: 11),
                Source(.speech, azimuth: 30, levelDBFS: -20, seed: 12),
            ],
            noise: SensorNoise(snrDecibels: 20, seed: 5))
        let signal = scene.render()
        let estimator = DirectionEstimator(configuration: configuration)
        let finder = SourceCandidateFinder(configuration: configuration, broadband: estimator, capacity: 8)
        let truths = [-40.0, 30.0]
        var told = [0, 0], led = [0, 0]
        var start = 0, frame = 0
        while start + configuration.frameLength <= signal.count {
            let range = start..<(start + configuration.frameLength)
            let estimate = signal.left[range].withUnsafeBufferPointer { l in
                signal.right[range].withUnsafeBufferPointer { r in estimator.estimate(left: l, right: r) }
            }
            finder.update(spectra: estimate.spectra, levelDBFS: estimate.estimate.levels.levelDBFS, aboveGate: true)
            finder.find(lowFrequencyShare: nil)
            if Double(frame) * configuration.hopDuration >= 1 {
                for j in 0..<finder.count {
                    let c = finder.candidates[j]
                    guard let leads = c.leadsOnsets, let t = truths.indices.first(where: { abs(c.azimuth - truths[$0]) <= 10 })
                    else { continue }
                    told[t] += 1
                    if leads { led[t] += 1 }
                }
            }
            start += configuration.hopLength
            frame += 1
        }
        return truths.indices.map { Double(led[$0]) / Double(max(1, told[$0])) }
    }

    // Measured when written: 0.836 (−40°) and 0.959 (+30°).
    @Test("two talkers in free field: each one's candidates lead onsets in ≥ 70 % of the frames where it can be told")
    func talkersLeadOnsets() {
        let shares = Self.ledShares()
        #expect(shares.allSatisfy { $0 >= 0.7 }, "\(shares)")
    }

    /// One speech-like talker in a synthetic room (``Reverberation``: RT60 0.6 s,
    /// direct-to-reverberant −7 dB), 15 cm pair at 16 kHz, 8 s, white sensor noise 30 dB below:
    /// over the records after the first second, the share of listed active sources farther than
    /// 15° from the talker, and the share of the talker's active frames with a source within 10°.
    static func roomFigures(azimuth: Double, seed: UInt64) throws -> (falseShare: Double, hitRate: Double) {
        let n = Int(8 * sampleRate)
        let speech = Generators.speechLike(count: n, sampleRate: sampleRate, rms: 0.05, seed: 11)
        let heard = Reverberation.render(
            speech, azimuth: azimuth, microphones: .spaced(spacing: 0.15), sampleRate: sampleRate,
            rt60: 0.6, directToReverberantDecibels: -7, seed: seed)
        let sensor = Generators.whiteNoise(count: 2 * n, rms: 0.05 * pow(10, -30.0 / 20), seed: 5)
        let signal = StereoSignal(
            left: (0..<n).map { Float(heard.left[$0] + sensor[$0]) },
            right: (0..<n).map { Float(heard.right[$0] + sensor[n + $0]) }, sampleRate: sampleRate)
        let configuration = AnalysisConfiguration(sampleRate: sampleRate)
        let records = try analyze(signal, configuration: configuration)
        let threshold = pow(0.05 * pow(10, -15.0 / 20), 2)
        var listed = 0, falseCount = 0, judged = 0, hits = 0
        for (i, record) in records.enumerated() where record.time >= 1 {
            let active = record.sources.filter(\.active)
            listed += active.count
            falseCount += active.filter { abs($0.azimuth - azimuth) > 15 }.count
            let start = i * configuration.hopLength, end = min(n, start + configuration.frameLength)
            guard end > start else { continue }
            let power = speech[start..<end].reduce(0) { $0 + $1 * $1 } / Double(end - start)
            guard power >= threshold else { continue }
            judged += 1
            if active.contains(where: { abs($0.azimuth - azimuth) <= 10 }) { hits += 1 }
        }
        return (Double(falseCount) / Double(max(1, listed)), Double(hits) / Double(max(1, judged)))
    }

    // Measured when written, mean over the 8 rooms: false 0.305, hit 0.934; without the rule
    // (``MultiSourceTracker/onsetlessShare`` infinite) false 0.340, hit 0.934. These rooms are
    // harsher than pyroomacoustics' shoebox (every reflection in the horizontal plane):
    // `evaluate.py --multi` reads one talker at RT60 0.6 s with 9 % false sources.
    @Test("one talker in reverberant rooms (RT60 0.6 s): false sources ≤ 32 % on average (34 % without the onset rule), the talker within 10° in ≥ 93 %")
    func talkerInRooms() throws {
        var falseSum = 0.0, hitSum = 0.0, rooms = 0
        for (k, azimuth) in [-60.0, -30.0, 30.0, 60.0].enumerated() {
            for seed in [UInt64(31), 32] {
                let f = try Self.roomFigures(azimuth: azimuth, seed: seed + UInt64(10 * k))
                falseSum += f.falseShare
                hitSum += f.hitRate
                rooms += 1
            }
        }
        let falseShare = falseSum / Double(rooms), hitRate = hitSum / Double(rooms)
        #expect(falseShare <= 0.32, "mean false share \(falseShare)")
        #expect(hitRate >= 0.93, "mean hit rate \(hitRate)")
    }
}
