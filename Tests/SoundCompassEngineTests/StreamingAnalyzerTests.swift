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
            Array(signal.left[start..<end]).withUnsafeBufferPointer { l in
                Array(signal.right[start..<end]).withUnsafeBufferPointer { r in
                    analyzer.process(left: l, right: r) { records.append($0) }
                }
            }
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
        #expect(analyzer.nonFiniteSampleCount > 8000)
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
        #expect(throws: ConfigurationError.badHop(4096, frame: 2048)) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 2048, hopLength: 4096).validate()
        }
        #expect(throws: ConfigurationError.self) {
            try AnalysisConfiguration(sampleRate: 48000, frameLength: 64, array: ArrayModel(spacing: 1)).validate()
        }
    }

    @Test("default frames are about 43 ms, powers of two", arguments: [
        (8000.0, 256), (16000, 512), (22050, 1024), (44100, 2048), (48000, 2048), (96000, 4096),
    ])
    func defaultFrames(rate: Double, expected: Int) {
        #expect(AnalysisConfiguration.defaultFrameLength(sampleRate: rate) == expected)
        #expect(AnalysisConfiguration(sampleRate: rate).hopLength == expected / 2)
    }
}
