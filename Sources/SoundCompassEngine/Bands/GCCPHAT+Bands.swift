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

/// The scratch of band-limited time differences (``GCCPHAT/estimateBand(_:firstBin:lastBin:prior:scratch:)``),
/// owned by the estimator of the bands, not by GCC-PHAT: each consumer of a frame's spectra
/// keeps its own working memory.
///
/// Life cycle: `init` allocates; the estimates that use it never allocate.
package final class BandCorrelationScratch {
    /// The band's bins of the weighted cross-spectrum, zero elsewhere (all zero between calls).
    let spectrum: AlignedFloats
    /// A copy of `spectrum` for the inverse FFT, which destroys its input.
    let inverse: AlignedFloats
    /// The band's correlation (circular, `N` values).
    let correlation: AlignedFloats

    /// - Parameter fftSize: the FFT size `N` of the GCC-PHAT estimator it serves.
    package init(fftSize n: Int) {
        self.spectrum = AlignedFloats(count: 2 * (n / 2 + 1))
        self.inverse = AlignedFloats(count: 2 * (n / 2 + 1))
        self.correlation = AlignedFloats(count: n)
    }
}

extension GCCPHAT {
    /// The band-limited time difference of a frame: the frame's weighted cross-spectrum is kept
    /// only between `firstBin` and `lastBin` (inclusive), transformed back, and its peak
    /// searched in the same lag window and refined the same way.
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
    ///   - spectra: the spectra of this estimator's current frame, from
    ///     ``estimate(left:right:)`` (a view of another frame traps).
    ///   - firstBin: lowest FFT bin of the band (≥ 1).
    ///   - lastBin: highest FFT bin of the band (≤ fftSize/2 − 1).
    ///   - prior: the broadband lag in samples, if it is trusted.
    ///   - scratch: working memory made for this estimator's FFT size.
    package func estimateBand(
        _ spectra: FrameSpectra, firstBin: Int, lastBin: Int, prior: Double?, scratch: BandCorrelationScratch
    ) -> BandDelayEstimate {
        estimateBand(spectra, firstBin: firstBin, lastBin: lastBin, basis: nil, prior: prior, scratch: scratch)
    }

    /// ``estimateBand(_:firstBin:lastBin:prior:scratch:)`` for the band of `basis`, its correlation
    /// evaluated at the searched lags only (see ``BandLagBasis``) instead of by an inverse FFT:
    /// the same values up to single-precision rounding.
    /// - Parameters:
    ///   - spectra: the spectra of this estimator's current frame.
    ///   - basis: the band's table, made for this estimator's FFT size with
    ///     `largestLag ≥ searchLag + 1`.
    ///   - prior: the broadband lag in samples, if it is trusted.
    ///   - scratch: working memory made for this estimator's FFT size.
    package func estimateBand(
        _ spectra: FrameSpectra, basis: BandLagBasis, prior: Double?, scratch: BandCorrelationScratch
    ) -> BandDelayEstimate {
        precondition(basis.largestLag >= searchLag + 1 && basis.lastBin < fftSize / 2, "band table made for another estimator")
        return estimateBand(spectra, firstBin: basis.firstBin, lastBin: basis.lastBin, basis: basis, prior: prior, scratch: scratch)
    }

    private func estimateBand(
        _ spectra: FrameSpectra, firstBin: Int, lastBin: Int, basis: BandLagBasis?, prior: Double?,
        scratch: BandCorrelationScratch
    ) -> BandDelayEstimate {
        checkCurrent(spectra)
        precondition(scratch.correlation.count == fftSize, "band scratch made for another FFT size")
        let n = fftSize
        let first = max(1, firstBin), last = min(n / 2 - 1, lastBin)
        guard last >= first else { return .none }
        let sums: (weightSum: Float, coherenceSum: Float, powerSum: Float)
        let c: UnsafeMutablePointer<Float>
        // The bins the refinement reads: the band's, in the frame's own weighted cross-spectrum
        // (the table path), or in the scratch's spectrum, all zero between calls (the FFT path:
        // fill the band, and clear it again at the end).
        let g: UnsafeMutablePointer<Float>
        if let basis {
            g = UnsafeMutablePointer(mutating: spectra.whitened)
            sums = gatherBand(spectra, into: basis)
        } else {
            g = scratch.spectrum.baseAddress
            sums = copyBand(spectra, bins: first...last, into: scratch)
        }
        defer { if basis == nil { (g + 2 * first).update(repeating: 0, count: 2 * (last - first + 1)) } }
        let weightSum = sums.weightSum, powerSum = sums.powerSum
        guard weightSum > 0, weightSum.isFinite, powerSum > 0, powerSum.isFinite else { return .none }
        let meanCoherence = sums.coherenceSum / powerSum
        if let basis {
            c = bandCorrelation(basis, weightSum: weightSum, scratch: scratch)
        } else {
            c = bandCorrelation(weightSum: weightSum, scratch: scratch)
        }
        let K = searchLag
        let peaks = bandPeaks(c, prior: prior)
        let best = peaks.best
        guard best > 0, best.isFinite else { return .none }
        let prominence = max(0, min(1, 1 - max(peaks.second, 0) / best))

        var chosen = peaks.bestLag, usedPrior = false
        var confidence = ConfidenceMapping.coherence(meanCoherence) * ConfidenceMapping.prominence(prominence)
        if prominence < ConfidenceMapping.ambiguousProminence {
            if let nearestLag = peaks.nearestLag, prior != nil {
                chosen = nearestLag
                usedPrior = true
                confidence = ConfidenceMapping.coherence(meanCoherence) * ConfidenceMapping.priorResolvedShare
            } else {
                confidence = 0
            }
        }
        let pinned = abs(chosen) == K
        let lag = pinned
            ? Double(chosen)
            : refine(integerLag: chosen, correlation: c, spectrum: g, bins: first..<(last + 1))
        confidence = ConfidenceMapping.edgeRule(
            confidence, lag: lag, pinned: pinned, maximumLag: maxLagSamples, searchLag: K)
        return BandDelayEstimate(
            lagSamples: lag, coherence: meanCoherence, prominence: prominence, resolvedByPrior: usedPrior,
            confidence: confidence)
    }

