/// The time difference of one frequency band in one frame.
package struct BandDelayEstimate: Sendable, Equatable {
    /// Right minus left arrival, samples (sub-sample).
    package var lagSamples: Double
    /// Magnitude-squared coherence of the band's bins over recent frames, averaged with the
    /// bins' power as weights (so bins the source does not reach count little), 0…1.
    package var coherence: Float
    /// `1 − second peak / peak` in the lag window, 0…1.
    package var prominence: Float
    /// True when the band's own peak was ambiguous and the broadband lag picked among its
    /// aliases.
    package var resolvedByPrior: Bool
    /// Confidence 0…1.
    package var confidence: Float

    package static let none = BandDelayEstimate(lagSamples: 0, coherence: 0, prominence: 0, resolvedByPrior: false, confidence: 0)
}

extension GCCPHAT {
    /// The band-limited time difference of the frame last passed to ``estimate(left:right:)``:
    /// the weighted cross-spectrum is kept only between `firstBin` and `lastBin` (inclusive),
    /// transformed back, and its peak searched in the same lag window and refined the same way.
    ///
    /// **Spatial aliasing.** Above `1/(2·maxDelay)` (1.14 kHz for 15 cm) a band's correlation has
    /// several peaks one period apart inside the window. The band's own highest peak is kept
    /// when it stands out (prominence ≥ 0.3): the band's envelope, wide when the band is wide,
    /// favours the true lag. When it does not and `prior` (the broadband lag, in samples) is
    /// given, the local maximum nearest the prior is taken at half confidence. Otherwise the
    /// band is ambiguous and gets no confidence.
    ///
    /// **Confidence** = `clamp((γ̄² − 0.5)/0.4) · clamp(prominence/0.5) · taper`, with `γ̄²` the
    /// band's mean coherence over recent frames, in excess of the diffuse field's (see ``GCCPHAT``:
    /// about 1/3 or less for unrelated noise, near 0 for a room's diffuse field, near 1 for a
    /// source), and the same edge rules as the broadband estimate.
    /// - Parameters:
    ///   - firstBin: lowest FFT bin of the band (≥ 1).
    ///   - lastBin: highest FFT bin of the band (≤ fftSize/2 − 1).
    ///   - prior: the broadband lag in samples, if it is trusted.
    package func estimateBand(firstBin: Int, lastBin: Int, prior: Double?) -> BandDelayEstimate {
        let n = fftSize
        let first = max(1, firstBin), last = min(n / 2 - 1, lastBin)
        guard last >= first else { return .none }
        let g = whitened.baseAddress, b = bandSpectrum.baseAddress, coherence = binCoherence.baseAddress
        let l = leftSpectrum.baseAddress, r = rightSpectrum.baseAddress
        // bandSpectrum is all zero between calls: fill the band, and clear it again at the end.
        defer { (b + 2 * first).update(repeating: 0, count: 2 * (last - first + 1)) }
        var weightSum: Float = 0, coherenceSum: Float = 0, powerSum: Float = 0
        for k in first...last {
            b[2 * k] = g[2 * k]
            b[2 * k + 1] = g[2 * k + 1]
            weightSum += (g[2 * k] * g[2 * k] + g[2 * k + 1] * g[2 * k + 1]).squareRoot()
            let power = (l[2 * k] * l[2 * k] + l[2 * k + 1] * l[2 * k + 1] + r[2 * k] * r[2 * k] + r[2 * k + 1] * r[2 * k + 1])
            coherenceSum += coherence[k] * power
            powerSum += power
        }
        guard weightSum > 0, weightSum.isFinite, powerSum > 0, powerSum.isFinite else { return .none }
        let meanCoherence = coherenceSum / powerSum
        inverseScratch.baseAddress.update(from: b, count: 2 * (n / 2 + 1))
        fft.inverse(inverseScratch.baseAddress, bandCorrelation.baseAddress)
        let c = bandCorrelation.baseAddress
        // Normalise the window only (and one lag beyond each edge, for the refinement's start).
        let norm = 1 / (2 * weightSum)
        let K = searchLag
        for lag in -(K + 1)...(K + 1) { c[(lag + n) % n] *= norm }

        // Local maxima in the window: the highest, the runner-up, and the one nearest the prior.
        func value(_ lag: Int) -> Float { c[(lag + n) % n] }
        var bestLag = 0, best = -Float.infinity, second: Float = 0
        var nearestLag: Int?
        for lag in -K...K {
            let v = value(lag)
            let previous = lag > -K ? value(lag - 1) : -Float.infinity
            let next = lag < K ? value(lag + 1) : -Float.infinity
            guard v > previous && v >= next else { continue }
            if v > best {
                second = max(second, best)
                best = v; bestLag = lag
            } else if v > second {
                second = v
            }
            if let prior, v > 0, nearestLag.map({ abs(Double(lag) - prior) < abs(Double($0) - prior) }) ?? true {
                nearestLag = lag
            }
        }
        guard best > 0, best.isFinite else { return .none }
        let prominence = max(0, min(1, 1 - max(second, 0) / best))

        var chosen = bestLag, usedPrior = false
        var confidence = clamp((meanCoherence - 0.5) / 0.4) * clamp(prominence / 0.5)
        if prominence < 0.3 {
            if let nearestLag, prior != nil {
                chosen = nearestLag
                usedPrior = true
                confidence = clamp((meanCoherence - 0.5) / 0.4) * 0.5
            } else {
                confidence = 0
            }
        }
        let pinned = abs(chosen) == K
        let lag = pinned
            ? Double(chosen)
            : refine(integerLag: chosen, correlation: c, spectrum: b, bins: first..<(last + 1))
        if pinned {
            confidence = 0
        } else if abs(lag) > maxLagSamples {
            confidence *= Float(clamp01((Double(K) - abs(lag)) / (Double(K) - maxLagSamples)))
        }
        return BandDelayEstimate(
            lagSamples: lag, coherence: meanCoherence, prominence: prominence, resolvedByPrior: usedPrior,
            confidence: confidence)
    }
}
