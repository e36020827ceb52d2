import SoundCompassEngine

/// Which records are written (`--active-only`, `--min-confidence`, `--every`): a filter between
/// the analyzer and a ``RecordWriter``. It keeps the analysis whole (a trace still sees every
/// frame) and only thins what is written.
///
/// With an ``interval``, time is cut into intervals `[k·interval, (k+1)·interval)` by record
/// time, and the **last** record of each interval that passes the other tests is written: the
/// tracked azimuth already smooths over the interval, so its last value is the interval's
/// bearing at its newest, and a live stream gets it one hop after the interval ends. (A median
/// of the frames would need every frame of the interval kept, and would mix the bearings of a
/// moving source.)
///
/// Offering a record does not allocate: the held record is copied field by field into storage
/// the selection owns, once it has held a record with as many bands (the sources' storage is
/// reserved at `init`).
package final class RecordSelection {
    /// Only records of active frames (``AnalysisRecord/active``).
    package let activeOnly: Bool
    /// Only records with at least this confidence, 0…1 (0: every record).
    package let minimumConfidence: Double
    /// One record per interval of this many seconds (`nil`: every record).
    package let interval: Double?

    private var held = AnalysisRecord()
    private var holding = false
    private var heldInterval = 0.0

    /// - Parameters:
    ///   - activeOnly: only records of active frames.
    ///   - minimumConfidence: only records with at least this confidence, 0…1.
    ///   - interval: one record per interval of this many seconds (positive), the last of each.
    package init(activeOnly: Bool = false, minimumConfidence: Double = 0, interval: Double? = nil) {
        precondition(minimumConfidence.isFinite, "the minimum confidence is a number")
        precondition(interval.map { $0.isFinite && $0 > 0 } ?? true, "the interval is a positive number of seconds")
        self.activeOnly = activeOnly
        self.minimumConfidence = minimumConfidence
        self.interval = interval
        // Room for the most sources a record can carry, so that holding one never grows it.
        held.sources.reserveCapacity(AnalysisConfiguration.maximumSources)
    }

    /// True when every record passes (no test asked).
    package var passesEverything: Bool { !activeOnly && minimumConfidence <= 0 && interval == nil }

    /// True when `record` passes the active and confidence tests.
    @inline(__always)
    package func accepts(_ record: AnalysisRecord) -> Bool {
        (!activeOnly || record.active) && record.confidence >= minimumConfidence
    }

    /// Takes in the next record (in time order); calls `emit` with each record to write: with an
    /// interval, the held last record of an interval once a record of a later interval passes.
    package func offer<E: Error>(_ record: AnalysisRecord, emit: (AnalysisRecord) throws(E) -> Void) throws(E) {
        guard accepts(record) else { return }
        guard let interval else { return try emit(record) }
        let index = (record.time / interval).rounded(.down)
        if holding && index != heldInterval {
            holding = false
            try emit(held)
        }
        hold(record)
        heldInterval = index
    }

    /// Ends the stream: emits the record still held (the last interval's), if any.
    package func finish<E: Error>(emit: (AnalysisRecord) throws(E) -> Void) throws(E) {
        guard holding else { return }
        holding = false
        try emit(held)
    }

    /// Copies `record` into ``held`` without sharing its bands and sources arrays: the analyzer
    /// mutates its own record's arrays in place, and a shared array would make it copy them
    /// (allocate).
    private func hold(_ record: AnalysisRecord) {
        holding = true
        var bands = held.bands, sources = held.sources
        held.bands = []  // `bands` is now the only reference: writing its elements does not copy it
        held.sources = []
        // The sources vary in number: kept in storage reserved for the most there can be.
        sources.removeAll(keepingCapacity: true)
        sources.append(contentsOf: record.sources)
        if bands.count == record.bands.count {
            for i in record.bands.indices { bands[i] = record.bands[i] }
        } else {
            bands = record.bands.map { $0 }  // a new array, once per band count
        }
        held = record
        held.bands = bands
        held.sources = sources
    }
}