    // MARK: - Steps of `estimateBand`

    /// Copies the band's bins of the weighted cross-spectrum into the scratch's spectrum (zero
    /// elsewhere).
    /// - Returns: the band's sums (see `bandSums`).
    private func copyBand(_ spectra: FrameSpectra, bins: ClosedRange<Int>, into scratch: BandCorrelationScratch)
        -> (weightSum: Float, coherenceSum: Float, powerSum: Float)
    {
        let g = spectra.whitened, b = scratch.spectrum.baseAddress
        (b + 2 * bins.lowerBound).update(from: g + 2 * bins.lowerBound, count: 2 * bins.count)
        return Self.bandSums(spectra, bins: bins)
    }

    /// `copyBand` for the table path: the band's bins of the weighted cross-spectrum into
    /// `basis`'s real and imaginary scratch (its padding stays 0), with the same sums.
    private func gatherBand(_ spectra: FrameSpectra, into basis: BandLagBasis)
        -> (weightSum: Float, coherenceSum: Float, powerSum: Float)
    {
        let g = spectra.whitened
        let re = basis.real.baseAddress, im = basis.imaginary.baseAddress
        let first = basis.firstBin, end = basis.lastBin + 1
        var k = first
        while k + 8 <= end {
            let (gr, gi) = FrameSpectra.eightBins(g, from: k)
            UnsafeMutableRawPointer(re + (k - first)).storeBytes(of: gr, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(im + (k - first)).storeBytes(of: gi, as: SIMD8<Float>.self)
            k += 8
        }
        while k < end {
            re[k - first] = g[2 * k]
            im[k - first] = g[2 * k + 1]
            k += 1
        }
        return Self.bandSums(spectra, bins: first...basis.lastBin)
    }

    /// `Σ|G[k]|` over the bins, and the bins' coherence weighted by their power
    /// `|L|² + |R|²` with the power's sum. Eight bins at a time (the sums in eight lanes), the
    /// rest one by one.
    private static func bandSums(_ spectra: FrameSpectra, bins: ClosedRange<Int>)
        -> (weightSum: Float, coherenceSum: Float, powerSum: Float)
    {
        typealias V = SIMD8<Float>
        let coherence = spectra.binCoherence
        var weights = V(), coherences = V(), powers = V()
        var k = bins.lowerBound
        while k + 8 <= bins.upperBound + 1 {
            let (gr, gi) = FrameSpectra.eightBins(spectra.whitened, from: k)
            weights += (gr * gr + gi * gi).squareRoot()
            let power = spectra.powers(eightFrom: k)
            coherences += UnsafeRawPointer(coherence + k).loadUnaligned(as: V.self) * power
            powers += power
            k += 8
        }
        var weightSum = weights.sum(), coherenceSum = coherences.sum(), powerSum = powers.sum()
        let w = spectra.whitened
        while k <= bins.upperBound {
            weightSum += (w[2 * k] * w[2 * k] + w[2 * k + 1] * w[2 * k + 1]).squareRoot()
            let power = spectra.power(k)
            coherenceSum += coherence[k] * power
            powerSum += power
            k += 1
        }
        return (weightSum, coherenceSum, powerSum)
    }

    /// The band's correlation from `basis` (filled by `gatherBand`) into the scratch's
    /// correlation at the lag window and one lag beyond each edge, normalised like
    /// ``bandCorrelation(weightSum:scratch:)``.
    @inline(never)
    private func bandCorrelation(
        _ basis: BandLagBasis, weightSum: Float, scratch: BandCorrelationScratch
    ) -> UnsafeMutablePointer<Float> {
        let c = scratch.correlation.baseAddress
        basis.correlate(into: c, fftSize: fftSize, scale: 1 / (2 * weightSum))
        return c
    }

    /// Transforms the scratch's spectrum back into its correlation, normalised (like the
    /// broadband correlation) over the lag window and one lag beyond each edge, for the
    /// refinement's start.
    private func bandCorrelation(weightSum: Float, scratch: BandCorrelationScratch) -> UnsafeMutablePointer<Float> {
        let n = fftSize
        scratch.inverse.baseAddress.update(from: scratch.spectrum.baseAddress, count: 2 * (n / 2 + 1))
        fft.inverse(scratch.inverse.baseAddress, scratch.correlation.baseAddress)
        let c = scratch.correlation.baseAddress
        let norm = 1 / (2 * weightSum)
        let K = searchLag
        for lag in -(K + 1)...(K + 1) { c[index(ofLag: lag)] *= norm }
        return c
    }

    /// The local maxima of the band's correlation in the lag window: the highest, the runner-up,
    /// and the positive one nearest `prior`.
    private func bandPeaks(_ c: UnsafeMutablePointer<Float>, prior: Double?)
        -> (bestLag: Int, best: Float, second: Float, nearestLag: Int?)
    {
        let K = searchLag
        func value(_ lag: Int) -> Float { c[index(ofLag: lag)] }
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
        return (bestLag, best, second, nearestLag)
    }
}
