import CMallocCounter
import CSoundCompass
import Foundation
import SoundCompassC
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

/// The C interface's per-frame path allocates nothing either: `sc_analyzer_write` of blocks no
/// longer than before and `sc_analyzer_read` into the caller's structs (written samples), and a
/// file analyzer's reads (the Python package's `analyze_file`).
@Suite("Allocations of the C interface", .enabled(if: availableOrOnCI(malloc_counter_available() == 1), "needs glibc's allocator"))
struct CInterfaceAllocationTests {
    /// On CI the suite runs even without the counter, and fails here.
    init() throws { try AllocationTests.requireCounter() }

    /// Room for `capacity` records of an analyzer with `info`'s bands and sources.
    struct Buffers {
        var records: [sc_record]
        var bands: [sc_band]
        var sources: [sc_source]

        init(capacity: Int, info: sc_info) {
            records = Array(repeating: sc_record(), count: capacity)
            bands = Array(repeating: sc_band(), count: capacity * max(1, Int(info.band_count)))
            sources = Array(repeating: sc_source(), count: capacity * max(1, Int(info.max_sources)))
        }

        /// `sc_analyzer_read` until it writes nothing; returns the records read.
        mutating func readAll(_ analyzer: OpaquePointer?) -> Int {
            var total = 0
            while true {
                var count = 0
                let capacity = records.count
                let status = records.withUnsafeMutableBufferPointer { r in
                    bands.withUnsafeMutableBufferPointer { b in
                        sources.withUnsafeMutableBufferPointer { s in
                            scAnalyzerRead(analyzer, r.baseAddress, b.baseAddress, s.baseAddress, capacity, &count)
                        }
                    }
                }
                guard status == SC_OK, count > 0 else { return total }
                total += count
            }
        }
    }

    static func info(_ analyzer: OpaquePointer?) -> sc_info {
        var info = sc_info()
        _ = scAnalyzerInfo(analyzer, &info)
        return info
    }

    @Test("written samples read out as records allocate nothing per frame")
    func writtenSamples() throws {
        let signal = AllocationTests.scene(.spaced(spacing: 0.15))
        var analyzer: OpaquePointer?
        #expect(scAnalyzerCreate(AllocationTests.sampleRate, 0, nil, &analyzer, nil, 0) == SC_OK)
        defer { scAnalyzerDestroy(analyzer) }
        var buffers = Buffers(capacity: 8, info: Self.info(analyzer))
        let block = 1000
        let warmUp = Int(AllocationTests.warmUp * AllocationTests.sampleRate) / block * block
        var records = 0
        func feed(_ range: Range<Int>) {
            for start in stride(from: range.lowerBound, to: range.upperBound, by: block) {
                let n = min(block, range.upperBound - start)
                signal.left.withUnsafeBufferPointer { l in
                    signal.right.withUnsafeBufferPointer { r in
                        _ = scAnalyzerWrite(analyzer, l.baseAddress! + start, r.baseAddress! + start, n)
                    }
                }
                records += buffers.readAll(analyzer)
            }
        }
        feed(0..<warmUp)
        let counts = AllocationTests.allocations { feed(warmUp..<signal.left.count) }
        print("C interface, written samples: \(counts.allocations) allocations, \(records) records")
        #expect(records == StereoSourceAllocationTests.expectedRecords(
            samples: signal.left.count, Self.configuration(analyzer)))
        #expect(counts.allocations == 0, "\(counts.allocations) heap allocations over \(records) records")
    }

    @Test("a file analyzer's records allocate nothing per frame")
    func fileAnalyzer() throws {
        let signal = AllocationTests.scene(.spaced(spacing: 0.15))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("c-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try SoundFileWriter(path: path, sampleRate: Int(AllocationTests.sampleRate))
        try writer.write(channels: [signal.left, signal.right])
        writer.close()
        var analyzer: OpaquePointer?
        #expect(scAnalyzerOpenFile(path, 0, nil, &analyzer, nil, 0) == SC_OK)
        defer { scAnalyzerDestroy(analyzer) }
        var buffers = Buffers(capacity: 4, info: Self.info(analyzer))
        // The first records (the reader's and the analyzer's first blocks) before counting.
        var warm = 0
        while warm < 100 {
            var count = 0
            let status = buffers.records.withUnsafeMutableBufferPointer { r in
                buffers.bands.withUnsafeMutableBufferPointer { b in
                    buffers.sources.withUnsafeMutableBufferPointer { s in
                        scAnalyzerRead(analyzer, r.baseAddress, b.baseAddress, s.baseAddress, 4, &count)
                    }
                }
            }
            #expect(status == SC_OK)
            warm += count
        }
        var records = 0
        let counts = AllocationTests.allocations { records = buffers.readAll(analyzer) }
        print("C interface, file: \(counts.allocations) allocations, \(warm + records) records")
        #expect(warm + records == StereoSourceAllocationTests.expectedRecords(
            samples: signal.left.count, Self.configuration(analyzer)))
        #expect(counts.allocations == 0, "\(counts.allocations) heap allocations over \(records) records")
    }

    /// The framing of `analyzer`, for the expected record count.
    static func configuration(_ analyzer: OpaquePointer?) -> AnalysisConfiguration {
        let info = info(analyzer)
        return AnalysisConfiguration(
            sampleRate: info.sample_rate, frameLength: Int(info.frame_length), hopLength: Int(info.hop_length))
    }
}
