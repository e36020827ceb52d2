import Foundation
@testable import SoundCompassClassifier
import SoundCompassEngine
import TestSignals
import Testing

/// ``SourceLabeler``'s four parts, each on its own and without the model: the 16 kHz frames,
/// the per-bin onset delays, the masks, and the track labels (with a stand-in namer).
@Suite("Source labeler parts")
struct LabelerPartsTests {
    static let rate = 48000.0

    /// A scene on a 15 cm pair (exact fractional delays), as the analysis hears it.
    static func scene(_ sources: [Source], seconds: Double) -> (left: [Float], right: [Float]) {
        let signal = Scene(sampleRate: rate, duration: seconds, microphones: .spaced(spacing: 0.15), sources: sources).render()
        return (signal.left, signal.right)
    }

    /// Feeds `signal` through the frames and the history in blocks of 1024, calling `frame`
    /// after each 10 ms frame.
    static func feed(
        _ signal: (left: [Float], right: [Float]), frames: StereoFrames16k, history: OnsetDelayHistory,
        frame: () -> Void = {}
    ) {
        signal.left.withUnsafeBufferPointer { l in
            signal.right.withUnsafeBufferPointer { r in
                var start = 0
                while start < l.count {
                    let end = min(l.count, start + 1024)
                    frames.append(left: UnsafeBufferPointer(rebasing: l[start..<end]), right: UnsafeBufferPointer(rebasing: r[start..<end])) {
                        history.add(spectrumLeft: frames.spectrumLeft.baseAddress, spectrumRight: frames.spectrumRight.baseAddress)
                        frame()
                    }
                    start = end
                }
            }
        }
    }

