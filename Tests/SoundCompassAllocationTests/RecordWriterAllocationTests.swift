import CMallocCounter
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

/// Writing records allocates nothing once the writer's buffers have grown: every format and
/// text view, with `--fields` and with a selection that holds records (`--every`), fed by the
/// analyzer as the CLI feeds it (so a held record that shared the analyzer's bands array, which
/// the analyzer then writes in place, would show up as copies here).
@Suite("Allocations of the record writer", .enabled(if: availableOrOnCI(malloc_counter_available() == 1), "needs glibc's allocator"))
struct RecordWriterAllocationTests {
    /// On CI the suite runs even without the counter, and fails here.
    init() throws { try AllocationTests.requireCounter() }

    struct Setup: Sendable, CustomTestStringConvertible {
        var name: String
        var format: RecordFormat
        var view: TextView = .bearing
        var fields: RecordFields? = nil
        var columns = 80
        var activeOnly = false
        var minimumConfidence = 0.0
        var interval: Double? = nil
        var testDescription: String { name }
    }

    static let setups: [Setup] = [
        Setup(name: "jsonl", format: .jsonl),
        Setup(name: "csv", format: .csv),
        Setup(name: "text, 80 columns", format: .text),
        Setup(name: "text, 200 columns", format: .text, columns: 200),
        Setup(name: "text, bands view", format: .text, view: .bands),
        Setup(name: "jsonl --fields time,azimuth,confidence --every 100ms", format: .jsonl,
              fields: RecordFields([.time, .azimuth, .confidence]), interval: 0.1),
        Setup(name: "jsonl --every 100ms (bands held)", format: .jsonl, interval: 0.1),
        Setup(name: "csv --active-only --min-confidence 0.5", format: .csv, activeOnly: true, minimumConfidence: 0.5),
    ]

    @Test("write(_:) allocates nothing per record", arguments: setups)
    func writer(setup: Setup) throws {
        let signal = AllocationTests.scene(.spaced(spacing: 0.15))
        let configuration = AnalysisConfiguration(sampleRate: AllocationTests.sampleRate)
        let analyzer = try StreamingAnalyzer(configuration: configuration)
        let writer = RecordWriter(
            format: setup.format, sink: try LineSink(path: "/dev/null"), bandNames: configuration.usableBands.map(\.name),
            fields: setup.fields, columns: setup.columns, view: setup.view,
            selection: RecordSelection(activeOnly: setup.activeOnly, minimumConfidence: setup.minimumConfidence, interval: setup.interval))
        let left = signal.left, right = signal.right
        let warmUpEnd = Int(AllocationTests.warmUp * AllocationTests.sampleRate)
        var failures = 0, records = 0
        // The warm-up grows the buffers (a line, a held record with its bands).
        analyzer.process(left: left.span.extracting(0..<warmUpEnd), right: right.span.extracting(0..<warmUpEnd)) { record in
            do { try writer.write(record) } catch { failures += 1 }
        }
        let block = 512
        let count = AllocationTests.allocations {
            let l = left.span, r = right.span
            var start = warmUpEnd
            while start < l.count {
                let end = min(l.count, start + block)
                analyzer.process(left: l.extracting(start..<end), right: r.extracting(start..<end)) { record in
                    records += 1
                    do { try writer.write(record) } catch { failures += 1 }
                }
                start = end
            }
        }
        try writer.finish()
        print("\(setup.name): \(count.allocations) allocations over \(records) records; "
              + "\(count.swiftRuntimeInternal) runtime-internal\(AllocationTests.optimized ? "" : ", unoptimised build")")
        #expect(failures == 0)
        #expect(records > 200)
        #expect(count.allocations == 0, "\(count.allocations) heap allocations writing \(records) records")
        if AllocationTests.optimized {
            #expect(count.swiftRuntimeInternal == 0, "\(count.swiftRuntimeInternal) coroutine frames in an optimised build")
        }
    }
}
