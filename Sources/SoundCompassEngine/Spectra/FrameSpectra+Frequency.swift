#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What frequency a frame's binaural measurements represent, for the frequency-dependent head
/// model of the Array layer (its `lowFrequencyShare(frequencyHz:)` and
/// `levelDifference(lateral:frequencyHz:)`).
extension FrameSpectra {
    /// The low-frequency share `L` that the time difference measured on bins `bins` carries:
    /// the average of the bins' shares with weights `Re(G[k]·e^(iωₖτ))·k²`, `G` the weighted
    /// cross-spectrum and `τ` the measured lag: each bin's contribution to the curvature of the
    /// correlation at its peak.
    ///
    /// GCC-PHAT's refined peak is where `Σₖ |G[k]|·ωₖ·sin(ωₖ(τ − τₖ)) = 0`; to first order in
    /// the bins' phase differences that is `τ = Σₖ |G[k]|·ωₖ²·τₖ / Σₖ |G[k]|·ωₖ²`, and the
    /// model's delay is linear in `L`, so the measured delay is the model's at this average.
    /// A bin that holds no common sound (noise, or a frequency the source lacks) has a random
    /// phase: it moves the peak by nothing on average, and its weight `Re(G·e^(iωτ))` averages
    /// to 0, where `|G|` would still count it (the coherence weighting leaves such bins a weight
    /// near 1 against about 20 for a clean bin, and with `k²` the many empty high bins would
    /// outweigh the few full low ones).
    /// - Parameters:
    ///   - shares: the model's share of each bin, `N/2 + 1` values.
    ///   - bins: the bins the delay was measured on (within 1…N/2 − 1).
    ///   - lagSamples: the measured lag, samples (right minus left).
    /// - Returns: the share, 0…1 (0 when the bins carry no weight).
    package func lowFrequencyShare(shares: UnsafePointer<Float>, bins: ClosedRange<Int>, lagSamples: Double) -> Double {
        var weighted: Float = 0, total: Float = 0
        // e^(iωₖτ) by recurrence from the first bin (a rotation per bin), renormalised each
        // 64 bins against rounding drift.
        let step = 2 * Double.pi * lagSamples / Double(fftSize)
        let rotationRe = Float(cos(step)), rotationIm = Float(sin(step))
        var pr = Float(cos(step * Double(bins.lowerBound))), pi = Float(sin(step * Double(bins.lowerBound)))
        var count = 0
        for k in bins {
            let gr = whitened[2 * k], gi = whitened[2 * k + 1]
            let w = (gr * pr - gi * pi) * Float(k) * Float(k)
            weighted += w * shares[k]
            total += w
            let nr = pr * rotationRe - pi * rotationIm
            pi = pr * rotationIm + pi * rotationRe
            pr = nr
            count += 1
            if count & 63 == 0 {
                let norm = 1 / (pr * pr + pi * pi).squareRoot()
                pr *= norm
                pi *= norm
            }
        }
        guard total > 0, total.isFinite, weighted.isFinite else { return 0 }
        return Double(max(0, min(1, weighted / total)))
    }

    /// The power-weighted geometric mean frequency of the bins from `firstBin` up to Nyquist,
    /// `exp(Σₖ Pₖ·ln fₖ / Σₖ Pₖ)` with `Pₖ = |L[k]|² + |R[k]|²`: the frequency that the level
    /// difference of those bins (``levelDifferenceDecibels(fromBin:)``) represents.
    /// - Parameters:
    ///   - firstBin: lowest bin counted, `1…N/2`.
    ///   - sampleRate: Hz.
    /// - Returns: Hz; the lowest bin's frequency for a silent frame.
    package func meanFrequency(fromBin firstBin: Int, sampleRate: Double) -> Double {
        var weightedLog: Float = 0, total: Float = 0
        for k in firstBin...(fftSize / 2) {
            let p = power(k)
            weightedLog += p * log(Float(k))
            total += p
        }
        let binWidth = sampleRate / Double(fftSize)
        guard total > 0, total.isFinite, weightedLog.isFinite else { return Double(firstBin) * binWidth }
        return exp(Double(weightedLog / total)) * binWidth
    }
}
