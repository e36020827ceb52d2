// The one place a RecordLabeler (Records/RecordLabeler.swift) is wired into the analysis:
// `analyze`, `trace` and `live` all feed their blocks through this.

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
