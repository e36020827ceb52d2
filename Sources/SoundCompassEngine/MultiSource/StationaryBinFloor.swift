/// The stationary part of each bin's power, learned by minimum statistics, and which bins of a
/// frame stand above it: what lets the source candidates hear a talker beside a steady noise (a
/// fan, a television's hum, traffic).
///
/// Per bin `k` of the frame's spectra, the power of both channels `Pₖ = |Lₖ|² + |Rₖ|²` is
/// smoothed over frames (`Sₖ`, the newest frame's share ``smoothing``); the floor `Fₖ` is the
/// lowest `Sₖ` over the last ``windowSeconds`` (kept as eight sub-window minima, as
/// ``NoiseFloorTracker`` keeps the frame level's). A steady source keeps `Sₖ` near its own
/// power, so its floor sits a few dB below it; a talker's bins rise far above the floor while
/// the talker speaks and fall back to it in the pauses (a word rarely holds one bin for a whole
/// window).
///
/// Each frame, ``update(spectra:newSound:onsets:)`` marks two sets of bins:
/// - **new sound**: the frame's own power `Pₖ` (not smoothed) is more than ``newSoundRatio``
///   times the floor. Speech is sparse in time as well as in frequency: a syllable lifts a bin
///   for a frame or two, which a smoothed power would spread over its neighbours in time and a
///   soft gain would mix with the steady sound's phase;
/// - **onsets**: new sound whose power is also more than ``onsetRatio`` times the bin's
///   smoothed power before this frame. The direct sound reaches the pair before the room's
///   reflections, so a bin that has just risen holds the source's own direction, while one that
///   stays up holds more and more of its reverberation (the precedence effect, per bin).
///
/// Measured in a NumPy model of the averages on the steady-noise room sweep (talker and pink
/// noise as loud, 44 layouts; the scenes of `Benchmarks/accuracy/evaluate.py --steady`), the
/// averaged correlation of the new bins alone peaked within 10° of the talker in 87 % of its
/// active frames at RT60 0.3 s with a ratio of 16 (88 % with 32, 77 % with 64), against 50 %
/// for the earlier gain `clamp(1 − 5·Fₖ/Sₖ, 0, 1)` of the smoothed power; the onsets alone
/// (with the frames' tail weight) in 96 % (onset ratio 4) against 90 % for all new bins, and at
/// RT60 0.6 s in 71 % against 57 %.
///
/// Life cycle: `init` allocates; ``update(spectra:newSound:onsets:)`` never allocates.
package final class StationaryBinFloor {
    /// Share of the newest frame in the smoothed bin powers, 0…1: a memory of about five hops,
    /// so that a steady bin's smoothed power swings only a few dB and its minimum, the floor,
    /// sits only a few dB below its mean.
    package static let smoothing: Float = 0.2
    /// Length of the minimum-statistics window, seconds: longer than a talker holds one bin.
    package static let windowSeconds = 1.6
    /// A bin holds new sound when its power in the frame is more than this many times its
    /// stationary floor (12 dB). The floor, a minimum, lies a few dB below a steady sound's mean
    /// power, and that sound's power in one frame and bin swings above its mean (exponentially
    /// distributed for noise: above 4 times its mean in 2 % of the bins), so 16 keeps nearly all
    /// of a steady sound's bins out while a syllable's strongest bins pass (see the type's notes
    /// for the ratios tried).
    package static let newSoundRatio: Float = 16
    /// A bin of new sound is an onset when its power in the frame is also more than this many
    /// times its smoothed power before the frame (about the last five frames; 6 dB). On the
    /// steady-noise room sweep with the engine (`evaluate.py --steady`), 2 / 4 / 6 gave the
    /// talker within 10° in 89 / 90 / 91 % of its frames at RT60 0.3 s and 49 / 53 / 56 % at
    /// 0.6 s; but 6 cost three talkers at RT60 0.6 s (`--multi`, all listed) 6 points, 4 none.
    package static let onsetRatio: Float = 4

    /// Number of bins, `fftSize/2 + 1`.
    private let bins: Int
    private let smoothed: AlignedFloats
    /// Eight sub-window minima of each bin, one row of `bins` each.
    private let blockMinima: AlignedFloats
    /// The running minimum of the current sub-window.
    private let currentMinimum: AlignedFloats
    /// The lowest of the eight stored sub-window minima (refreshed when a sub-window ends).
    private let windowMinimum: AlignedFloats
    private let framesPerBlock: Int
    private var framesInBlock = 0
    private var blockIndex = 0
    private var started = false

    /// The spectra's bins it follows are `j·stride`, `j = 0 ..< binCount`.
    private let stride: Int

    /// - Parameters:
    ///   - binCount: number of bins followed (`j·stride` must stay within the spectra's
    ///     `fftSize/2 + 1` bins).
    ///   - stride: every `stride`-th bin of the spectra is followed (≥ 1).
    ///   - hopDuration: seconds between frames.
    package init(binCount: Int, stride: Int, hopDuration: Double) {
        precondition(binCount >= 1 && stride >= 1)
        bins = binCount
        self.stride = stride
        smoothed = AlignedFloats(count: bins)
        blockMinima = AlignedFloats(count: 8 * bins)
        currentMinimum = AlignedFloats(count: bins)
        windowMinimum = AlignedFloats(count: bins)
        framesPerBlock = max(1, Int((Self.windowSeconds / 8 / hopDuration).rounded()))
        reset()
    }

    /// Forgets the floors.
    package func reset() {
        smoothed.zero()
        blockMinima.baseAddress.update(repeating: .infinity, count: 8 * bins)
        currentMinimum.baseAddress.update(repeating: .infinity, count: bins)
        windowMinimum.baseAddress.update(repeating: .infinity, count: bins)
        framesInBlock = 0
        blockIndex = 0
        started = false
    }

    /// Takes in one frame's bin powers and marks the bins of new sound and the onsets among
    /// them (see the type's notes): 1 where marked, else 0 (no onset in the first frame). Never
    /// allocates.
    /// - Parameters:
    ///   - spectra: the frame's spectra.
    ///   - newSound: `binCount` values, written: the bins more than ``newSoundRatio`` times
    ///     their floor.
    ///   - onsets: `binCount` values, written: those of them also more than ``onsetRatio`` times
    ///     their smoothed power before this frame.
    package func update(spectra: FrameSpectra, newSound: UnsafeMutablePointer<Float>, onsets: UnsafeMutablePointer<Float>) {
        let s = smoothed.baseAddress, m = currentMinimum.baseAddress, window = windowMinimum.baseAddress
        let alpha = started ? Self.smoothing : 1
        let ratio = Self.newSoundRatio, onset = started ? Self.onsetRatio : .infinity
        for j in 0..<bins {
            let power = spectra.power(j * stride)
            let floor = min(m[j], window[j])
            let isNew = floor.isFinite && power > ratio * floor
            newSound[j] = isNew ? 1 : 0
            onsets[j] = isNew && power > onset * s[j] ? 1 : 0
            s[j] += alpha * (power - s[j])
            m[j] = min(m[j], s[j])
        }
        started = true
        framesInBlock += 1
        guard framesInBlock == framesPerBlock else { return }
        // A sub-window ends: store its minima and refresh the window's.
        framesInBlock = 0
        (blockMinima.baseAddress + blockIndex * bins).update(from: m, count: bins)
        blockIndex = (blockIndex + 1) % 8
        m.update(repeating: .infinity, count: bins)
        let w = windowMinimum.baseAddress, b = blockMinima.baseAddress
        for k in 0..<bins {
            var low = b[k]
            for row in 1..<8 { low = min(low, b[row * bins + k]) }
            w[k] = low
        }
    }
}
