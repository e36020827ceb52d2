// Built with the Serve trait only (Package.swift).
#if Serve
import SoundCompassEngine
import SoundCompassIO

/// Formats each record of the analysis once, as the JSON line `--format jsonl` writes with every
/// field, and publishes it to a ``RecordBroadcast`` with the wall-clock time its frame ended.
/// Used on the analysis thread only; reuses its buffers, so a record costs no allocation once
/// they have grown.
package final class ServedRecordFormatter {
    private final class Moment {
        var wallNanoseconds: Int64 = 0
    }

    private let writer: RecordWriter
    private let moment = Moment()

    /// Records carry what the sound classifier found (`label`, `label_score`, `next_labels`,
    /// `next_scores` on the record and each source, and `alert`), as stdout's do: set when
    /// classification is on (``RecordWriter/labels``).
    package var labels: Bool {
        get { writer.labels }
        set { writer.labels = newValue }
    }

    /// - Parameters:
    ///   - broadcast: where records go.
    ///   - bandNames: the bands every record carries.
    ///   - orientation: records carry `yaw` and `world_azimuth`.
    ///   - sources: records carry the tracked sources.
    package init(broadcast: RecordBroadcast, bandNames: [String], orientation: Bool, sources: Bool) {
        let moment = self.moment
        let sink = LineSink(name: "served records") { line in
            broadcast.publish(line: line, wallNanoseconds: moment.wallNanoseconds)
        }
        writer = RecordWriter(format: .jsonl, sink: sink, bandNames: bandNames, orientation: orientation, sources: sources)
    }

    /// The period whose records come next ended at this moment of the monotonic clock
    /// (``MonotonicClock``, ns): their `wall_time`.
    package func periodStarted(monotonic: UInt64) {
        moment.wallNanoseconds = WallClock.nanoseconds(ofMonotonic: monotonic)
    }

    /// Publishes one record.
    package func publish(_ record: AnalysisRecord) {
        // The sink never fails: it hands the bytes to the broadcast.
        try? writer.write(record)
    }
}
#endif
