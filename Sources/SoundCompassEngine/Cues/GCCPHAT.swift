#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The time difference of one frame as found by GCC-PHAT.
package struct TimeDelayEstimate: Sendable, Equatable {
    /// Arrival at the right microphone minus arrival at the left, in samples (sub-sample
    /// precision). Positive: the sound reached the left microphone first (source on the left).
    package var lagSamples: Double
    /// Height of the correlation peak, normalised so that two identical, delayed signals give
    /// about 1 and unrelated signals about `1/√N` (0…1).
    package var peakHeight: Float
    /// Peak height over the RMS of the correlation outside the lag window (≥ 0). Unrelated
    /// signals give about 2–3.5, a clear source tens to hundreds.
    package var significance: Float
    /// `1 − (second-highest local maximum in the window) / peak` (0…1): near 1 for a single
    /// clear source, near 0 when two candidate lags compete.
    package var prominence: Float
    /// True when the integer peak sits on the edge of the lag window (no confidence then).
    package var pinnedAtEdge: Bool
    /// Phase consistency of the frame, about −0.1…1: the share of the frame's power whose
    /// inter-channel phase agrees with the cross-spectrum averaged over the previous frames,
    /// `Σₖ Pₖ·cos(arg Cₖ − arg ⟨C⟩ₖ) / Σₖ Pₖ` with `Pₖ = |Lₖ|² + |Rₖ|²`. A sound from one
    /// direction keeps the phase `ω·τ` of its direction whatever its spectrum, so it scores near
    /// 1; unrelated noise in the two channels scores near 0; a frame that follows the end of a
    /// sound scores by its own content, not the history's. Nil when not measured: until four
    /// frames have been seen, and in a frame with no power.
    package var consistency: Float? = nil
    /// Confidence of the time cue, 0…1 (see ``GCCPHAT`` for the formula).
    package var confidence: Float

    /// An estimate with no information (silence).
    package static let none = TimeDelayEstimate(
        lagSamples: 0, peakHeight: 0, significance: 0, prominence: 0, pinnedAtEdge: false, confidence: 0)
}

/// What ``GCCPHAT/estimate(left:right:)`` found in one frame: the time difference, and a view
/// of the spectra it came from for the measures that build on them.
package struct CorrelatedFrame {
    /// The frame's time difference.
    package var delay: TimeDelayEstimate
    /// The frame's spectra, valid until the estimator's next frame.
    package let spectra: FrameSpectra
}

