/// The stationary part of each bin's power, learned by minimum statistics, and the share of a
/// frame's bin that stands above it: what lets the source candidates hear a talker beside a
/// steady noise (a fan, a television's hum, traffic).
///
/// Per bin `k` of the frame's spectra, the power of both channels `Pₖ = |Lₖ|² + |Rₖ|²` is
/// smoothed over frames (`Sₖ`, the newest frame's share ``smoothing``); the floor `Fₖ` is the
/// lowest `Sₖ` over the last ``windowSeconds`` (kept as eight sub-window minima, as
/// ``NoiseFloorTracker`` keeps the frame level's). A steady source keeps `Sₖ` near its own
/// power, so its floor sits a few dB below it; a talker's bins rise far above the floor while
/// the talker speaks and fall back to it in the pauses (a word rarely holds one bin for a whole
/// window). The gain `gₖ = clamp(1 − β·Fₖ/Sₖ, 0, 1)` with ``overestimate`` `β` (a spectral
/// subtraction of the floor, Martin 2001; β makes up for the minimum's bias below the mean) is
/// about 0 where the frame holds only the steady sound and about 1 where something new
/// dominates.
///
/// Life cycle: `init` allocates; ``update(spectra:)`` and ``gains(into:)`` never allocate.
package final class StationaryBinFloor {
    /// Share of the newest frame in the smoothed bin powers, 0…1: a memory of about five hops,
    /// so that a steady bin's smoothed power swings only a few dB (with 0.5, a speech-like
    /// talker beside pink noise in free field was found in no frame: the steady bins' swings
    /// above the floor outweighed the talker's few bins).
    package static let smoothing: Float = 0.2
    /// Length of the minimum-statistics window, seconds: longer than a talker holds one bin.
    package static let windowSeconds = 1.6
    /// Over-subtraction `β` of the floor in the gain (≥ 1): the minimum of a smoothed noise
    /// power over the window lies several dB below its mean, and a steady bin's smoothed power
    /// swings a few dB above it. Measured (smoothing 0.2) on a free-field speech-like talker
    /// beside pink noise: β = 3 found the talker in 27–48 % of its frames, 4–5 in 61–85 %; on
    /// the room sweep (RT60 0.3 s) 73–74 % for β = 3…5.
    package static let overestimate: Float = 5

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

    /// Takes in one frame's bin powers. Never allocates.
    /// - Parameter spectra: the frame's spectra.
    package func update(spectra: FrameSpectra) {
        let s = smoothed.baseAddress, m = currentMinimum.baseAddress
        let alpha = started ? Self.smoothing : 1
        for j in 0..<bins {
            s[j] += alpha * (spectra.power(j * stride) - s[j])
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

    /// Writes each followed bin's gain `clamp(1 − β·Fₖ/Sₖ, 0, 1)` (see the type's notes) into
    /// `gains` (`binCount` values; 0 where the smoothed power is 0). Never allocates.
    package func gains(into gains: UnsafeMutablePointer<Float>) {
        let s = smoothed.baseAddress, m = currentMinimum.baseAddress, w = windowMinimum.baseAddress
        let beta = Self.overestimate
        for k in 0..<bins {
            let floor = min(m[k], w[k])
            let power = s[k]
            gains[k] = power > 0 && floor.isFinite ? max(0, min(1, 1 - beta * floor / power)) : 0
        }
    }
}
