#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension StreamingAnalyzer {
    /// Runs a whole source through the analyzer, block by block in constant memory.
    /// - Parameters:
    ///   - source: where the audio comes from; its sample rate must match the configuration.
    ///   - blockFrames: frames read per call (default 4096).
    ///   - progress: called after every block with the frames read so far.
    ///   - emit: called with each record, in order.
    /// - Throws: what the source or `emit` throws.
    public func analyse(
        _ source: some StereoSource, blockFrames: Int = 4096, progress: ((Int) -> Void)? = nil,
        emit: (AnalysisRecord) throws -> Void
    ) throws {
        precondition(source.sampleRate == configuration.sampleRate, "source and configuration sample rates differ")
        let left = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
        let right = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
        defer { left.deallocate(); right.deallocate() }
        var total = 0
        while true {
            let n = try source.read(left: left, right: right)
            if n == 0 { break }
            total += n
            try process(
                left: UnsafeBufferPointer(rebasing: left[0..<n]), right: UnsafeBufferPointer(rebasing: right[0..<n]),
                emit: emit)
            progress?(total)
        }
    }
}
