import Testing
@testable import SoundCompassEngine

/// The explicit parts of one frame's path (issue 29): the head turn's shift as a value given
/// to both trackers, and the band bank that frames its own streams.
@Suite("One frame's path")
struct FrameFlowTests {
    @Test("the head turn's shift: front moves against the turn, back with it, unknown not at all",
          arguments: [(Hemisphere.front, -3.0), (.back, 3.0), (.unknown, 0.0)])
    func headTurnShift(hemisphere: Hemisphere, expected: Double) {
        var turn = HeadTurn()
        // No previous yaw: no shift.
        #expect(turn.shift(yaw: 10, hemisphere: hemisphere) == 0)
        // Turned right by 3°.
        #expect(turn.shift(yaw: 13, hemisphere: hemisphere) == expected)
        // A frame the IMU says nothing about breaks the chain.
        #expect(turn.shift(yaw: nil, hemisphere: hemisphere) == 0)
        #expect(turn.shift(yaw: 20, hemisphere: hemisphere) == 0)
        turn.reset()
        #expect(turn.shift(yaw: 25, hemisphere: hemisphere) == 0)
    }

    /// A still source ahead while the head turns right at 1° per hop for 40 hops: the candidates
    /// move left by 1° a hop. Told the yaw (and the source's hemisphere, as ``SourceFrontBack``
    /// tells it), the multi-source tracker predicts each move and stays on the candidate; not
    /// told, it lags by over a degree until its velocity catches up.
    @Test("the multi-source tracker follows a head turn it is told of")
    func sourcesFollowTheShift() throws {
        let config = AnalysisConfiguration(sampleRate: 48000)
        func worstLag(told: Bool) -> Double {
            let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
            var records = MultiSourceTracker.makeRecords(capacity: config.maxSources)
            var worst = 0.0
            for frame in 0..<150 {
                let yaw = Double(max(0, min(40, frame - 60)))  // the candidate moves at frames 61…100
                let azimuth = 30.0 - yaw
                let candidates = [SourceCandidate(azimuth: azimuth, strength: 0.3, share: 1)]
                tracker.update(
                    candidates: candidates, count: 1, averageLevelDBFS: -20, yaw: told ? yaw : nil, into: &records)
                for source in records { tracker.setHemisphere(.front, ofSourceWithID: source.id) }
                if frame >= 60, let source = records.first { worst = max(worst, abs(source.azimuth - azimuth)) }
            }
            #expect(records.count == 1)
            return worst
        }
        let told = worstLag(told: true), untold = worstLag(told: false)
        #expect(told < 0.01, "told of the turn: \(told)°")
        #expect(untold > 1, "not told: \(untold)°")
    }

    @Test("a turn moves a source ahead against it, one behind with it, and one past the pair's axis back across it",
          arguments: [
            (30.0, Hemisphere.front, 10.0, 20.0, Hemisphere.front),
            (30.0, .back, 10.0, 40.0, .back),
            (-60.0, .back, -20.0, -80.0, .back),
            (-30.0, .front, 20.0, -50.0, .front),
            (80.0, .front, -20.0, 80.0, .back),  // 100° to the right: behind now
            (-80.0, .back, -20.0, -80.0, .front),  // −100° turned left by 20°: −80°, ahead now
            (30.0, .unknown, 10.0, 30.0, .unknown),
          ])
    func turnedBearing(lateral: Double, hemisphere: Hemisphere, turn: Double, expected: Double, after: Hemisphere) {
        let (moved, now) = MultiSourceTracker.turned(lateral, hemisphere: hemisphere, by: turn)
        #expect(abs(moved - expected) < 1e-9, "\(moved)° against \(expected)°")
        #expect(now == after)
    }

