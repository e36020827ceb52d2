import SoundCompassEngine

/// Both channels of the stream at YAMNet's rate: resampled to 16 kHz (libsoxr), windowed and
/// transformed every 10 ms (``LogMelFrontEnd``: a 400-sample periodic Hann window, a 512-point
/// FFT). The first of ``SourceLabeler``'s parts.
///
/// Life cycle: `init` allocates everything; ``append(left:right:frame:)`` never allocates.
final class StereoFrames16k {
    /// Bins of a spectrum (257), and the stride of the per-bin arrays: rounded up to whole SIMD
    /// vectors of 8 (the bins past 257 stay zero).
    static let bins = LogMelFrontEnd.binCount
    static let stride = (bins + 7) / 8 * 8
    private typealias V = FloatLanes.V

    /// The front end (its window, FFT and mel weights).
    let frontEnd = LogMelFrontEnd()
    private let resampler: Resampler
    /// A chunk of the input with its samples made safe (finite, within ±1e4).
    private let cleanLeft: AlignedFloats, cleanRight: AlignedFloats
    /// 16 kHz samples waiting to fill a window.
    private let pendingLeft: AlignedFloats, pendingRight: AlignedFloats
    private var pendingCount = 0
    /// Both channels' spectra of the latest frame, interleaved complex (``stride`` bins).
    let spectrumLeft: AlignedFloats, spectrumRight: AlignedFloats

    /// - Parameter sampleRate: the stream's rate, Hz.
    /// - Throws: ``ClassifierError/resampler(_:)``.
    init(sampleRate: Double) throws(ClassifierError) {
        resampler = try Resampler(inputRate: sampleRate, outputRate: LogMelFrontEnd.sampleRate)
        cleanLeft = AlignedFloats(count: Resampler.chunk)
        cleanRight = AlignedFloats(count: Resampler.chunk)
        let pending = LogMelFrontEnd.windowLength + resampler.outCapacity
        pendingLeft = AlignedFloats(count: pending)
        pendingRight = AlignedFloats(count: pending)
        spectrumLeft = AlignedFloats(count: 2 * Self.stride)
        spectrumRight = AlignedFloats(count: 2 * Self.stride)
    }

    /// Takes in a block of the stream and calls `frame` once for each 10 ms frame it
    /// completes, after ``spectrumLeft`` and ``spectrumRight`` hold that frame's spectra.
    /// Non-finite samples count as 0 and samples beyond ±1e4 are clamped.
    func append(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>, frame: () -> Void) {
        precondition(left.count == right.count, "channel blocks differ in length")
        let clean = (left: cleanLeft.baseAddress, right: cleanRight.baseAddress)
        var index = 0
        while index < left.count {
            let take = min(Resampler.chunk, left.count - index)
            // Finite samples clamped to ±1e4, the others 0 (eight at a time, then the rest).
            var i = 0
            if let l = left.baseAddress, let r = right.baseAddress {
                while i + 8 <= take {
                    FloatLanes.store(Self.cleaned(FloatLanes.load(l + index + i)), clean.left + i)
                    FloatLanes.store(Self.cleaned(FloatLanes.load(r + index + i)), clean.right + i)
                    i += 8
                }
            }
            while i < take {
                let l = left[index + i], r = right[index + i]
                clean.left[i] = l.isFinite ? max(-1e4, min(1e4, l)) : 0
                clean.right[i] = r.isFinite ? max(-1e4, min(1e4, r)) : 0
                i += 1
            }
            let produced = resampler.process(left: clean.left, right: clean.right, count: take)
            take16k(count: produced, frame: frame)
            index += take
        }
    }

    /// Appends the resampler's output to the pending samples and transforms every whole window.
    private func take16k(count: Int, frame: () -> Void) {
        guard count > 0 else { return }
        let pendingLeft = self.pendingLeft.baseAddress, pendingRight = self.pendingRight.baseAddress
        let n = min(count, self.pendingLeft.count - pendingCount)
        (pendingLeft + pendingCount).update(from: resampler.outLeft, count: n)
        (pendingRight + pendingCount).update(from: resampler.outRight, count: n)
        pendingCount += n
        var start = 0
        while start + LogMelFrontEnd.windowLength <= pendingCount {
            frontEnd.spectrum(of: pendingLeft + start, into: spectrumLeft.baseAddress)
            frontEnd.spectrum(of: pendingRight + start, into: spectrumRight.baseAddress)
            frame()
            start += LogMelFrontEnd.hopLength
        }
        if start > 0 {
            pendingCount -= start
            pendingLeft.update(from: pendingLeft + start, count: pendingCount)
            pendingRight.update(from: pendingRight + start, count: pendingCount)
        }
    }

    /// Finite samples clamped to ±1e4, the others 0.
    @inline(__always) private static func cleaned(_ x: V) -> V {
        let limit = V(repeating: 1e4)
        return FloatLanes.max(FloatLanes.min(x, limit), -limit).replacing(with: 0, where: .!((x - x) .== V()))
    }
}
