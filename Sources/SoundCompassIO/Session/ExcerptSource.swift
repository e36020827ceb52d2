import SoundCompassEngine

/// The part of a source between two times: skips to the start (seeking in a file, reading and
/// discarding from a pipe) on the first read, and ends at the end.
final class ExcerptSource: StereoSource {
    let base: any StereoSource
    /// First frame delivered, in the base source's frames.
    let startFrame: Int
    /// Frame after the last one delivered; `nil`: the base source's end.
    let endFrame: Int?
    private var position = 0
    private var started = false

    var sampleRate: Double { base.sampleRate }
    var name: String { base.name }
    var warnings: [String] { base.warnings }
    var expectedFrameCount: Int? {
        guard let total = base.expectedFrameCount.map({ min($0, endFrame ?? $0) }) ?? endFrame else { return nil }
        return max(0, total - startFrame)
    }

    /// - Throws: ``SoundFileError/startBeyondEnd(path:start:length:)`` when the base source's
    ///   length is known and the start is not before it.
    init(_ base: any StereoSource, startSeconds: Double, endSeconds: Double?) throws(SoundFileError) {
        self.base = base
        startFrame = sampleCount(seconds: startSeconds, sampleRate: base.sampleRate) ?? 0
        endFrame = endSeconds.flatMap { sampleCount(seconds: $0, sampleRate: base.sampleRate) }
        if let total = base.expectedFrameCount, startFrame >= total {
            throw .startBeyondEnd(path: base.name, start: startSeconds, length: Double(total) / base.sampleRate)
        }
    }

    func read(left: inout MutableSpan<Float>, right: inout MutableSpan<Float>) throws(any Error) -> Int {
        if !started {
            started = true
            position = try skip(startFrame)
            if position < startFrame {
                throw SoundFileError.startBeyondEnd(
                    path: name, start: Double(startFrame) / sampleRate, length: Double(position) / sampleRate)
            }
        }
        var frames = min(left.count, right.count)
        if let endFrame { frames = min(frames, endFrame - position) }
        guard frames > 0 else { return 0 }
        let base = self.base
        let n = try withPrefixes(&left, &right, frames: frames) { (left, right) throws(any Error) -> Int in
            try base.read(left: &left, right: &right)
        }
        position += n
        return n
    }

    private func skip(_ frames: Int) throws -> Int {
        guard frames > 0 else { return 0 }
        if let reader = base as? SoundFileReader { return try reader.skip(frames: frames) }
        return try base.discard(frames: frames)
    }
}
