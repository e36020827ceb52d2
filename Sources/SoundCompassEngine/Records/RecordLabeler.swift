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
