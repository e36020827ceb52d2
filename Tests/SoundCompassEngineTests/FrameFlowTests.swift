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
    /// move left by 1° a hop. Told the shift, the multi-source tracker predicts each move and
    /// stays on the candidate; not told, it lags by over a degree until its velocity catches up.
    @Test("the multi-source tracker follows a head turn it is told of")
    func sourcesFollowTheShift() throws {
        let config = AnalysisConfiguration(sampleRate: 48000)
        func worstLag(told: Bool) -> Double {
            let tracker = MultiSourceTracker(configuration: config, candidateCapacity: 4)
            var records = MultiSourceTracker.makeRecords(capacity: config.maxSources)
            var worst = 0.0
            for frame in 0..<150 {
                let turning = frame > 60 && frame <= 100  // the candidate moves at frames 61…100
                let azimuth = 30.0 - Double(max(0, min(40, frame - 60)))
                let candidates = [SourceCandidate(azimuth: azimuth, strength: 0.3, share: 1)]
                tracker.update(
                    candidates: candidates, count: 1, averageLevelDBFS: -20, shift: told && turning ? -1 : 0,
                    into: &records)
                if frame >= 60, let source = records.first { worst = max(worst, abs(source.azimuth - azimuth)) }
            }
            #expect(records.count == 1)
            return worst
        }
        let told = worstLag(told: true), untold = worstLag(told: false)
        #expect(told < 0.01, "told of the turn: \(told)°")
        #expect(untold > 1, "not told: \(untold)°")
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
