#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What frequency a frame's binaural measurements represent, for the frequency-dependent head
/// model (see ``ArrayModel/lowFrequencyShare(frequencyHz:)`` and
/// ``ArrayModel/levelDifference(lateral:frequencyHz:)``).
extension FrameSpectra {
    /// The low-frequency share `L` that the time difference measured on bins `bins` carries:
    /// the average of the bins' shares with weights `|G[k]|·k²`, `G` the weighted cross-spectrum.
    ///
    /// GCC-PHAT's refined peak is where `Σₖ |G[k]|·ωₖ·sin(ωₖ(τ − τₖ)) = 0`; to first order in
    /// the bins' phase differences that is `τ = Σₖ |G[k]|·ωₖ²·τₖ / Σₖ |G[k]|·ωₖ²`, and the
    /// model's delay is linear in `L`, so the measured delay is the model's at this average.
    /// - Parameters:
    ///   - shares: the model's share of each bin, `N/2 + 1` values.
    ///   - bins: the bins the delay was measured on (within 1…N/2 − 1).
    /// - Returns: the share, 0…1 (0 when the bins carry no weight).
    package func lowFrequencyShare(shares: UnsafePointer<Float>, bins: ClosedRange<Int>) -> Double {
        var weighted: Float = 0, total: Float = 0
        for k in bins {
            let gr = whitened[2 * k], gi = whitened[2 * k + 1]
            let w = (gr * gr + gi * gi).squareRoot() * Float(k) * Float(k)
            weighted += w * shares[k]
            total += w
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

extension ArrayModel {
    /// The low-frequency share of every FFT bin, `N/2 + 1` values (see
    /// ``lowFrequencyShare(frequencyHz:)``), for ``FrameSpectra/lowFrequencyShare(shares:bins:)``.
    /// - Parameters:
    ///   - fftSize: `N`.
    ///   - sampleRate: Hz.
    func binLowFrequencyShares(fftSize: Int, sampleRate: Double) -> AlignedFloats {
        let table = AlignedFloats(count: fftSize / 2 + 1)
        for k in 0...(fftSize / 2) {
            table[k] = Float(lowFrequencyShare(frequencyHz: Double(k) * sampleRate / Double(fftSize)))
        }
        return table
    }
}
