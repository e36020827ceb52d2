#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A borrowed view of one frame's spectra, as ``GCCPHAT/estimate(left:right:)`` computed them:
/// the windowed spectra of both channels, the weighted cross-spectrum and the bins' coherence.
///
/// Everything that works on a frame's spectra (the band-limited time differences, the
/// high-frequency level difference, the dominant frequency) takes this view as a parameter, so
/// the frame they work on is the one passed, not whatever the estimator last computed.
///
/// The view borrows the estimator's buffers: it is valid until the estimator's next
/// `estimate`, which overwrites them. ``GCCPHAT/estimateBand(_:firstBin:lastBin:prior:scratch:)``
/// checks that it is given the current frame's view; keep the view no longer than the frame.
///
/// After a frame that gave no estimate (digital silence), ``correlation`` is nil, and
/// `whitened` and `binCoherence` may still hold the previous frame's values (the estimator
/// stopped before it reached them): check ``correlation`` before reading those.
package struct FrameSpectra {
    /// FFT size `N` in samples; the spectra have `N/2 + 1` bins.
    package let fftSize: Int
    /// Frame length in samples (the windowed part of the `N` samples).
    package let frameLength: Int
    /// Windowed spectrum of the left channel, interleaved complex, `N/2 + 1` bins.
    let left: UnsafePointer<Float>
    /// Windowed spectrum of the right channel, interleaved complex, `N/2 + 1` bins.
    let right: UnsafePointer<Float>
    /// The weighted cross-spectrum `G[k]` (see ``GCCPHAT``), interleaved complex; DC and
    /// Nyquist are 0.
    let whitened: UnsafePointer<Float>
    /// Coherence of each bin over recent frames in excess of the diffuse field's, 0…1
    /// (1 without coherence weighting).
    let binCoherence: UnsafePointer<Float>
    /// Number of the estimator's frame this view belongs to.
    let frameNumber: Int
    /// The frame's GCC-PHAT correlation, `N` values of a circular correlation (lag `τ` at index
    /// `(τ + N) mod N`), normalised so that a pure delay peaks at 1; nil when the frame gave no
    /// estimate (silence, or no positive peak in the lag window), so that no consumer can read
    /// an earlier frame's correlation as this one's.
    package internal(set) var correlation: UnsafePointer<Float>? = nil

    /// `|L[k]|² + |R[k]|²`: the power of bin `k` in both channels.
    @inline(__always)
    func power(_ k: Int) -> Float {
        left[2 * k] * left[2 * k] + left[2 * k + 1] * left[2 * k + 1]
            + right[2 * k] * right[2 * k] + right[2 * k + 1] * right[2 * k + 1]
    }

    /// Bins `k…k+7` of an interleaved complex spectrum, split into their real and imaginary
    /// parts (one vector each), for the passes that take eight bins at a time.
    @inline(__always)
    static func eightBins(_ spectrum: UnsafePointer<Float>, from k: Int) -> (re: SIMD8<Float>, im: SIMD8<Float>) {
        let v = UnsafeRawPointer(spectrum).loadUnaligned(fromByteOffset: 2 * k * MemoryLayout<Float>.stride, as: SIMD16<Float>.self)
        return (v.evenHalf, v.oddHalf)
    }

    /// `power(k)…power(k + 7)` as one vector: the same sums in the same order.
    @inline(__always)
    func powers(eightFrom k: Int) -> SIMD8<Float> {
        let (lr, li) = Self.eightBins(left, from: k), (rr, ri) = Self.eightBins(right, from: k)
        return lr * lr + li * li + rr * rr + ri * ri
    }

    /// The strongest frequency of the frame: the peak of `|L|² + |R|²` over the bins between DC
    /// and Nyquist, refined by a parabola through the log powers of the peak bin and its
    /// neighbours (exact for a Gaussian-shaped peak, within a few per cent of a bin for the Hann
    /// window's main lobe).
    /// - Parameter sampleRate: Hz.
    /// - Returns: the frequency in Hz, 0 for a silent frame.
    package func dominantFrequency(sampleRate: Double) -> Double {
        let n = fftSize
        let (best, bestPower) = strongestBin(below: n / 2)
        guard bestPower > 0, bestPower.isFinite else { return 0 }
        let a = Double(log(max(power(best - 1), .leastNormalMagnitude)))
        let b = Double(log(bestPower))
        let c = Double(log(max(power(best + 1), .leastNormalMagnitude)))
        return (Double(best) + parabolicPeakOffset(a, b, c)) * sampleRate / Double(n)
    }

    /// The first bin of `1 ..< end` with the largest `power(k)`, and that power (bin 1 and 0 when
    /// no power is above 0). Eight bins at a time: each lane keeps its own first largest, and
    /// the lanes' winner is the largest, the lowest bin among equals, so the result is that of
    /// a scan bin by bin. The powers are summed in the same order as `power(_:)`.
    func strongestBin(below end: Int) -> (bin: Int, power: Float) {
        typealias V = SIMD8<Float>
        typealias I = SIMD8<Int32>
        var bestPower = V(), bestBin = I(repeating: 1)
        var bins = I(1, 2, 3, 4, 5, 6, 7, 8)
        let step = I(repeating: 8)
        var k = 1
        while k + 8 <= end {
            let p = powers(eightFrom: k)
            let larger = p .> bestPower
            bestPower.replace(with: p, where: larger)
            bestBin.replace(with: bins, where: larger)
            bins &+= step
            k += 8
        }
        var best = 1
        var power: Float = 0
        for lane in 0..<8 where bestPower[lane] > power || (bestPower[lane] == power && power > 0 && Int(bestBin[lane]) < best) {
            power = bestPower[lane]
            best = Int(bestBin[lane])
        }
        while k < end {
            let p = self.power(k)
            if p > power { power = p; best = k }
            k += 1
        }
        return (best, power)
    }

    /// Level of both channels over the bins `bins`, dB: the windowed spectra's power, scaled per
    /// sample like ``levelDifferenceDecibels(fromBin:)``. A scale of its own (the window and the
    /// one-sided sum put a full-band sum about 7 dB below ``ChannelLevels/levelDBFS``): compare
    /// levels over the same bins only. Never allocates.
    /// - Parameter bins: bins summed, within `1…N/2`.
    /// - Returns: `10·log10(Σ (|L|² + |R|²)/(N·frameLength) + ε)`, ≥ −160.
    package func levelDBFS(bins: ClosedRange<Int>) -> Double {
        var sum: Float = 0
        for k in bins { sum += power(k) }
        guard sum.isFinite else { return 0 }
        return 10 * log10(Double(sum) / Double(fftSize * frameLength) + ChannelLevels.powerFloor)
    }

    /// The bins of an `fftSize`-point spectrum from `low` to `high` Hz, clipped to `1…N/2 − 1`.
    /// - Parameters:
    ///   - low: lower edge, Hz (the first bin at or above it).
    ///   - high: upper edge, Hz (the last bin at or below it).
    ///   - fftSize: FFT size `N`.
    ///   - sampleRate: Hz.
    /// - Returns: the bins; at least one (the first) when the band holds none.
    package static func bins(from low: Double, to high: Double, fftSize: Int, sampleRate: Double) -> ClosedRange<Int> {
        let first = max(1, Int((low / sampleRate * Double(fftSize)).rounded(.up)))
        let last = min(fftSize / 2 - 1, Int((high / sampleRate * Double(fftSize)).rounded(.down)))
        return first...max(first, last)
    }

    /// Level difference, right minus left, of the windowed spectra from bin `firstBin` up to
    /// Nyquist, in dB (with the −160 dB floor of ``ChannelLevels``).
    /// - Parameter firstBin: lowest bin counted, `1…N/2`.
    /// - Returns: the level difference in dB, 0 when a sum overflows.
    package func levelDifferenceDecibels(fromBin firstBin: Int) -> Double {
        // Eight bins at a time into eight partial sums per channel, the rest one by one.
        var partialL = SIMD8<Float>(), partialR = SIMD8<Float>()
        let end = fftSize / 2 + 1
        var k = firstBin
        while k + 8 <= end {
            let (lr, li) = Self.eightBins(left, from: k), (rr, ri) = Self.eightBins(right, from: k)
            partialL += lr * lr + li * li
            partialR += rr * rr + ri * ri
            k += 8
        }
        var sumL = partialL.sum(), sumR = partialR.sum()
        while k < end {
            sumL += left[2 * k] * left[2 * k] + left[2 * k + 1] * left[2 * k + 1]
            sumR += right[2 * k] * right[2 * k] + right[2 * k + 1] * right[2 * k + 1]
            k += 1
        }
        guard sumL.isFinite, sumR.isFinite else { return 0 }
        // Scale to a per-sample power so the −160 dB floor means the same as for RMS.
        let scale = 1 / Double(fftSize * frameLength)
        return decibelRatio(Double(sumR) * scale, Double(sumL) * scale)
    }
}
