import SoundCompassEngine
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
    public func analyze(
        _ source: some StereoSource, blockFrames: Int = 4096, progress: ((Int) -> Void)? = nil,
        emit: (AnalysisRecord) throws -> Void
    ) throws {
        precondition(source.sampleRate == configuration.sampleRate, "source and configuration sample rates differ")
        try source.forEachBlock(blockFrames: blockFrames, progress: progress) { left, right in
            try process(left: left, right: right, emit: emit)
        }
    }
}

extension StereoSource {
    /// Reads the whole source, calling `body` with each block of samples, in order.
    /// - Parameters:
    ///   - blockFrames: frames read per call (default 4096).
    ///   - progress: called after every block with the frames read so far.
    ///   - body: takes the left and right samples of one block (valid during the call only).
    /// - Throws: what the source or `body` throws.
    package func forEachBlock(
        blockFrames: Int = 4096, progress: ((Int) -> Void)? = nil,
        _ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        try withStereoBlock(frames: blockFrames) { left, right in
            var total = 0
            while true {
                let n = try read(into: left, right, frames: blockFrames)
                if n == 0 { break }
                total += n
                try body(UnsafeBufferPointer(rebasing: left[0..<n]), UnsafeBufferPointer(rebasing: right[0..<n]))
                progress?(total)
            }
        }
    }
}
