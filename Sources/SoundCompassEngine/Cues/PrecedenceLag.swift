#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The room's pull on the broadband lag, measured from the direct sound's precedence: a
/// component of ``DirectionEstimator`` that owns its transforms and history.
///
/// A room's first reflections (a pair at mid-height hears the floor's and the ceiling's images
/// of a talker about 5 ms after the direct sound) reach the pair from nearer the median plane.
/// Within one 32 ms frame they mix with the direct sound, and where their delay between the
/// microphones lies within the correlation's resolution of the direct sound's (a small pair,
/// or any pair at 30–50° in a reverberant room) the frame's peak is one merged peak, pulled
/// towards 0: its lag is a fraction `1/ρ` of the direct sound's (Docs/Accuracy.md, "A small
/// pair").
///
/// In the first milliseconds of an onset the reflections have not arrived. So each hop is cut
/// into short windows (``windowSeconds``, every ``stepSeconds``); a bin of a window whose
/// power rises ``riseFactor`` times above its own mean over the windows 8–32 ms before holds an
/// onset, and a window with at least ``leastRisingShare`` of its bins rising adds the phase
/// transform of those bins to the frame's onset cross-spectrum, whose correlation peak is the
/// frame's onset lag. Onsets are too few to carry a bearing (9–90 windows in 8 s of speech),
/// but each measures the pull: paired with the lag that the confident frames have held lately
/// (a slow average, and only while it holds still: a moving source or a turning array changes
/// its lag between the onset and the frames it is paired with), the onset lags give `ρ` by
/// least squares over the recent pairs (1…``largestScale``), and the broadband time cue reads
/// the frame's lag times `ρ`.
///
/// **An experiment, off by default** (`AnalysisConfiguration.correctsRoomPull`): on a 5 cm pair
/// in a simulated room it takes back part of the pull, but less than its looser variants, which
/// took back more and also moved free-field bearings outwards and turning-array bearings away
/// (Docs/Accuracy.md, "A small pair").
///
/// Life cycle: `init` allocates; ``update(left:right:frameLength:hop:frameLag:confidence:)``
/// never allocates.
package final class PrecedenceLag {
    /// Length of a short window, seconds (rounded up to a power of two in samples).
    static let windowSeconds = 0.008
    /// Distance between short windows, seconds.
    static let stepSeconds = 0.004
    /// A bin holds an onset when its power is at least this many times its recent mean.
    static let riseFactor: Float = 10
    /// Least share of a window's bins that rise for the window to count.
    static let leastRisingShare = 0.125
    /// Largest `ρ` (the least is 1).
    static let largestScale = 1.6
    /// Memory of the pairs, per pair.
    static let pairForgetting = 0.95
    /// Share of a confident frame's lag in the held lag.
    static let heldSmoothing = 0.25
    /// The held lag is paired with onsets only while its spread is below this share of the lag
    /// window: a source that moves (or an array that turns) changes its lag between the onset
    /// and the frames it is paired with.
    static let stillSpread = 0.06

    private let size: Int
    private let step: Int
    private let bins: Int
    private let fft: RealFFT
    private let window: [Float]
    private let leftTime: AlignedFloats, rightTime: AlignedFloats
    private let leftSpectrum: AlignedFloats, rightSpectrum: AlignedFloats
    /// Powers of the last `ringCount` windows, `bins` each.
    private let history: AlignedFloats
    private static let ringCount = 8
    private var ringNext = 0
    private var windowsSeen = 0
    /// Samples of the stream up to the current frame's end.
    private var streamEnd = 0
    /// The frame's onset cross-spectrum (interleaved complex).
    private let cross: AlignedFloats
    /// Scratch: 1 for each bin of the current window that rises, else 0.
    private let rising: AlignedFloats
    private let maxLag: Double
    /// Least squares of onset lag on the held lag.
    private var sxy = 0.0, syy = 0.0, pairs = 0.0
    /// Slow average of the confident frames' lags, samples.
    private var heldLag: Double?
    /// Mean distance of the confident frames' lags from ``heldLag``, samples.
    private var heldSpread = 0.0
    /// The current `ρ`.
    package private(set) var scale = 1.0
    /// The last frame's onset lag, samples (nil: no onset).
    package private(set) var onsetLag: Double?

    /// - Parameters:
    ///   - sampleRate: Hz.
    ///   - maxLagSamples: the broadband lag window, samples each side.
    package init(sampleRate: Double, maxLagSamples: Double) {
        var n = 8
        while Double(n) < Self.windowSeconds * sampleRate { n <<= 1 }
        size = n
        step = max(1, Int((Self.stepSeconds * sampleRate).rounded()))
        bins = n / 2 + 1
        fft = RealFFT(size: n)
        window = Window.hann(length: n)
        leftTime = AlignedFloats(count: n)
        rightTime = AlignedFloats(count: n)
        leftSpectrum = AlignedFloats(count: 2 * bins)
        rightSpectrum = AlignedFloats(count: 2 * bins)
        history = AlignedFloats(count: Self.ringCount * bins)
        cross = AlignedFloats(count: 2 * bins)
        rising = AlignedFloats(count: bins)
        maxLag = maxLagSamples
    }

    /// Forgets the stream (a new one starts).
    package func reset() {
        history.zero(); cross.zero()
        ringNext = 0; windowsSeen = 0; streamEnd = 0
        sxy = 0; syy = 0; pairs = 0; heldLag = nil; heldSpread = 0; scale = 1; onsetLag = nil
    }

    /// Reads the short windows that end in the frame's newest `hop` samples, then updates `ρ`.
    /// - Parameters:
    ///   - left, right: the frame, `frameLength` samples of each channel.
    ///   - hop: samples since the previous frame.
    ///   - frameLag: the frame's broadband lag, samples.
    ///   - confidence: its confidence, 0…1.
    package func update(
        left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>, frameLength: Int, hop: Int,
        frameLag: Double, confidence: Double
    ) {
        cross.zero()
        var onsetWindows = 0
        // Windows end on multiples of `step` in the stream; this frame reads those that end in
        // its newest `hop` samples (the whole frame the first time).
        let newest = streamEnd == 0 ? frameLength : min(hop, frameLength)
        streamEnd += streamEnd == 0 ? frameLength : hop
        var end = ((streamEnd - newest) / step + 1) * step
        while end <= streamEnd {
            let start = frameLength - (streamEnd - end) - size
            if start >= 0, readWindow(left.baseAddress! + start, right.baseAddress! + start) { onsetWindows += 1 }
            end += step
        }
        onsetLag = onsetWindows > 0 ? peakLag() : nil
        if let o = onsetLag, let h = heldLag, heldSpread < Self.stillSpread * maxLag,
            abs(h) >= 0.25 * maxLag, o * h > 0, abs(o) <= 1.05 * maxLag + 0.5
        {
            let f = Self.pairForgetting
            sxy = f * sxy + o * h
            syy = f * syy + h * h
            pairs = f * pairs + 1
            if pairs >= 3, syy > 0 { scale = min(Self.largestScale, max(1, sxy / syy)) }
        } else if onsetWindows == 0, confidence >= 0.5, frameLag.isFinite {
            if let h = heldLag {
                heldSpread += Self.heldSmoothing * (abs(frameLag - h) - heldSpread)
                heldLag = h + Self.heldSmoothing * (frameLag - h)
            } else {
                heldLag = frameLag
                heldSpread = maxLag
            }
        }
    }

    /// One short window at `l`, `r`: its powers into the history; its rising bins' phase
    /// transform into `cross` when enough rise. Returns whether it counted.
    private func readWindow(_ l: UnsafePointer<Float>, _ r: UnsafePointer<Float>) -> Bool {
        let lt = leftTime.baseAddress, rt = rightTime.baseAddress
        for i in 0..<size { lt[i] = l[i] * window[i]; rt[i] = r[i] * window[i] }
        fft.forward(lt, leftSpectrum.baseAddress)
        fft.forward(rt, rightSpectrum.baseAddress)
        let ls = leftSpectrum.baseAddress, rs = rightSpectrum.baseAddress
        let h = history.baseAddress, slot = ringNext * bins, flags = rising.baseAddress
        // Reference: the mean of the windows 2…7 back (the one just before overlaps this one).
        let known = windowsSeen >= Self.ringCount
        let threshold = Self.riseFactor / Float(Self.ringCount - 2)
        var count = 0
        for k in 1..<(bins - 1) {
            let p = ls[2 * k] * ls[2 * k] + ls[2 * k + 1] * ls[2 * k + 1] + rs[2 * k] * rs[2 * k] + rs[2 * k + 1] * rs[2 * k + 1]
            var rises = false
            if known {
                var sum: Float = 0
                for back in 2..<Self.ringCount {
                    sum += h[((ringNext - back + Self.ringCount) % Self.ringCount) * bins + k]
                }
                rises = p > threshold * sum && p > 0
            }
            flags[k] = rises ? 1 : 0
            count += rises ? 1 : 0
            h[slot + k] = p
        }
        ringNext = (ringNext + 1) % Self.ringCount
        windowsSeen += 1
        guard known, Double(count) >= Self.leastRisingShare * Double(bins - 2) else { return false }
        let c = cross.baseAddress
        for k in 1..<(bins - 1) where flags[k] > 0 {
            let cr = ls[2 * k] * rs[2 * k] + ls[2 * k + 1] * rs[2 * k + 1]
            let ci = ls[2 * k] * rs[2 * k + 1] - ls[2 * k + 1] * rs[2 * k]
            let m = (cr * cr + ci * ci).squareRoot()
            guard m > 0 else { continue }
            c[2 * k] += cr / m
            c[2 * k + 1] += ci / m
        }
        return true
    }

    /// The lag of the largest correlation of `cross`, `r(τ) = Σ Re(C[k]·e^(2πikτ/N))`, on a
    /// half-sample grid over the lag window, refined by a parabola.
    private func peakLag() -> Double {
        let c = cross.baseAddress
        let lowest = Int(((-maxLag - 1) * 2).rounded(.down))
        let highest = Int(((maxLag + 1) * 2).rounded(.up))
        var best = -Double.infinity, bestIndex = lowest
        var previous = 0.0, beforeBest = 0.0, afterBest = 0.0, gotAfter = false
        for j in lowest...highest {
            let w = Double.pi * Double(j) / Double(size)  // 2π·(j/2)/N
            let sr = sin(w), cr = cos(w)
            var pr = cr, pi = sr  // e^(iωτ) at k = 1
            var sum = 0.0
            for k in 1..<(bins - 1) {
                sum += Double(c[2 * k]) * pr - Double(c[2 * k + 1]) * pi
                let nr = pr * cr - pi * sr
                pi = pr * sr + pi * cr
                pr = nr
            }
            if sum > best {
                best = sum; bestIndex = j; beforeBest = previous; gotAfter = false
            } else if !gotAfter && j == bestIndex + 1 {
                afterBest = sum; gotAfter = true
            }
            previous = sum
        }
        var lag = Double(bestIndex) / 2
        if gotAfter, bestIndex > lowest {
            lag += parabolicPeakOffset(beforeBest, best, afterBest) / 2
        }
        return lag
    }
}
