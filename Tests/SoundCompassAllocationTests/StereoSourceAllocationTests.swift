import CMallocCounter
import Foundation
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

/// Reading a source through the public span form, `read(left:right:)` into two
/// `MutableSpan<Float>`, allocates nothing once the source has read its first blocks: the read
/// and the analysis of a block together are the per-frame path of `analyze` and `live`.
@Suite("Allocations of a source's reads", .enabled(if: availableOrOnCI(malloc_counter_available() == 1), "needs glibc's allocator"))
struct StereoSourceAllocationTests {
    /// On CI the suite runs even without the counter, and fails here.
    init() throws { try AllocationTests.requireCounter() }

    /// Reads `source` to its end in blocks of `block` frames, analysing each; the first
    /// ``AllocationTests/warmUp`` seconds (the source's and the analyzer's warm-up, as in
    /// ``AllocationTests``) are read before counting.
    /// - Returns: the allocations counted, frames read in the counted region, records emitted.
    static func readAll<Source: StereoSource>(
        _ source: Source, analyzer: StreamingAnalyzer, block: Int
    ) throws(Source.Failure) -> (counts: malloc_counts, frames: Int, records: Int) {
        var left = [Float](repeating: 0, count: block), right = left
        var frames = 0, records = 0
        var failure: Source.Failure?
        var warmUpFrames = Int(AllocationTests.warmUp * source.sampleRate)
        func step() -> Bool {
            var leftSpan = left.mutableSpan, rightSpan = right.mutableSpan
            let n: Int
            do throws(Source.Failure) { n = try source.read(left: &leftSpan, right: &rightSpan) } catch {
                failure = error
                return false
            }
            guard n > 0 else { return false }
            analyzer.process(left: leftSpan.span.extracting(0..<n), right: rightSpan.span.extracting(0..<n)) { _ in
                records += 1
            }
            if warmUpFrames > 0 { warmUpFrames -= n } else { frames += n }
            return true
        }
        while warmUpFrames > 0, step() {}
        let counts = AllocationTests.allocations { while step() {} }
        if let failure { throw failure }
        return (counts, frames, records)
    }

    @Test("a sound file read and analysed block by block allocates nothing per block")
    func soundFileReader() throws {
        let signal = AllocationTests.scene(.spaced(spacing: 0.15))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("source-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try SoundFileWriter(path: path, sampleRate: Int(AllocationTests.sampleRate))
        try writer.write(channels: [signal.left, signal.right])
        writer.close()
        let reader = try SoundFileReader(path: path)
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: reader.sampleRate))
        let (counts, frames, records) = try Self.readAll(reader, analyzer: analyzer, block: 512)
        print("sound file: \(counts.allocations) allocations over \(frames) frames read, \(records) records")
        #expect(frames == signal.left.count - Self.warmUpFrames(block: 512))
        #expect(records == Self.expectedRecords(samples: signal.left.count, analyzer.configuration))
        #expect(counts.allocations == 0, "\(counts.allocations) heap allocations reading \(frames) frames")
    }

    /// Frames read before counting: whole blocks up to ``AllocationTests/warmUp``.
    static func warmUpFrames(block: Int) -> Int {
        let warmUp = Int(AllocationTests.warmUp * AllocationTests.sampleRate)
        return (warmUp + block - 1) / block * block
    }

    /// Frames an analysis of `samples` samples completes.
    static func expectedRecords(samples: Int, _ configuration: AnalysisConfiguration) -> Int {
        (samples - configuration.frameLength) / configuration.hopLength + 1
    }

    @Test("samples in memory read and analysed block by block allocate nothing per block")
    func memory() throws {
        let signal = AllocationTests.scene(.spaced(spacing: 0.15))
        let source = MemoryStereoSource(left: signal.left, right: signal.right, sampleRate: AllocationTests.sampleRate)
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: source.sampleRate))
        let (counts, frames, records) = Self.readAll(source, analyzer: analyzer, block: 480)
        #expect(frames == signal.left.count - Self.warmUpFrames(block: 480))
        #expect(records == Self.expectedRecords(samples: signal.left.count, analyzer.configuration))
        #expect(counts.allocations == 0, "\(counts.allocations) heap allocations reading \(frames) frames")
    }
}