    @Test("16 kHz frames: one every 10 ms, a 1 kHz tone's peak in bin 32 of both channels; non-finite samples read as silence")
    func frames16k() throws {
        let frames = try StereoFrames16k(sampleRate: Self.rate)
        let n = Int(Self.rate)  // 1 s
        let tone = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / Self.rate)) }
        var count = 0, peaks: Set<Int> = []
        tone.withUnsafeBufferPointer { x in
            frames.append(left: x, right: x) {
                count += 1
                for spectrum in [frames.spectrumLeft, frames.spectrumRight] {
                    var best = 0, bestPower: Float = 0
                    for k in 0..<StereoFrames16k.bins {
                        let power = spectrum[2 * k] * spectrum[2 * k] + spectrum[2 * k + 1] * spectrum[2 * k + 1]
                        if power > bestPower { bestPower = power; best = k }
                    }
                    peaks.insert(best)
                }
            }
        }
        // 16000 samples, less the resampler's delay, in 400-sample windows every 160: about 97.
        #expect((90...98).contains(count), "\(count) frames")
        #expect(peaks == [32], "\(peaks)")  // 1000 Hz / 31.25 Hz per bin
        // NaN and infinities count as 0: the spectra stay finite.
        let bad = [Float](repeating: .nan, count: 2048) + [Float](repeating: .infinity, count: 2048)
        var finite = true
        bad.withUnsafeBufferPointer { x in
            frames.append(left: x, right: x) {
                for k in 0..<(2 * StereoFrames16k.stride) where !frames.spectrumLeft[k].isFinite { finite = false }
            }
        }
        #expect(finite)
    }

    @Test("onset delays: noise from +40° starting at 0.5 s; 0.7 s on, the bins that hold a delay hold that of +40° (median within 15 µs)")
    func onsetDelays() throws {
        let configuration = AnalysisConfiguration(sampleRate: Self.rate)
        let model = configuration.array
        let frames = try StereoFrames16k(sampleRate: Self.rate)
        let history = OnsetDelayHistory(array: model)
        let signal = Self.scene([Source(.whiteNoise, azimuth: 40, start: 0.5, seed: 3)], seconds: 1.2)
        Self.feed(signal, frames: frames, history: history)
        #expect(history.framesStored == OnsetDelayHistory.frames)
        // The newest frame: its held delays.
        let newest = history.slot(ofFrame: OnsetDelayHistory.frames - 1)
        let held = (0..<StereoFrames16k.bins).map { history.heldDelays(newest)[$0] }.filter { !$0.isNaN }
        let expected = model.delay(lateral: sin(40 * Double.pi / 180)) + model.delayOffsetSeconds
        // A noise bin's power fluctuates frame to frame (Rayleigh): when it falls 15 dB below
        // its peak the bin lets its delay go, and takes it again at its next onset. Measured 79.
        #expect(held.count >= 50, "\(held.count) of 257 bins hold a delay 0.7 s after the onset")
        let sorted = held.sorted()
        let median = Double(sorted[sorted.count / 2])
        #expect(abs(median - expected) <= 15e-6, "median held delay \(median * 1e6) µs, expected \(expected * 1e6) µs")
    }

    /// Five bursts of `first` at +30° and of `second` at −40°, 0.15 s later (onsets apart), every
    /// 0.4 s, fed to a history, with the frames and masks beside it.
    static func bursts(
        _ first: (SourceSignal, level: Double), _ second: (SourceSignal, level: Double)
    ) throws -> (frames: StereoFrames16k, history: OnsetDelayHistory, masks: SourceMasks) {
        let configuration = AnalysisConfiguration(sampleRate: Self.rate)
        let frames = try StereoFrames16k(sampleRate: Self.rate)
        let history = OnsetDelayHistory(array: configuration.array)
        var sources: [Source] = []
        for k in 0..<5 {
            let t = 0.1 + 0.4 * Double(k)
            sources.append(Source(first.0, azimuth: 30, start: t, end: t + 0.3, levelDBFS: first.level, seed: UInt64(10 + k)))
            sources.append(Source(second.0, azimuth: -40, start: t + 0.15, end: t + 0.35, levelDBFS: second.level, seed: UInt64(20 + k)))
        }
        Self.feed(Self.scene(sources, seconds: 2.1), frames: frames, history: history)
        return (frames, history, SourceMasks(array: configuration.array, capacity: 3))
    }

    @Test("masks: a lone listed source beside a louder unlisted one finds most energy foreign; listed where the loud one is, little")
    func foreignShare() throws {
        // Noise bursts at +30°, 10 dB above noise bursts at −40°.
        let (_, history, masks) = try Self.bursts((.whiteNoise, -20), (.whiteNoise, -30))
        masks.prepare(laterals: [sin(-40 * Double.pi / 180)], count: 1)
        let quiet = masks.foreignShare(history: history)
        masks.prepare(laterals: [sin(30 * Double.pi / 180)], count: 1)
        let loud = masks.foreignShare(history: history)
        #expect(quiet > Float(SourceLabeler.maximumForeignShare), "listed at −40°: \(quiet)")
        #expect(loud < 0.2, "listed at +30°: \(loud)")
    }

    @Test("masks: the bins holding onsets from a listed direction: noise bursts at +30° hold most of the sound; +5°, where a floor image of them would be, almost none")
    func heldPower() throws {
        let (frames, history, masks) = try Self.bursts((.whiteNoise, -20), (.whiteNoise, -120))
        let laterals = [30.0, 5.0].map { sin($0 * Double.pi / 180) }
        masks.prepare(laterals: laterals, count: 2)
        masks.build(history: history, frontEnd: frames.frontEnd, sources: 2, positions: [-1, -1], mixtureAt: -1, normalised: false)
        let held = (0..<2).map { masks.heldPower(history: history, ofSource: $0) }
        let power = masks.maskedPower(ofSource: 0)
        #expect(held[0] > 0.3 * power, "held at +30°: \(held[0]) of its masked \(power)")
        #expect(held[1] < 0.01 * held[0], "held at +5°: \(held[1]) against \(held[0]) at +30°")
    }

    @Test("masks: two listed sources get different patches, each scaled to the patch level; the mixture's is the unmasked one")
    func patches() throws {
        // A 3 kHz tone burst train at +30° and a 500 Hz one at −40°, onsets apart.
        let (frames, history, masks) = try Self.bursts((.tone(3000), -25), (.tone(500), -25))
        masks.prepare(laterals: [sin(-40 * Double.pi / 180), sin(30 * Double.pi / 180)], count: 2)
        masks.build(history: history, frontEnd: frames.frontEnd, sources: 2, positions: [0, 1], mixtureAt: 2, normalised: true)
        let size = YAMNet.patchFrames * YAMNet.melBands
        func band(_ patch: Int, _ hz: Double) -> Float {
            // The mel band nearest `hz` (HTK mel, 125–7500 Hz, 64 bands), averaged over the patch.
            func mel(_ f: Double) -> Double { 1127 * log(1 + f / 700) }
            let m = Int(((mel(hz) - mel(125)) / (mel(7500) - mel(125)) * 65).rounded()) - 1
            var sum: Float = 0
            for f in 0..<YAMNet.patchFrames { sum += masks.patches[patch * size + f * YAMNet.melBands + m] }
            return sum / Float(YAMNet.patchFrames)
        }
        // Each source's patch keeps its own tone and holds the other's far below it; the
        // mixture keeps both.
        #expect(band(0, 500) - band(0, 3000) > 3, "patch 0: 500 Hz \(band(0, 500)), 3 kHz \(band(0, 3000)) (log units)")
        #expect(band(1, 3000) - band(1, 500) > 3, "patch 1: 3 kHz \(band(1, 3000)), 500 Hz \(band(1, 500))")
        #expect(band(2, 500) - band(1, 500) > 3 && band(2, 3000) - band(0, 3000) > 3,
                "the mixture keeps what each mask cut: 500 Hz \(band(2, 500)) against \(band(1, 500)), 3 kHz \(band(2, 3000)) against \(band(0, 3000))")
        // The level rule alone: 96 frames of power p scale to the patch level, at most +30 dB.
        let powers = [Float](repeating: 1000, count: YAMNet.patchFrames)
        var scratch = [Float](repeating: 0, count: YAMNet.patchFrames)
        let gain = powers.withUnsafeBufferPointer { p in scratch.withUnsafeMutableBufferPointer { SourceMasks.levelGain(framePowers: p.baseAddress!, scratch: $0.baseAddress!) } }
        #expect(abs(gain - (SourceMasks.patchLevel / 1000).squareRoot()) < 1e-3)
        let faint = [Float](repeating: 1e-6, count: YAMNet.patchFrames)
        let capped = faint.withUnsafeBufferPointer { p in scratch.withUnsafeMutableBufferPointer { SourceMasks.levelGain(framePowers: p.baseAddress!, scratch: $0.baseAddress!) } }
        #expect(capped == SourceMasks.maximumLevelGain)
        // With mixtureAsHeard the mixture keeps its own level (the sources' patches theirs):
        // its patch is the one built unnormalised, the scaled one differs.
        let normalisedMixture = Array(UnsafeBufferPointer(start: masks.patches + 2 * size, count: size))
        let normalisedSource = Array(UnsafeBufferPointer(start: masks.patches, count: size))
        masks.build(history: history, frontEnd: frames.frontEnd, sources: 2, positions: [0, 1], mixtureAt: 2, normalised: false)
        let heardMixture = Array(UnsafeBufferPointer(start: masks.patches + 2 * size, count: size))
        masks.build(
            history: history, frontEnd: frames.frontEnd, sources: 2, positions: [0, 1], mixtureAt: 2, normalised: true,
            mixtureAsHeard: true)
        #expect(Array(UnsafeBufferPointer(start: masks.patches + 2 * size, count: size)) == heardMixture)
        #expect(Array(UnsafeBufferPointer(start: masks.patches, count: size)) == normalisedSource)
        let shift = zip(normalisedMixture, heardMixture).map { abs($0 - $1) }.max() ?? 0
        #expect(shift > 0.5, "the scaled mixture is \(shift) log units away from the mixture as heard")
    }

    @Test("masks: a lone patch's quieter copy is the patch of the sound 17.2 dB below the patch level, never below the sound as heard (within 1e-3)")
    func quieterCopy() throws {
        let configuration = AnalysisConfiguration(sampleRate: Self.rate)
        let size = YAMNet.patchFrames * YAMNet.melBands
        /// Pink noise at +20° and `level` dBFS, 1.2 s: its frames, history and masks.
        func heard(_ level: Double) throws -> (StereoFrames16k, OnsetDelayHistory, SourceMasks) {
            let frames = try StereoFrames16k(sampleRate: Self.rate)
            let history = OnsetDelayHistory(array: configuration.array)
            Self.feed(
                Self.scene([Source(.pinkNoise, azimuth: 20, start: 0.05, levelDBFS: level, seed: 7)], seconds: 1.2),
                frames: frames, history: history)
            return (frames, history, SourceMasks(array: configuration.array, capacity: 2))
        }
        func build(_ level: Double, raised: Bool) throws -> (patches: [Float], gain: Float, copied: Bool) {
            let (frames, history, masks) = try heard(level)
            masks.build(
                history: history, frontEnd: frames.frontEnd, sources: 0, positions: [-1, -1], mixtureAt: 0,
                normalised: raised, raiseOnly: true)
            let copied = raised && masks.writeQuieterCopy(of: 0, gainIndex: 0, to: 1)
            return (Array(UnsafeBufferPointer(start: masks.patches, count: 2 * size)), masks.gain(ofPatch: 0), copied)
        }
        func distance(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Float {
            zip(a, b).map { abs($0 - $1) }.max() ?? .infinity
        }
        // Quiet (−40 dBFS): raised by the largest gain; the copy is the sound raised by
        // gain × 0.138, which is the same sound rendered that much louder, as heard.
        let quiet = try build(-40, raised: true)
        #expect(quiet.copied && quiet.gain == SourceMasks.maximumLevelGain, "gain \(quiet.gain)")
        let louder = try build(-40 + 20 * log10(Double(quiet.gain * SourceMasks.quieterCopyRatio)), raised: false)
        let quietError = distance(quiet.patches[size...], louder.patches[..<size])
        #expect(quietError < 1e-3, "copy against the sound \(20 * log10(quiet.gain * SourceMasks.quieterCopyRatio)) dB louder: \(quietError) log units")
        #expect(distance(quiet.patches[..<size], quiet.patches[size...]) > 1, "the copy differs from the raised patch")
        // Moderate (−12 dBFS): raised less than 17.2 dB, so the copy is the sound as heard.
        let moderate = try build(-12, raised: true)
        let asHeard = try build(-12, raised: false)
        let moderateError = distance(moderate.patches[size...], asHeard.patches[..<size])
        #expect(moderate.copied && moderate.gain > 1 && moderate.gain < 1 / SourceMasks.quieterCopyRatio, "gain \(moderate.gain)")
        #expect(moderateError < 1e-3, "copy against the sound as heard: \(moderateError) log units")
        // Loud (0 dBFS): not raised, no copy (it would be the patch itself).
        let loud = try build(0, raised: true)
        #expect(!loud.copied && loud.gain == 1, "gain \(loud.gain)")
    }

    /// Names a score vector by its largest entries among the first four classes ("a", "b", "c",
    /// "d"), with the same hysteresis rule as ``SoundClassifier``.
    final class FakeNamer: ScoreNaming {
        func label(scores: UnsafePointer<Float>, favouring favoured: Int, by margin: Float, alerting: Bool, best: inout Int) -> SoundLabel {
            let ranked = (0..<4).sorted { (scores[$0] * ($0 == favoured ? margin : 1)) > (scores[$1] * ($1 == favoured ? margin : 1)) }
            best = ranked[0]
            let names = ["a", "b", "c", "d"]
            var label = SoundLabel(
                name: names[ranked[0]], score: Double(scores[ranked[0]]), secondName: names[ranked[1]],
                secondScore: Double(scores[ranked[1]]), thirdName: names[ranked[2]], thirdScore: Double(scores[ranked[2]]))
            // Class "d" alerts as SoundClassifier's rule has it: best at 0.3 to start, near to hold.
            if (ranked[0] == 3 && scores[3] >= 0.3) || (alerting && isAlertNear(scores: scores)) {
                label.alert = true
                label.alertName = "d"
            }
            return label
        }
        /// Class "d" (index 3) stands for an alert class: near when among the three best at 0.15.
        func isAlertNear(scores: UnsafePointer<Float>) -> Bool {
            scores[3] >= 0.15 && (0..<4).filter { scores[$0] > scores[3] }.count < 3
        }
        /// Alert "d" is supported where class "d" scores 0.15 or more.
        func supportsAlert(named name: String, scores: UnsafePointer<Float>) -> Bool { name == "d" && scores[3] >= 0.15 }
        /// Alert 0 ("d") starts where "d" is the best at 0.3.
        func startedAlert(scores: UnsafePointer<Float>) -> Int? {
            (0..<4).allSatisfy { scores[$0] <= scores[3] } && scores[3] >= 0.3 ? 0 : nil
        }
        func holdsAlert(_ index: Int, scores: UnsafePointer<Float>) -> Bool { isAlertNear(scores: scores) }
        func alertScore(_ index: Int, scores: UnsafePointer<Float>) -> Float { scores[3] }
        func alertName(_ index: Int) -> String { "d" }
    }

    /// A score vector: class c at `value`, the others at `rest`.
    static func scores(_ values: [Int: Float], rest: Float = 0.01) -> [Float] {
        var s = [Float](repeating: rest, count: YAMNet.classCount)
        for (c, v) in values { s[c] = v }
        return s
    }

    @Test("tracks: no label before the second round; pooled; a new name takes over only when 1.25 times the old")
    func gateAndHysteresis() {
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 3)
        tracks.setListed([SourceRecord(id: 1, azimuth: 10, confidence: 1, levelDBFS: -20, active: true)])
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([0: 0.8]), round: 1)
        #expect(tracks.label(of: 1, azimuth: 10, round: 1) == nil, "one round: no label")
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([0: 0.6]), round: 2)
        let second = tracks.label(of: 1, azimuth: 10, round: 2)
        #expect(second?.name == "a" && abs((second?.score ?? 0) - 0.7) < 1e-6, "two rounds averaged: \(String(describing: second))")
        // b comes in: pooled a 0.7 → 0.7 + (0.1 − 0.7)/3 = 0.5, b 0.01 → 0.01 + (0.6 − 0.01)/3 ≈ 0.207.
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([0: 0.1, 1: 0.6]), round: 3)
        #expect(tracks.label(of: 1, azimuth: 10, round: 3)?.name == "a")
        // Next: a ≈ 0.367, b ≈ 0.338: b scores more than a only after a falls below b / 1.25.
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([0: 0.1, 1: 0.6]), round: 4)
        #expect(tracks.label(of: 1, azimuth: 10, round: 4)?.name == "a", "b ≈ 0.34 is not 1.25 × a ≈ 0.37")
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([0: 0.1, 1: 0.6]), round: 5)
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([0: 0.1, 1: 0.6]), round: 6)
        #expect(tracks.label(of: 1, azimuth: 10, round: 6)?.name == "b")
        // Unheard for more than four rounds: the track starts again, unlabelled for a round.
        tracks.store(id: 1, azimuth: 10, scores: Self.scores([2: 0.9]), round: 12)
        #expect(tracks.label(of: 1, azimuth: 10, round: 12) == nil)
        // A track whose best name scores under the floor (0.1) carries no label.
        tracks.setListed([
            SourceRecord(id: 1, azimuth: 10, confidence: 1, levelDBFS: -20, active: true),
            SourceRecord(id: 5, azimuth: -60, confidence: 1, levelDBFS: -40, active: true),
        ])
        tracks.store(id: 5, azimuth: -60, scores: Self.scores([:], rest: 0.05), round: 13)
        tracks.store(id: 5, azimuth: -60, scores: Self.scores([:], rest: 0.05), round: 14)
        #expect(tracks.label(of: 5, azimuth: -60, round: 14) == nil)
    }

    @Test("tracks: a separated track's alert starts only when the mixture supports it; a lone one's needs no support; a standing alert holds without it")
    func separatedAlertsNeedTheMixture() {
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 3)
        tracks.setListed([
            SourceRecord(id: 1, azimuth: 30, confidence: 1, levelDBFS: -20, active: true),
            SourceRecord(id: 2, azimuth: -40, confidence: 1, levelDBFS: -20, active: true),
        ])
        let zeros = [Float](repeating: 0, count: PatchSignature.count)
        // A masked patch that reads "d" (a reflection masked into an alert's sound) while the
        // mixture reads "a" with "d" at 0.05: withheld, round after round.
        for round in 1...3 {
            tracks.storeBroadband(scores: Self.scores([0: 0.9, 3: 0.05]), signature: zeros, round: round)
            tracks.store(id: 1, azimuth: 30, scores: Self.scores([3: 0.9]), signature: zeros, round: round, separated: true)
        }
        #expect(tracks.label(of: 1, azimuth: 30, round: 3) == nil)
        #expect(tracks.alertsWithheld == 2, "rounds 2 and 3 (round 1 is before the gate)")
        #expect(tracks.isAlertPossible(id: 1), "the mixture is then classified at every round")
        // The mixture's patch of the round carries "d" at 0.2 (its pooled scores still less).
        tracks.storeBroadband(scores: Self.scores([0: 0.7, 3: 0.2]), signature: zeros, round: 4)
        tracks.store(id: 1, azimuth: 30, scores: Self.scores([3: 0.9]), signature: zeros, round: 4, separated: true)
        let started = tracks.label(of: 1, azimuth: 30, round: 4)
        #expect(started?.alert == true && started?.name == "d", "\(String(describing: started))")
        // Standing, it holds on its own evidence whatever the mixture's patch says.
        tracks.storeBroadband(scores: Self.scores([0: 0.9]), signature: zeros, round: 5)
        tracks.store(id: 1, azimuth: 30, scores: Self.scores([3: 0.5, 0: 0.3]), signature: zeros, round: 5, separated: true)
        #expect(tracks.label(of: 1, azimuth: 30, round: 5)?.alert == true)
        // A lone source's patch is the mixture: its alert needs no support.
        for round in 1...2 { tracks.store(id: 2, azimuth: -40, scores: Self.scores([3: 0.9]), round: round) }
        #expect(tracks.label(of: 2, azimuth: -40, round: 2)?.alert == true)
        #expect(tracks.alertsWithheld == 2)
    }

    @Test("tracks: an alert the mixture starts beside a sound it had named goes to the new track that carries it, and holds while the mixture holds it")
    func mixtureLeadsANewTracksAlert() {
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 4)
        let zeros = [Float](repeating: 0, count: PatchSignature.count)
        let talker = SourceRecord(id: 1, azimuth: -50, confidence: 1, levelDBFS: -20, active: true)
        let siren = SourceRecord(id: 2, azimuth: 20, confidence: 1, levelDBFS: -24, active: true)
        let ghost = SourceRecord(id: 3, azimuth: 70, confidence: 1, levelDBFS: -30, active: true)
        // Rounds 1–3: the talker ("a" 0.9) in the mixture; its track established. From round 2 a
        // talker's ghost is listed ("c", "d" 0.2); at round 3 a new source, whose masked patch
        // reads "b" with "d" at 0.05.
        let talkersGhost = SourceRecord(id: 4, azimuth: -10, confidence: 1, levelDBFS: -30, active: true)
        tracks.setListed([talker])
        for round in 1...3 {
            if round == 2 { tracks.setListed([talker, talkersGhost]) }
            if round == 3 { tracks.setListed([talker, talkersGhost, siren]) }
            tracks.storeBroadband(scores: Self.scores([0: 0.9]), signature: zeros, round: round)
            tracks.store(id: 1, azimuth: -50, scores: Self.scores([0: 0.9]), signature: zeros, round: round, separated: true)
            if round >= 2 {
                tracks.store(id: 4, azimuth: -10, scores: Self.scores([2: 0.3, 3: 0.2]), signature: zeros, round: round, separated: true)
            }
            if round == 3 {
                tracks.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3, 3: 0.05]), signature: zeros, round: round, separated: true)
            }
            tracks.leadAlert(round: round)
        }
        #expect(tracks.alertsLed == 0, "the mixture names no alert yet")
        // Round 4: the mixture's patch starts "d" (0.5, best). The talker's ghost, heard first of
        // all, is no longer active in the record: not a candidate. A phantom is listed, first
        // heard now, with more "d" in its mask (0.2) than the new source has: precedence gives
        // the alert to the source heard first. The talker's leak gives it "d" 0.3 beside its
        // "a" 0.8 (pooled, more "d" than the new source's), but it names another sound ("a").
        var silentGhost = talkersGhost
        silentGhost.active = false
        tracks.setListed([talker, siren, ghost, silentGhost])
        #expect(tracks.isNew(id: 2, round: 4) && !tracks.isNew(id: 1, round: 4), "the talker's track is 3 rounds old")
        tracks.storeBroadband(scores: Self.scores([3: 0.5, 0: 0.4]), signature: zeros, round: 4)
        tracks.store(id: 1, azimuth: -50, scores: Self.scores([0: 0.8, 3: 0.3]), signature: zeros, round: 4, separated: true)
        tracks.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3, 3: 0.05]), signature: zeros, round: 4, separated: true)
        tracks.store(id: 3, azimuth: 70, scores: Self.scores([2: 0.3, 3: 0.2]), signature: zeros, round: 4, separated: true)
        tracks.leadAlert(round: 4)
        let led = tracks.label(of: 2, azimuth: 20, round: 4)
        #expect(led?.alert == true && led?.alertName == "d", "\(String(describing: led))")
        #expect(led?.name == "b", "its own name is kept: \(String(describing: led))")
        #expect(tracks.label(of: 1, azimuth: -50, round: 4)?.alert == false)
        #expect(tracks.label(of: 3, azimuth: 70, round: 4) == nil)
        #expect(tracks.alertsLed == 1)
        // Round 5: the mixture holds "d" (among its three best at 0.15 or more): so does the track,
        // though its own pooled scores do not.
        tracks.storeBroadband(scores: Self.scores([0: 0.5, 3: 0.3]), signature: zeros, round: 5)
        tracks.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3, 3: 0.05]), signature: zeros, round: 5, separated: true)
        tracks.leadAlert(round: 5)
        #expect(tracks.label(of: 2, azimuth: 20, round: 5)?.alert == true)
        // Round 6: the mixture no longer holds it: the alert ends.
        tracks.storeBroadband(scores: Self.scores([0: 0.9, 3: 0.05]), signature: zeros, round: 6)
        tracks.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3, 3: 0.05]), signature: zeros, round: 6, separated: true)
        tracks.leadAlert(round: 6)
        #expect(tracks.label(of: 2, azimuth: 20, round: 6)?.alert == false)
        #expect(tracks.alertsLed == 1)
    }

    @Test("tracks: the mixture hands no alert to an established track, nor when it had named no other sound")
    func mixtureLeadsOnlyANewSound() {
        let zeros = [Float](repeating: 0, count: PatchSignature.count)
        let talker = SourceRecord(id: 1, azimuth: -50, confidence: 1, levelDBFS: -20, active: true)
        let old = SourceRecord(id: 2, azimuth: 20, confidence: 1, levelDBFS: -24, active: true)
        // The alert's sound is most in a track heard for 5 rounds: it must alert on its own evidence.
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 4)
        tracks.setListed([talker, old])
        for round in 1...5 {
            tracks.storeBroadband(scores: Self.scores([0: 0.9]), signature: zeros, round: round)
            tracks.store(id: 1, azimuth: -50, scores: Self.scores([0: 0.9]), signature: zeros, round: round, separated: true)
            tracks.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3]), signature: zeros, round: round, separated: true)
        }
        tracks.storeBroadband(scores: Self.scores([3: 0.5, 0: 0.4]), signature: zeros, round: 6)
        tracks.store(id: 1, azimuth: -50, scores: Self.scores([0: 0.9]), signature: zeros, round: 6, separated: true)
        tracks.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3, 3: 0.1]), signature: zeros, round: 6, separated: true)
        tracks.leadAlert(round: 6)
        #expect(tracks.label(of: 2, azimuth: 20, round: 6)?.alert == false)
        #expect(tracks.alertsLed == 0)
        // A mixture that named nothing at 0.5 before (the new sound is not beside another).
        let quiet = TrackLabels(classifier: FakeNamer(), capacity: 4)
        quiet.setListed([old])
        quiet.storeBroadband(scores: Self.scores([0: 0.3]), signature: zeros, round: 1)
        quiet.storeBroadband(scores: Self.scores([3: 0.5, 0: 0.3]), signature: zeros, round: 2)
        quiet.store(id: 2, azimuth: 20, scores: Self.scores([1: 0.3, 3: 0.1]), signature: zeros, round: 2, separated: true)
        quiet.leadAlert(round: 2)
        #expect(quiet.label(of: 2, azimuth: 20, round: 2) == nil)
        #expect(quiet.alertsLed == 0)
    }

    @Test("tracks: a new id near a labelled track the record no longer lists takes its label; a far one does not")
    func carryOver() {
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 3)
        tracks.setListed([SourceRecord(id: 1, azimuth: 30, confidence: 1, levelDBFS: -20, active: true)])
        for round in 1...3 { tracks.store(id: 1, azimuth: 30, scores: Self.scores([3: 0.9]), round: round) }
        tracks.setListed([
            SourceRecord(id: 2, azimuth: 35, confidence: 1, levelDBFS: -20, active: true),
            SourceRecord(id: 3, azimuth: -40, confidence: 1, levelDBFS: -20, active: true),
        ])
        #expect(tracks.label(of: 2, azimuth: 35, round: 4)?.name == "d")
        #expect(tracks.label(of: 3, azimuth: -40, round: 4) == nil)
    }

    @Test("tracks: a labelled track is due every other round; a new, weak or nearly alerting one at every round")
    func refresh() {
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 3)
        tracks.setListed([SourceRecord(id: 1, azimuth: 0, confidence: 1, levelDBFS: -20, active: true)])
        var due: [Bool] = []
        for round in 1...10 {
            let isDue = tracks.isDue(id: 1, round: round)
            due.append(isDue)
            if isDue { tracks.store(id: 1, azimuth: 0, scores: Self.scores([0: 0.9]), round: round) }
        }
        // Rounds 1–2 build the track (labelled from 2), then every other round: patches that do
        // not overlap.
        #expect(due == [true, true, false, true, false, true, false, true, false, true], "\(due)")
        // A track whose best name scores under the floor reports no label: due at every round.
        let weak = TrackLabels(classifier: FakeNamer(), capacity: 3)
        weak.setListed([SourceRecord(id: 1, azimuth: 0, confidence: 1, levelDBFS: -20, active: true)])
        for round in 1...6 {
            #expect(weak.isDue(id: 1, round: round))
            weak.store(id: 1, azimuth: 0, scores: Self.scores([0: 0.05], rest: 0.01), round: round)
        }
        // A labelled track with an alert class near (class "d" second, at 0.2): at every round, so
        // that its alert, if it comes, comes a round later and not two.
        let near = TrackLabels(classifier: FakeNamer(), capacity: 3)
        near.setListed([SourceRecord(id: 1, azimuth: 0, confidence: 1, levelDBFS: -20, active: true)])
        for round in 1...6 {
            #expect(near.isDue(id: 1, round: round))
            near.store(id: 1, azimuth: 0, scores: Self.scores([0: 0.9, 3: 0.2]), round: round)
        }
    }
    @Test("signatures: equal patches 0 apart; a patch raised by c in every value c/√2 from it (the means move, the deviations do not)")
    func signatures() {
        var random = SeededRandom(seed: 7)
        let patch: [Float] = (0..<(YAMNet.patchFrames * YAMNet.melBands)).map { _ in Float(random.uniform()) * 6 - 9 }
        let raised = patch.map { $0 + 0.7 }
        var a = [Float](repeating: 0, count: PatchSignature.count), b = a, c = a
        PatchSignature.compute(patch: patch, frames: YAMNet.patchFrames, into: &a)
        PatchSignature.compute(patch: patch, frames: YAMNet.patchFrames, into: &b)
        PatchSignature.compute(patch: raised, frames: YAMNet.patchFrames, into: &c)
        #expect(PatchSignature.distance(a, b) == 0)
        let shifted = PatchSignature.distance(a, c), expected = Float(0.7) / Float(2).squareRoot()
        #expect(abs(shifted - expected) < 1e-4)
        // The deviation half: uniform values on a width of 6 have a deviation of 6/√12 ≈ 1.73.
        let deviation = a[PatchSignature.count - 1], uniform = Float(6) / Float(12).squareRoot()
        #expect(abs(deviation - uniform) < 0.15)
    }

    @Test("tracks: a labelled track's unchanged patch is not classified, its last classified scores pooled again in its place; classified again 16 rounds on, and never near an alert")
    func unchanged() {
        let tracks = TrackLabels(classifier: FakeNamer(), capacity: 3)
        tracks.setListed([SourceRecord(id: 1, azimuth: 0, confidence: 1, levelDBFS: -20, active: true)])
        let signature = [Float](repeating: 0.5, count: PatchSignature.count)
        #expect(tracks.unchangedReference(id: 1, round: 1) == nil, "an unknown track")
        tracks.store(id: 1, azimuth: 0, scores: Self.scores([0: 0.9]), signature: signature, round: 1)
        #expect(tracks.unchangedReference(id: 1, round: 2) == nil, "not labelled yet")
        tracks.store(id: 1, azimuth: 0, scores: Self.scores([0: 0.9]), signature: signature, round: 2)
        #expect(tracks.unchangedReference(id: 1, round: 4)?[0] == 0.5)
        // Kept at rounds 4, 6, … 16 (past inheritRounds from its last classification, 2): its
        // label stands, and it stays due every other round.
        for round in stride(from: 4, through: 16, by: 2) {
            #expect(tracks.isDue(id: 1, round: round))
            #expect(tracks.unchangedReference(id: 1, round: round) != nil)
            tracks.keep(id: 1, azimuth: 2, round: round)
            #expect(tracks.label(of: 1, azimuth: 2, round: round)?.name == "a")
        }
        #expect(!tracks.isDue(id: 1, round: 17))
        #expect(tracks.unchangedReference(id: 1, round: 18) == nil, "16 rounds after round 2: classified again")
        // The pooling went on through the kept rounds: had it started again, one patch would
        // leave the track unlabelled; b (0.9) pooled a third into a (0.9) keeps a.
        tracks.store(id: 1, azimuth: 2, scores: Self.scores([1: 0.9]), signature: signature, round: 18)
        #expect(tracks.label(of: 1, azimuth: 2, round: 18)?.name == "a")
        // Kept rounds pool that last classified patch again: the sound has not changed since it,
        // so the label comes to name it. Pooled a 0.6, b 0.3 at round 18; kept at round 20:
        // a 0.4, b 0.5 (not 1.25 × a); at round 22: a 0.27, b 0.64.
        tracks.keep(id: 1, azimuth: 2, round: 20)
        #expect(tracks.label(of: 1, azimuth: 2, round: 20)?.name == "a")
        tracks.keep(id: 1, azimuth: 2, round: 22)
        let kept = tracks.label(of: 1, azimuth: 2, round: 22)
        #expect(kept?.name == "b" && abs((kept?.score ?? 0) - 0.636) < 0.005, "\(String(describing: kept))")
        // A labelled track with an alert class near is classified whatever its sound.
        let near = TrackLabels(classifier: FakeNamer(), capacity: 3)
        near.setListed([SourceRecord(id: 1, azimuth: 0, confidence: 1, levelDBFS: -20, active: true)])
        for round in 1...2 { near.store(id: 1, azimuth: 0, scores: Self.scores([0: 0.9, 3: 0.2]), signature: signature, round: round) }
        #expect(near.label(of: 1, azimuth: 0, round: 2) != nil && near.unchangedReference(id: 1, round: 4) == nil)
        // The mixture's label the same.
        let mixture = TrackLabels(classifier: FakeNamer(), capacity: 3)
        #expect(mixture.unchangedBroadbandReference(round: 1) == nil)
        mixture.storeBroadband(scores: Self.scores([2: 0.8]), signature: signature, round: 1)
        #expect(mixture.unchangedBroadbandReference(round: 3)?[0] == 0.5)
        mixture.keepBroadband(round: 3)
        #expect(!mixture.isBroadbandDue(round: 4) && mixture.broadbandLabel?.name == "c")
        // Its kept rounds pool its last classified patch again, as a track's do.
        mixture.storeBroadband(scores: Self.scores([1: 0.9]), signature: signature, round: 5)
        #expect(mixture.broadbandLabel?.name == "c", "c 0.8 → 0.54, b 0.01 → 0.31")
        mixture.keepBroadband(round: 7)
        mixture.keepBroadband(round: 9)
        #expect(mixture.broadbandLabel?.name == "b" && mixture.broadbandLatestScores[1] == 0.9)
        #expect(mixture.unchangedBroadbandReference(round: 17) == nil)
    }
}

extension TrackLabels {
    /// ``store(id:azimuth:scores:signature:round:)`` with a signature of zeros (tests that do
    /// not look at signatures).
    func store(id: Int, azimuth: Double, scores: [Float], round: Int) {
        let zeros = [Float](repeating: 0, count: PatchSignature.count)
        store(id: id, azimuth: azimuth, scores: scores, signature: zeros, round: round)
    }
}