/// Generalised cross-correlation with phase transform (GCC-PHAT) between two channels.
///
/// For each frame: both channels are Hann-windowed and zero-padded to the FFT size `N` (the
/// power of two ≥ the frame length); the cross-spectrum `C[k] = conj(L[k])·R[k]` is whitened to
/// `G[k] = C[k] / max(|C[k]|, ε)` (the phase transform) with `ε` a tiny fraction of the frame's
/// mean `|C|` (so near-zero bins cannot blow up); DC and Nyquist are dropped; the inverse FFT divided by
/// `2·Σ|G[k]|` gives the correlation `r[k]` (1 at the peak for a pure delay), which peaks at the
/// lag of the right channel behind the left.
///
/// **Coherence weighting.** Full PHAT gives every bin the same weight, so bins that hold only
/// sensor noise (above a speech signal's band, say) dilute the peak. Each bin is therefore also
/// weighted by `γ²/(1 − γ²)` (capped at 20), where `γ²` is the magnitude-squared coherence of
/// the two channels from recursive averages over recent frames (the newest frame's share is
/// `coherenceSmoothing`, 0.5: a memory of about two hops). Bins where the channels agree count;
/// bins of unrelated noise fade. A single frame (or a clean source) gives γ² ≈ 1 everywhere,
/// which is plain PHAT. This is the maximum-likelihood weighting of Knapp and Carter on top of
/// the phase transform. It is the only state carried between frames; ``reset()`` clears it.
///
/// **Diffuse-field correction.** A room's reverberation reaches the pair from all directions. At
/// low frequencies, where the wavelength is long against the spacing, that diffuse field is
/// coherent between the microphones with zero phase, `Γ(f) = sinc(2πf·τd)` (see
/// ``ArrayModel/diffuseCoherenceDelay``), so a plain coherence weighting trusts those bins and
/// pulls the lag towards 0 (a source at 60° reads 20–40° in a room with RT60 0.6 s). The weight
/// therefore uses the coherence in excess of the diffuse field's,
/// `γd² = (γ² − Γ²)/(1 − Γ²)` (clamped at 0; bins with `Γ² > 0.995`, the lowest few, get no
/// weight): 1 for a direct sound, 0 for a purely diffuse field, and `γ²` itself where `Γ ≈ 0`
/// (above `c/(2d)` for a spaced pair). In free field a source is coherent at every frequency, so
/// the correction costs it only the lowest bins.
///
/// **Window alignment.** The right channel's window is shifted by the rounded lag of the last
/// confident frame. With both windows on the same sound, a sound that starts or stops inside
/// the frame no longer biases the lag (by up to a sample for speech at syllable edges).
///
/// **Lag window.** Only lags with `|k| ≤ K = ceil(maxLag) + margin` are searched, where
/// `maxLag = (largest physical delay)·fs`. A peak at `±K` is pinned at the edge and earns no
/// confidence; a refined lag past `maxLag` tapers the confidence linearly to zero at `K`.
///
/// **Sub-sample peak.** The integer peak is refined with Newton's method on the band-limited
/// correlation itself, `r(τ) = Σₖ Re(G[k]·e^(2πikτ/N))`, whose first and second derivatives
/// in `τ` are exact sums over the bins: this interpolates the correlation exactly (it is
/// frequency-domain upsampling to infinite resolution) instead of fitting a parabola, which is
/// biased by up to a tenth of a sample.
///
/// **Confidence** = `clamp((s − 4)/6) · clamp(p/0.15) · clamp(q/0.5) · taper` with `s` the
/// significance (peak over background RMS), `p` the normalised peak height, `q` the
/// prominence and `taper` the edge taper above (see ``ConfidenceMapping``). Uncorrelated noise
/// stays below `s ≈ 4`. A frame at least ``ConfidenceMapping/confidentToAlignWindow``
/// confident moves the window alignment to its lag.
///
/// Life cycle: `init` allocates everything; ``estimate(left:right:)`` never allocates.
package final class GCCPHAT {
    /// Frame length in samples.
    package let frameLength: Int
    /// FFT size in samples (power of two ≥ frame length).
    package let fftSize: Int
    /// Largest physical lag in samples (fractional): the array's largest delay times the sample rate.
    package let maxLagSamples: Double
    /// Half-width of the searched lag window in whole samples: `ceil(maxLagSamples) + margin`.
    package let searchLag: Int

    let fft: RealFFT
    private let window: [Float]
    private let leftTime: AlignedFloats
    private let rightTime: AlignedFloats
    /// Windowed spectra of the current frame (interleaved complex, `fftSize/2 + 1` bins). Read
    /// through the ``FrameSpectra`` view that ``estimate(left:right:)`` returns.
    private let leftSpectrum: AlignedFloats
    private let rightSpectrum: AlignedFloats
    /// The weighted cross-spectrum `G[k]` of the current frame (interleaved complex).
    private let whitened: AlignedFloats
    /// Magnitude-squared coherence of each bin over recent frames, in excess of the diffuse
    /// field's (see the type's notes; 1 without coherence weighting).
    private let binCoherence: AlignedFloats
    /// Number of the current frame: counts the calls of ``estimate(left:right:)``, so that a
    /// ``FrameSpectra`` view of an earlier frame is recognised (it is not reset).
    private var frameNumber = 0
    /// Recursive averages of the auto- and cross-spectra over recent frames, for the
    /// coherence weighting (the cross-spectrum's real parts, then its imaginary parts, so that
    /// eight bins load as one vector).
    private let averageLeftPower: AlignedFloats
    private let averageRightPower: AlignedFloats
    private let averageCross: AlignedFloats
    private var averagedFrames = 0
    /// Whole-sample delay by which the right channel's window is shifted (window alignment):
    /// the rounded lag of the last confident frame, 0 before one.
    package private(set) var windowOffset = 0
    /// Share of the newest frame in the spectral averages (0 disables coherence weighting).
    package let coherenceSmoothing: Float
    /// A copy of `whitened` for the inverse FFT, which destroys its input.
    private let inverseScratch: AlignedFloats
    /// The frame's correlation, handed out through ``FrameSpectra/correlation``.
    private let correlation: AlignedFloats
    /// Squared diffuse-field coherence `Γ²` of each bin (all 0 without a diffuse-field model).
    private let diffuseCoherenceSquared: AlignedFloats
    /// `1/(1 − Γ²)` of each bin, 0 where `Γ²` is too close to 1 to subtract.
    private let diffuseScale: AlignedFloats

    /// - Parameters:
    ///   - frameLength: samples per frame (≥ 16).
    ///   - maxLagSamples: the largest physically possible lag in samples (> 0).
    ///   - marginSamples: whole samples added on each side of the window (default 2).
    ///   - coherenceSmoothing: share of the newest frame in the spectral averages behind the
    ///     coherence weighting, 0…1 (default 0.5; 0 turns the coherence weighting off).
    ///   - diffuseCoherenceDelaySamples: `τd` in samples of the diffuse-field coherence
    ///     `sinc(2πf·τd)` (see ``ArrayModel/diffuseCoherenceDelay``); nil (the default) for no
    ///     diffuse-field correction.
    package init(
        frameLength: Int, maxLagSamples: Double, marginSamples: Int = 2,
        coherenceSmoothing: Float = 0.5, diffuseCoherenceDelaySamples: Double? = nil
    ) {
        precondition(coherenceSmoothing >= 0 && coherenceSmoothing <= 1)
        self.coherenceSmoothing = coherenceSmoothing
        precondition(frameLength >= 16, "frame length must be at least 16 samples")
        precondition(maxLagSamples > 0 && maxLagSamples.isFinite)
        self.frameLength = frameLength
        var n = 1
        while n < frameLength { n <<= 1 }
        self.fftSize = n
        self.maxLagSamples = maxLagSamples
        self.searchLag = min(Int(maxLagSamples.rounded(.up)) + max(1, marginSamples), n / 2 - 1)
        self.fft = RealFFT(size: n)
        self.window = Window.hann(length: frameLength)
        self.leftTime = AlignedFloats(count: n)
        self.rightTime = AlignedFloats(count: n)
        self.leftSpectrum = AlignedFloats(count: 2 * (n / 2 + 1))
        self.rightSpectrum = AlignedFloats(count: 2 * (n / 2 + 1))
        self.whitened = AlignedFloats(count: 2 * (n / 2 + 1))
        self.inverseScratch = AlignedFloats(count: 2 * (n / 2 + 1))
        self.binCoherence = AlignedFloats(count: n / 2 + 1)
        self.averageLeftPower = AlignedFloats(count: n / 2 + 1)
        self.averageRightPower = AlignedFloats(count: n / 2 + 1)
        self.averageCross = AlignedFloats(count: 2 * (n / 2 + 1))
        self.correlation = AlignedFloats(count: n)
        self.diffuseCoherenceSquared = AlignedFloats(count: n / 2 + 1)
        self.diffuseScale = AlignedFloats(count: n / 2 + 1)
        for k in 0...(n / 2) {
            var gamma = 0.0
            if let tau = diffuseCoherenceDelaySamples, tau > 0 {
                let x = 2 * Double.pi * Double(k) * tau / Double(n)
                gamma = k == 0 ? 1 : sin(x) / x
            }
            let g2 = Float(gamma * gamma)
            diffuseCoherenceSquared[k] = g2
            diffuseScale[k] = g2 < Self.largestDiffuseCoherence ? 1 / (1 - g2) : 0
        }
    }

    /// Bins whose squared diffuse-field coherence is above this get no coherence weight: there,
    /// a direct sound and the room cannot be told apart.
    static let largestDiffuseCoherence: Float = 0.995

    /// Largest coherence weight γ²/(1 − γ²) of a bin (γ² ≈ 0.95).
    package static let maximumCoherenceWeight: Float = 20

    /// Forgets the spectral averages (the next frame starts a new stream).
    package func reset() {
        averagedFrames = 0
        windowOffset = 0
        averageLeftPower.zero()
        averageRightPower.zero()
        averageCross.zero()
    }

    /// Estimates the time difference of one frame.
    /// - Parameters:
    ///   - left: `frameLength` samples of the left channel.
    ///   - right: `frameLength` samples of the right channel.
    /// - Returns: the lag (right minus left, in samples) and its confidence, with a view of the
    ///   frame's spectra for the measures that build on them (valid until the next call).
    package func estimate(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) -> CorrelatedFrame {
        precondition(left.count >= frameLength && right.count >= frameLength)
        frameNumber &+= 1
        var spectra = currentSpectra
        transform(left: left, right: right)
        let magnitudeSum = formCrossSpectrum()
        guard magnitudeSum > 0, magnitudeSum.isFinite else { return CorrelatedFrame(delay: .none, spectra: spectra) }
        let epsilon = max(1e-6 * magnitudeSum / Float(fftSize / 2 - 1), Float.leastNormalMagnitude)
        let weighting = weightBins(epsilon: epsilon)
        averagedFrames += 1
        guard let c = correlate(weightSum: weighting.weightSum) else {
            return CorrelatedFrame(delay: .none, spectra: spectra)
        }
        let K = searchLag
        let peak = integerPeak(c)
        guard peak.value > 0, peak.value.isFinite else { return CorrelatedFrame(delay: .none, spectra: spectra) }
        let significance = significance(of: peak.value, in: c)
        let prominence = prominence(of: peak, in: c)
        let pinned = abs(peak.lag) == K
        let lag = pinned
            ? Double(peak.lag)
            : refine(integerLag: peak.lag, correlation: c, spectrum: whitened.baseAddress, bins: 1..<(fftSize / 2))
        let confidence = ConfidenceMapping.edgeRule(
            ConfidenceMapping.correlation(significance: significance, peakHeight: peak.value)
                * ConfidenceMapping.prominence(prominence),
            lag: lag, pinned: pinned, maximumLag: maxLagSamples, searchLag: K)
        let powerSum = weighting.powerSum
        let frameConsistency = averagedFrames >= 4 && powerSum > 0 && powerSum.isFinite
            ? weighting.consistentPower / powerSum : nil
        if confidence >= ConfidenceMapping.confidentToAlignWindow { windowOffset = Int(lag.rounded()) }
        spectra.correlation = UnsafePointer(c)
        let delay = TimeDelayEstimate(
            lagSamples: lag, peakHeight: min(peak.value, 1), significance: significance,
            prominence: prominence, pinnedAtEdge: pinned, consistency: frameConsistency, confidence: confidence)
        return CorrelatedFrame(delay: delay, spectra: spectra)
    }

    /// The view of this estimator's buffers for the current frame.
    private var currentSpectra: FrameSpectra {
        FrameSpectra(
            fftSize: fftSize, frameLength: frameLength, left: UnsafePointer(leftSpectrum.baseAddress),
            right: UnsafePointer(rightSpectrum.baseAddress), whitened: UnsafePointer(whitened.baseAddress),
            binCoherence: UnsafePointer(binCoherence.baseAddress), frameNumber: frameNumber)
    }

    /// Traps unless `spectra` is the view of this estimator's current frame.
    func checkCurrent(_ spectra: FrameSpectra) {
        precondition(
            spectra.frameNumber == frameNumber && spectra.whitened == UnsafePointer(whitened.baseAddress),
            "the spectra are not this estimator's current frame")
    }

    // MARK: - Steps of `estimate`

    /// Windows both channels and transforms them into `leftSpectrum` and `rightSpectrum`.
    ///
    /// The zero padding past `frameLength` stays zero from `init`. The right channel's window
    /// is shifted by the expected delay (``windowOffset``), so that a sound starting or
    /// stopping inside the frame is weighted alike in both channels and the window does not
    /// bias the lag.
    private func transform(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) {
        let offset = windowOffset, n = frameLength
        window.withUnsafeBufferPointer { w in
            let l = leftTime.baseAddress, r = rightTime.baseAddress
            Self.multiply(left.baseAddress!, w.baseAddress!, into: l, count: n)
            // rightTime[i] = right[i]·w[i − offset] where 0 ≤ i − offset < n, else 0.
            let start = max(0, offset), end = min(n, n + offset)
            if start > 0 { r.update(repeating: 0, count: min(start, n)) }
            if end > start { Self.multiply(right.baseAddress! + start, w.baseAddress! + start - offset, into: r + start, count: end - start) }
            if end < n { (r + max(end, 0)).update(repeating: 0, count: n - max(end, 0)) }
        }
        fft.forward(leftTime.baseAddress, leftSpectrum.baseAddress)
        fft.forward(rightTime.baseAddress, rightSpectrum.baseAddress)
    }

    /// `out[i] = a[i]·b[i]` for `i < count`, eight at a time (the compiler does not vectorise
    /// the plain loop: it cannot rule out that `out` overlaps the inputs).
    @inline(__always)
    private static func multiply(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int
    ) {
        typealias V = SIMD8<Float>
        var i = 0
        while i + 8 <= count {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: V.self)
            let y = UnsafeRawPointer(b + i).loadUnaligned(as: V.self)
            UnsafeMutableRawPointer(out + i).storeBytes(of: x * y, as: V.self)
            i += 8
        }
        while i < count {
            out[i] = a[i] * b[i]
            i += 1
        }
    }

    /// Writes the cross-spectrum `conj(L)·R` into `whitened` (bins between DC and Nyquist).
    /// - Returns: `Σ|C[k]|`, for the guard of the phase transform.
    private func formCrossSpectrum() -> Float {
        let bins = fftSize / 2 + 1
        let l = leftSpectrum.baseAddress, r = rightSpectrum.baseAddress, g = whitened.baseAddress
        // Eight bins at a time (the same products; the magnitudes summed in eight lanes), the
        // rest one by one.
        var partial = SIMD8<Float>()
        var k = 1
        while k + 8 <= bins - 1 {
            let (lr, li) = FrameSpectra.eightBins(l, from: k), (rr0, ri) = FrameSpectra.eightBins(r, from: k)
            let cr = lr * rr0 + li * ri
            let ci = lr * ri - li * rr0
            for lane in 0..<8 {
                g[2 * (k + lane)] = cr[lane]
                g[2 * (k + lane) + 1] = ci[lane]
            }
            partial += (cr * cr + ci * ci).squareRoot()
            k += 8
        }
        var magnitudeSum = partial.sum()
        while k < bins - 1 {
            let lr = l[2 * k], li = l[2 * k + 1], rr = r[2 * k], ri = r[2 * k + 1]
            let cr = lr * rr + li * ri
            let ci = lr * ri - li * rr
            g[2 * k] = cr
            g[2 * k + 1] = ci
            magnitudeSum += (cr * cr + ci * ci).squareRoot()
            k += 1
        }
        return magnitudeSum
    }

    /// Sums gathered while weighting the bins.
    private struct BinWeighting {
        /// `Σ|C[k]|·scaleₖ`: the normalisation of the correlation.
        var weightSum: Float = 0
        /// `Σₖ Pₖ·cos(arg Cₖ − arg ⟨C⟩ₖ)`, the numerator of the phase consistency.
        var consistentPower: Float = 0
        /// `Σₖ Pₖ`, its denominator.
        var powerSum: Float = 0
    }

    /// Whitens the cross-spectrum in `whitened` in place (phase transform and coherence
    /// weighting, see the type's notes), updates the spectral averages and `binCoherence`, and
    /// zeroes DC and Nyquist.
    /// - Parameter epsilon: the smallest magnitude a bin is divided by.
    private func weightBins(epsilon: Float) -> BinWeighting {
        let bins = fftSize / 2 + 1
        let g = whitened.baseAddress
        var sums = BinWeighting()
        // Eight bins at a time (see `weightBinsSIMD`), the rest one by one.
        var k = 1
        if coherenceSmoothing > 0 {
            k = weightBinsSIMD(epsilon: epsilon, sums: &sums)
        }
        while k < bins - 1 {
            weightBin(k, epsilon: epsilon, sums: &sums)
            k += 1
        }
        g[0] = 0; g[1] = 0; g[2 * (bins - 1)] = 0; g[2 * (bins - 1) + 1] = 0
        return sums
    }

    /// `weightBin` for bins `1, 2, …` eight at a time, as far as whole groups of eight reach below
    /// Nyquist. The same arithmetic lane by lane (only the order of the three sums differs).
    /// - Returns: the first bin not done.
    private func weightBinsSIMD(epsilon: Float, sums: inout BinWeighting) -> Int {
        typealias V = SIMD8<Float>
        let bins = fftSize / 2 + 1
        let rawL = UnsafeRawPointer(leftSpectrum.baseAddress), rawR = UnsafeRawPointer(rightSpectrum.baseAddress)
        let g = whitened.baseAddress
        let a = V(repeating: averagedFrames == 0 ? 1 : coherenceSmoothing)
        let pl = averageLeftPower.baseAddress, pr = averageRightPower.baseAddress
        let pcRe = averageCross.baseAddress, pcIm = averageCross.baseAddress + bins
        let bc = binCoherence.baseAddress
        let dg = diffuseCoherenceSquared.baseAddress, ds = diffuseScale.baseAddress
        let eps = V(repeating: epsilon), zero = V(), one = V(repeating: 1)
        let cap = V(repeating: Self.maximumCoherenceWeight), tiny = V(repeating: 1e-6)
        var consistent = V(), power = V(), weight = V()
        var k = 1
        // min and max as compare-and-blend (the generic `pointwiseMin` is not inlined); like
        // Swift's `min`/`max`, they return the first argument when the second is NaN.
        @inline(__always) func vmin(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .< x) }
        @inline(__always) func vmax(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .> x) }
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> V {
            UnsafeRawPointer(p).loadUnaligned(as: V.self)
        }
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
        }
        while k + 8 <= bins - 1 {
            let byteOffset = 2 * k * MemoryLayout<Float>.stride
            let gg = UnsafeRawPointer(g).loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let ll16 = rawL.loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let rr16 = rawR.loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let cr = gg.evenHalf, ci = gg.oddHalf
            let cm = (cr * cr + ci * ci).squareRoot()
            let magnitude = vmax(cm, eps)
            let lr = ll16.evenHalf, li = ll16.oddHalf, rr0 = rr16.evenHalf, ri = rr16.oddHalf
            let ll = lr * lr + li * li, rr = rr0 * rr0 + ri * ri
            var xr = load(pcRe + k), xi = load(pcIm + k)
            let previousMagnitude = (xr * xr + xi * xi).squareRoot()
            let agreement = (cr * xr + ci * xi) / (magnitude * previousMagnitude)
            consistent += (agreement * (ll + rr)).replacing(with: 0, where: previousMagnitude .<= zero)
            power += ll + rr
            var avl = load(pl + k), avr = load(pr + k)
            avl += a * (ll - avl)
            avr += a * (rr - avr)
            xr += a * (cr - xr)
            xi += a * (ci - xi)
            store(avl, pl + k); store(avr, pr + k); store(xr, pcRe + k); store(xi, pcIm + k)
            let denominator = avl * avr
            let measured = vmin(one, (xr * xr + xi * xi) / denominator).replacing(with: 0, where: denominator .<= zero)
            let coherence = vmax(zero, (measured - load(dg + k)) * load(ds + k))
            let scale = vmin(coherence / vmax(one - coherence, tiny), cap) / magnitude
            store(coherence, bc + k)
            let wr = cr * scale, wi = ci * scale
            for lane in 0..<8 {
                g[2 * (k + lane)] = wr[lane]
                g[2 * (k + lane) + 1] = wi[lane]
            }
            weight += cm * scale
            k += 8
        }
        sums.consistentPower += consistent.sum()
        sums.powerSum += power.sum()
        sums.weightSum += weight.sum()
        return k
    }

    /// Weights bin `k` of `whitened` in place; see ``weightBins(epsilon:)``.
    @inline(__always)
    private func weightBin(_ k: Int, epsilon: Float, sums: inout BinWeighting) {
        let bins = fftSize / 2 + 1
        let l = leftSpectrum.baseAddress, r = rightSpectrum.baseAddress, g = whitened.baseAddress
        let a = averagedFrames == 0 ? 1 : coherenceSmoothing
        let pl = averageLeftPower.baseAddress, pr = averageRightPower.baseAddress
        let pcRe = averageCross.baseAddress, pcIm = averageCross.baseAddress + bins
        let bc = binCoherence.baseAddress
        let dg = diffuseCoherenceSquared.baseAddress, ds = diffuseScale.baseAddress
        let cr = g[2 * k], ci = g[2 * k + 1]
        let magnitude = max((cr * cr + ci * ci).squareRoot(), epsilon)
        var scale = 1 / magnitude
        if coherenceSmoothing > 0 {
            // Magnitude-squared coherence over recent frames, γ² = |⟨C⟩|² / (⟨|L|²⟩·⟨|R|²⟩),
            // weights each bin by γ²/(1 − γ²) (the maximum-likelihood weighting), capped.
            let ll = l[2 * k] * l[2 * k] + l[2 * k + 1] * l[2 * k + 1]
            let rr = r[2 * k] * r[2 * k] + r[2 * k + 1] * r[2 * k + 1]
            // Phase agreement with the previous average, before this frame joins it.
            let previousMagnitude = (pcRe[k] * pcRe[k] + pcIm[k] * pcIm[k]).squareRoot()
            if previousMagnitude > 0 {
                let agreement = (cr * pcRe[k] + ci * pcIm[k]) / (magnitude * previousMagnitude)
                sums.consistentPower += agreement * (ll + rr)
            }
            sums.powerSum += ll + rr
            pl[k] += a * (ll - pl[k])
            pr[k] += a * (rr - pr[k])
            pcRe[k] += a * (cr - pcRe[k])
            pcIm[k] += a * (ci - pcIm[k])
            let denominator = pl[k] * pr[k]
            let measured = denominator > 0 ? min(1, (pcRe[k] * pcRe[k] + pcIm[k] * pcIm[k]) / denominator) : 0
            // Coherence in excess of the diffuse field's (the measured one without a model).
            let coherence = max(0, (measured - dg[k]) * ds[k])
            scale *= min(coherence / max(1 - coherence, 1e-6), Self.maximumCoherenceWeight)
            bc[k] = coherence
        } else {
            bc[k] = 1
        }
        g[2 * k] = cr * scale
        g[2 * k + 1] = ci * scale
        sums.weightSum += (cr * cr + ci * ci).squareRoot() * scale
    }

    /// Transforms `whitened` back into `correlation`, normalised so that a pure delay peaks at 1.
    /// - Parameter weightSum: `Σ|G[k]|`.
    /// - Returns: the correlation, or nil when `weightSum` is 0 or not finite.
    private func correlate(weightSum: Float) -> UnsafeMutablePointer<Float>? {
        let n = fftSize
        inverseScratch.baseAddress.update(from: whitened.baseAddress, count: 2 * (n / 2 + 1))
        fft.inverse(inverseScratch.baseAddress, correlation.baseAddress)
        // Normalise: a pure delay gives 2·Σ|G[k]| at the peak.
        guard weightSum > 0, weightSum.isFinite else { return nil }
        let norm = 1 / (2 * weightSum)
        let c = correlation.baseAddress
        for i in 0..<n { c[i] *= norm }
        return c
    }

    /// Where lag `lag` (−N < lag < N) sits in a circular correlation of `N = fftSize` values:
    /// `(lag + N) mod N`, with a mask (N is a power of two) instead of a division, which the
    /// peak searches would otherwise pay three times per lag.
    @inline(__always)
    func index(ofLag lag: Int) -> Int { (lag + fftSize) & (fftSize - 1) }

    /// The highest value of the correlation `c` within ±``searchLag`` and its integer lag (the
    /// first of equal values, from −``searchLag`` up).
    private func integerPeak(_ c: UnsafeMutablePointer<Float>) -> (lag: Int, value: Float) {
        let K = searchLag
        var bestLag = 0
        var best = -Float.infinity
        for lag in -K...K {
            let v = c[index(ofLag: lag)]
            if v > best { best = v; bestLag = lag }
        }
        return (bestLag, best)
    }

    /// Peak over the RMS of the correlation outside the lag window (10⁶ when that is 0).
    private func significance(of peak: Float, in c: UnsafeMutablePointer<Float>) -> Float {
        let n = fftSize, K = searchLag
        // Eight lags at a time into eight partial sums (one running sum would make each lag wait
        // for the one before), the rest one by one.
        var partial = SIMD8<Float>()
        var i = K + 1
        while i + 8 <= n - K {
            let v = UnsafeRawPointer(c + i).loadUnaligned(as: SIMD8<Float>.self)
            partial += v * v
            i += 8
        }
        var backgroundSum = partial.sum()
        while i < n - K {
            backgroundSum += c[i] * c[i]
            i += 1
        }
        let background = (backgroundSum / Float(n - 2 * K - 1)).squareRoot()
        return background > 0 ? peak / background : Float(1e6)
    }

    /// `1 − second / peak`, 0…1, with `second` the highest other local maximum in the window.
    private func prominence(of peak: (lag: Int, value: Float), in c: UnsafeMutablePointer<Float>) -> Float {
        let K = searchLag
        var second: Float = 0
        for lag in -K...K where lag != peak.lag {
            let v = c[index(ofLag: lag)]
            let previous = lag > -K ? c[index(ofLag: lag - 1)] : -Float.infinity
            let next = lag < K ? c[index(ofLag: lag + 1)] : -Float.infinity
            if v > previous && v >= next && v > second {
                // Ignore the shoulders of the main peak: a local maximum must be separated from
                // it by a dip.
                second = v
            }
        }
        return max(0, min(1, 1 - second / peak.value))
    }

    /// Newton refinement of the peak of `r(τ) = Σₖ wₖ·Re(G[k]·e^(iωₖτ))` around an integer lag.
    /// - Parameters:
    ///   - integerLag: the integer peak.
    ///   - c: the correlation (time domain) the peak was found in.
    ///   - g: the weighted cross-spectrum it came from.
    ///   - bins: the bins of `g` that are non-zero.
    func refine(integerLag: Int, correlation c: UnsafeMutablePointer<Float>, spectrum g: UnsafeMutablePointer<Float>, bins binRange: Range<Int>) -> Double {
        let n = fftSize
        // Parabolic start.
        let y0 = Double(c[index(ofLag: integerLag - 1)]), y1 = Double(c[index(ofLag: integerLag)]),
            y2 = Double(c[index(ofLag: integerLag + 1)])
        var tau = Double(integerLag) + parabolicPeakOffset(y0, y1, y2)
        let start = tau

        let omega = 2 * Double.pi / Double(n)
        // Newton converges quadratically from the parabola's start (about 0.05 sample off): two
        // steps bring it below 10⁻⁴ sample.
        for _ in 0..<2 {
            let (first, second) = Self.peakDerivatives(of: g, at: tau, omega: omega, bins: binRange)
            guard second < 0 else { return start }
            let step = first / second
            tau -= step
            if abs(step) < 1e-4 { break }
        }
        // A refinement that wandered off the integer peak is not trusted.
        return abs(tau - Double(integerLag)) <= 1 ? tau : start
    }

    /// The first and second derivatives of `r(τ) = Σₖ Re(G[k]·e^(iωkτ))` over `bins`, at `tau`
    /// (samples): `r′ = −Σ ωk·Im(G·z)`, `r″ = −Σ (ωk)²·Re(G·z)` with `z = e^(iωkτ)`.
    ///
    /// Eight bins at a time in single precision: lane `l` walks `z` over the bins
    /// `k ≡ l (mod 8)` by complex multiplication with `e^(8iωτ)`, its start computed in double
    /// precision, so that each phasor takes an eighth of the steps a single walk would (at most
    /// 128 for N = 2048: a phase error below 10⁻⁵ rad). The lanes are summed in double
    /// precision. Never allocates.
    static func peakDerivatives(
        of g: UnsafeMutablePointer<Float>, at tau: Double, omega: Double, bins: Range<Int>
    ) -> (first: Double, second: Double) {
        var k = bins.lowerBound
        let end = bins.upperBound
        var first = 0.0, second = 0.0
        if end - k >= 8 {
            // The lanes' first phasors, e^(iωτ(k+l)), walked in double precision from bin k.
            var zr = SIMD8<Float>(), zi = SIMD8<Float>(), w = SIMD8<Float>()
            let unitRe = cos(omega * tau), unitIm = sin(omega * tau)
            var pr = cos(omega * tau * Double(k)), pi = sin(omega * tau * Double(k))
            for l in 0..<8 {
                zr[l] = Float(pr)
                zi[l] = Float(pi)
                w[l] = Float(omega * Double(k + l))
                (pr, pi) = (pr * unitRe - pi * unitIm, pr * unitIm + pi * unitRe)
            }
            let stepRe = SIMD8<Float>(repeating: Float(cos(8 * omega * tau)))
            let stepIm = SIMD8<Float>(repeating: Float(sin(8 * omega * tau)))
            let dw = SIMD8<Float>(repeating: Float(8 * omega))
            var first8 = SIMD8<Float>(), second8 = SIMD8<Float>()
            let raw = UnsafeRawPointer(g)
            while k + 8 <= end {
                let pairs = raw.loadUnaligned(fromByteOffset: 2 * k * MemoryLayout<Float>.stride, as: SIMD16<Float>.self)
                let gr = pairs.evenHalf, gi = pairs.oddHalf
                let im = gr * zi + gi * zr
                let re = gr * zr - gi * zi
                first8 -= w * im
                second8 -= w * w * re
                let nr = zr * stepRe - zi * stepIm
                zi = zr * stepIm + zi * stepRe
                zr = nr
                w += dw
                k += 8
            }
            // The last bins, fewer than eight: lane l already holds bin k + l's phasor.
            for l in 0..<(end - k) {
                let gr = g[2 * (k + l)], gi = g[2 * (k + l) + 1]
                first8[l] -= w[l] * (gr * zi[l] + gi * zr[l])
                second8[l] -= w[l] * w[l] * (gr * zr[l] - gi * zi[l])
            }
            k = end
            for l in 0..<8 {
                first += Double(first8[l])
                second += Double(second8[l])
            }
        }
        while k < end {
            let angle = omega * tau * Double(k)
            let zr = cos(angle), zi = sin(angle)
            let gr = Double(g[2 * k]), gi = Double(g[2 * k + 1])
            let wk = omega * Double(k)
            first -= wk * (gr * zi + gi * zr)
            second -= wk * wk * (gr * zr - gi * zi)
            k += 1
        }
        return (first, second)
    }
}
