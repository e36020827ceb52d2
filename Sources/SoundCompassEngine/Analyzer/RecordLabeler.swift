/// A second analysis of the same samples that adds to each record what it finds (the sound
/// classifier of the `SoundCompassClassifier` module fills ``AnalysisRecord/label`` and each
/// source's ``SourceRecord/label``). It is declared here, beside the analyzer it follows, so that
/// the classifier depends on the engine alone; ``StreamingAnalyzer/process(left:right:labeler:emit:)``
/// is the one place it is wired in (for `analyze`, `trace` and `live` alike).
public protocol RecordLabeler: AnyObject {
    /// Takes in a block of the stream (the same samples the analyzer gets, in order).
    /// - Parameters:
    ///   - left: left-channel samples, linear full scale.
    ///   - right: right-channel samples, as many as `left`.
    func append(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>)

    /// Calls `emit` with `record` and what the labeler knows added to it.
    /// - Parameters:
    ///   - record: a record of the analyzer, in order.
    ///   - emit: called once, with the labelled record.
    func label(_ record: AnalysisRecord, emit: (AnalysisRecord) throws -> Void) rethrows
}

extension StreamingAnalyzer {
    /// Takes in a block of samples like ``process(left:right:emit:)``, with a labeler: the block
    /// goes to `labeler` first, then to the analyzer, and each record reaches `emit` through
    /// ``RecordLabeler/label(_:emit:)``. Without a labeler, the records go straight to `emit`.
    /// Allocates nothing of its own.
    /// - Parameters:
    ///   - left: left-channel samples, linear full scale.
    ///   - right: right-channel samples, as many as `left`.
    ///   - labeler: the record labeler, if any.
    ///   - emit: called once per completed frame, in order, with the (labelled) record.
    /// - Throws: what `emit` throws.
    package func process(
        left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>, labeler: (any RecordLabeler)?,
        emit: (AnalysisRecord) throws -> Void
    ) throws {
        guard let labeler else {
            try process(left: left, right: right, emit: emit)
            return
        }
        labeler.append(left: left, right: right)
        try process(left: left, right: right) { (record) throws in
            try labeler.label(record, emit: emit)
        }
    }
}
