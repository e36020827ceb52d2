// The public ways to feed a `StreamingAnalyzer`: a borrowed `Span` with a closure per record
// (zero allocation, for real-time paths), and plain arrays that return the records (for apps
// and tests). Both keep the analyzer's state between calls, so any chunk size works.

extension StreamingAnalyzer {
    /// Takes in a block of samples and calls `emit` with the record of every frame it
    /// completes. Never allocates: the form for real-time and long-running paths.
    ///
    /// Blocks may have any length (also shorter than a frame, or empty); samples left over
    /// wait for the next call.
    /// - Parameters:
    ///   - left: left-channel samples, linear full scale (±1 = 0 dBFS).
    ///   - right: right-channel samples, as many as `left` (a different count is a
    ///     programmer error and traps).
    ///   - emit: called once per completed frame, in order, with the frame's record (a value:
    ///     one kept holds that frame's values; the analyzer reuses its own storage, so a record
    ///     kept past `emit` makes the next frame copy its `bands` and `sources`, an allocation).
    /// - Throws: only what `emit` throws.
    public func process<E: Error>(
        left: Span<Float>, right: Span<Float>, emit: (AnalysisRecord) throws(E) -> Void
    ) throws(E) {
        try left.withUnsafeBufferPointer { (l) throws(E) in
            try right.withUnsafeBufferPointer { (r) throws(E) in
                try process(left: l, right: r, emit: emit)
            }
        }
    }

    /// Takes in a block of samples and returns the records of the frames it completes.
    ///
    /// State is kept between calls, so a long signal can be fed in chunks of any size and
    /// gives the same records as one call with all of it.
    /// - Parameters:
    ///   - left: left-channel samples, linear full scale (±1 = 0 dBFS).
    ///   - right: right-channel samples, as many as `left` (a different count traps).
    /// - Returns: one record per completed frame, in time order (none if the block does not
    ///   complete a frame).
    public func process(left: [Float], right: [Float]) -> [AnalysisRecord] {
        var records: [AnalysisRecord] = []
        records.reserveCapacity(completedFrames(afterAdding: left.count))
        process(left: left.span, right: right.span) { records.append($0) }
        return records
    }

    /// How many frames `count` more samples per channel would complete.
    private func completedFrames(afterAdding count: Int) -> Int {
        let frame = configuration.frameLength, hop = configuration.hopLength
        let total = samplesProcessed + count
        let framesNow = samplesProcessed < frame ? 0 : (samplesProcessed - frame) / hop + 1
        let framesAfter = total < frame ? 0 : (total - frame) / hop + 1
        return framesAfter - framesNow
    }
}