    /// A source ahead at world bearing 10° and one behind at 150° (lateral 30°), heard while the
    /// head turns left by 20° at 0.5° a hop: ahead it moves right (10° → 30°), behind left
    /// (30° → 10°), and they cross at yaw −10°, where the pair hears one peak between them for a
    /// few frames. Each source keeps its id through the crossing, and no new id is issued.
    @Test("two sources moved across each other by a turn keep their ids")
    func crossingKeepsIDs() throws {
        let config = AnalysisConfiguration(sampleRate: 48000)
        let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
        var records = MultiSourceTracker.makeRecords(capacity: config.maxSources)
        var ahead = 0, behind = 0
        var idsSeen = Set<Int>()
        for frame in 0..<200 {
            let yaw = -0.5 * Double(max(0, min(40, frame - 80)))
            let a = 10 - yaw, b = MultiSourceTracker.turned(30, hemisphere: .back, by: yaw).lateral
            var candidates = [
                SourceCandidate(azimuth: a, strength: 0.3, share: 0.5), SourceCandidate(azimuth: b, strength: 0.25, share: 0.5),
            ]
            if abs(a - b) < 3 { candidates = [SourceCandidate(azimuth: (a + b) / 2, strength: 0.3, share: 1)] }
            tracker.update(candidates: candidates, count: candidates.count, averageLevelDBFS: -20, yaw: yaw, into: &records)
            if frame == 60 {
                #expect(records.count == 2)
                ahead = records.min { abs($0.azimuth - a) < abs($1.azimuth - a) }?.id ?? 0
                behind = records.min { abs($0.azimuth - b) < abs($1.azimuth - b) }?.id ?? 0
                #expect(ahead != behind)
            }
            // As SourceFrontBack would tell it.
            for source in records where frame >= 60 {
                tracker.setHemisphere(source.id == ahead ? .front : .back, ofSourceWithID: source.id)
            }
            if frame >= 60 { for source in records { idsSeen.insert(source.id) } }
        }
        #expect(idsSeen == [ahead, behind])
        let end = (ahead: 30.0, behind: 10.0)
        let heardAhead = try #require(records.first { $0.id == ahead }), heardBehind = try #require(records.first { $0.id == behind })
        #expect(abs(heardAhead.azimuth - end.ahead) < 1, "ahead: \(heardAhead.azimuth)°")
        #expect(abs(heardBehind.azimuth - end.behind) < 1, "behind: \(heardBehind.azimuth)°")
    }

    @Test("the broadband tracker takes a shift that starts off the rate it had learned as the source's",
          arguments: [0.9, 0.3])
    func trackerRemovesTheLearnedRate(confidence: Double) {
        // A source ahead while the head turns at 0.5° a hop; for the first 60 hops the turning
        // is not known (the hemisphere is not yet resolved), then it is.
        var tracker = AzimuthTracker(hopDuration: 0.02)
        var worst = 0.0
        for frame in 0..<150 {
            let measurement = 60.0 - Double(frame) * 0.5
            let shift = frame >= 60 ? -0.5 : 0
            let tracked = tracker.update(measurement: measurement, confidence: confidence, shift: shift)
            if frame >= 60 { worst = max(worst, abs(tracked - measurement)) }
        }
        // Had the learned rate (−25°/s) stayed, the known shift would count the turn twice.
        #expect(worst < 0.3, "worst \(worst)°")
    }

    @Test("the band bank's levels need a full frame, and it cannot be overfilled")
    func bankFramesItself() async {
        await #expect(processExitsWith: .failure) {
            let bank = BandFilterBank(bands: BandSpec.defaults, sampleRate: 48000, frameLength: 64)
            let x = [Float](repeating: 0.1, count: 32)
            x.withUnsafeBufferPointer { p in bank.append(left: p.baseAddress!, right: p.baseAddress!, count: 32) }
            _ = bank.levels(0)
        }
        await #expect(processExitsWith: .failure) {
            let bank = BandFilterBank(bands: BandSpec.defaults, sampleRate: 48000, frameLength: 64)
            let x = [Float](repeating: 0.1, count: 65)
            x.withUnsafeBufferPointer { p in bank.append(left: p.baseAddress!, right: p.baseAddress!, count: 65) }
        }
    }
}
