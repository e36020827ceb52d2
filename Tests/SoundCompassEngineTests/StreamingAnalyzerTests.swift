import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

struct StreamingAnalyzerTests {
    @Test("one record per hop, time at the frame centre from the sample count")
    func framing() throws {
        let signal = stillSource(azimuth: 10, duration: 1)
        let config = AnalysisConfiguration(sampleRate: 48000, frameLength: 2048, hopLength: 1024)
        let records = try analyze(signal, configuration: config)
        #expect(records.count == (48000 - 2048) / 1024 + 1)
        for (i, r) in records.enumerated() {
            #expect(r.frame == i)
            #expect(abs(r.time - (Double(i * 1024) + 1024) / 48000) < 1e-12)
        }
    }

    @Test("block size does not change the records", arguments: [1, 17, 1000, 4096, 100_000])
    func blockSizeInvariance(block: Int) throws {
        let signal = stillSource(azimuth: -35, duration: 0.7, snr: 10)
        let reference = try analyze(signal)
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: 48000))
        var records: [AnalysisRecord] = []
        var start = 0
        while start < signal.count {
            let end = min(signal.count, start + block)
            // The public Span form, as an audio callback would feed it.
            analyzer.process(
                left: signal.left[start..<end].span, right: signal.right[start..<end].span
            ) { records.append($0) }
            start = end
        }
        #expect(records == reference)
    }

    @Test("NaN and Inf samples never reach a record")
    func nonFiniteInput() throws {
        var signal = stillSource(azimuth: 25, duration: 1)
        for i in stride(from: 100, to: signal.count, by: 997) { signal.left[i] = .nan }
        for i in stride(from: 300, to: signal.count, by: 1301) { signal.right[i] = .infinity }
        for i in 20000..<24000 { signal.left[i] = -.infinity; signal.right[i] = .nan }
        signal.left[30000] = 3e38
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: 48000))
        var records: [AnalysisRecord] = []
        signal.left.withUnsafeBufferPointer { l in
            signal.right.withUnsafeBufferPointer { r in analyzer.process(left: l, right: r) { records.append($0) } }
        }
        // Every non-finite sample of either channel is counted once (3e38 is finite: clamped, not counted).
        let damagedLeft = Set(stride(from: 100, to: signal.count, by: 997)).union(20000..<24000)
        let damagedRight = Set(stride(from: 300, to: signal.count, by: 1301)).union(20000..<24000)
        #expect(analyzer.nonFiniteSampleCount == damagedLeft.count + damagedRight.count)
        for r in records {
            let numbers = [r.time, r.azimuth, r.lateral, r.confidence, r.ildDecibels, r.itdMicroseconds, r.levelDBFS,
                           r.itdConfidence, r.ildConfidence]
            #expect(numbers.allSatisfy { $0.isFinite }, "frame \(r.frame): \(numbers)")
        }
        // Frames away from the damage still find the source.
        #expect(abs(median(records.map(\.azimuth)) - 25) < 1)
    }

    @Test("configuration checks name the problem")
    func validation() {
        #expect(throws: ConfigurationError.sampleRateTooLow(4000)) {
            try AnalysisConfiguration(sampleRate: 4000).validate()
        }
        // NaN is not equal to itself: match the case and look at its value.
        do {
            try AnalysisConfiguration(sampleRate: .nan, frameLength: 2048).validate()
            Issue.record("a NaN sample rate was accepted")
        } catch {
            guard case .sampleRateTooLow(let rate) = error else { Issue.record("\(error)"); return }
            #expect(rate.isNaN)
        }
        #expect(throws: ConfigurationError.sampleRateTooHigh(1e6)) {
            try AnalysisConfiguration(sampleRate: 1e6).validate()
        }
        #expect(throws: ConfigurationError.frameTooShort(32)) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 32).validate()
        }
        #expect(throws: ConfigurationError.frameTooLong(1 << 21)) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 1 << 21).validate()
        }
        #expect(throws: ConfigurationError.badHop(4096, frame: 2048)) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 2048, hopLength: 4096).validate()
        }
        #expect(throws: ConfigurationError.badHop(0, frame: 2048)) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 2048, hopLength: 0).validate()
        }
        #expect(throws: ConfigurationError.badSmoothing(1.5)) {
            try AnalysisConfiguration(sampleRate: 48000, coherenceSmoothing: 1.5).validate()
        }
        #expect(throws: ConfigurationError.badTailDecayRate(-1)) {
            try AnalysisConfiguration(sampleRate: 48000, tailDecayDecibelsPerSecond: -1).validate()
        }
        // 64 samples at 48 kHz are bins of 750 Hz: the 100–500 Hz band is narrower than two.
        #expect(throws: ConfigurationError.bandTooNarrow("low", frame: 64)) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 64).validate()
        }
        // Without bands, the next check: a 1 m array needs lags of ±140 samples, more than a
        // 64-sample frame holds.
        let wide = AnalysisConfiguration(sampleRate: 48000, frameLength: 64, array: ArrayModel(spacingMeters: 1), bands: [])
        #expect(abs(wide.maximumLagSamples - 48000 / 343) < 1e-9)
        #expect(throws: ConfigurationError.frameShorterThanArray(64, maxLagSamples: wide.maximumLagSamples)) {
            try wide.validate()
        }
        // The analyzer refuses what validate() refuses, with the same error.
        #expect(throws: ConfigurationError.frameTooShort(32)) {
            try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: 48000, frameLength: 32))
        }
        // And the defaults pass.
        #expect(throws: Never.self) { try AnalysisConfiguration(sampleRate: 48000).validate() }
    }

    @Test("default frames are about 43 ms, powers of two", arguments: [
        (8000.0, 256), (16000, 512), (22050, 1024), (44100, 2048), (48000, 2048), (96000, 4096),
    ])
    func defaultFrames(rate: Double, expected: Int) {
        #expect(AnalysisConfiguration.defaultFrameLength(sampleRate: rate) == expected)
        #expect(AnalysisConfiguration(sampleRate: rate).hopLength == expected / 2)
    }
}
