#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The test of the candidates that are reflections of a stronger one, told by the cross terms
/// they leave far outside the physical lag window: a component of ``SourceCandidateFinder`` that
/// owns its average (the finder marks the candidates, `markImages()`).
///
/// A reflection is a delayed copy of its source from another direction. Say the source reaches
/// the left and right microphones at `d_L`, `d_R` and its image, `Δ` later, at `i_L`, `i_R`:
/// the two peaks inside the lag window are the source's `τ_A = d_R − d_L` and the image's
/// `τ_B = i_R − i_L`. Because both carry the same signal, the correlation also peaks where the
/// image in one channel meets the direct sound in the other: at `i_R − d_L = τ_B + Δ_L` and at
/// `d_R − i_L = τ_A − Δ_L`, with `Δ_L = i_L − d_L` a few milliseconds (tens to hundreds of
/// samples), far outside the window, as high as the image's own peak times about 0.7 (measured
/// on the steady-noise rooms). The two cross terms' lags sum to `τ_A + τ_B`, whatever the
/// delay. Two independent sources share no signal and leave no cross terms. So a candidate `B`
/// is a reflection of a stronger candidate `A` when, in a correlation averaged long enough for
/// the cross terms to stand above the background (the image average, over
/// ``imageWindowSeconds``), some lag `x` outside the window and its partner `τ_A + τ_B − x`
/// both hold at least ``imageRatio`` of `B`'s height and ``imageBackgroundFactor`` times the
/// background's mean magnitude.
///
/// The echo test (``SourceCandidate/echo``) finds a talker's reflections from their peaks
/// rising and falling with the talker's; a steady source's reflections (a fan's, a
/// television's floor and wall images) barely move from frame to frame, so it has nothing to go
/// on, and they were listed as sources of their own: the most common false source of the
/// steady-noise room sweep. This test does not depend on the source's sound changing.
///
/// **Which copy came first.** The cross terms are symmetric: their lags sum to `τ_A + τ_B`
/// whichever of the two is the direct sound. The level of each channel is not: a copy `Δ` later
/// makes a ripple across the channel's spectrum, `|1 + g·e^(−iωΔ)|²`, of quefrency `Δ`, and the
/// image trails the direct sound by `Δ_L` at the left microphone and `Δ_R = Δ_L + τ_B − τ_A` at
/// the right. So the test also averages each bin's level ripple `(|L|² − |R|²)/(|L|² + |R|²)`
/// (the source's own spectrum divides out) and reads its cosine components at the two
/// quefrencies the cross term predicts (``copyRipples(lagA:lagB:farLag:)``): positive at the
/// left's, negative at the right's, and the two swap when the other candidate is the direct
/// sound (``firstCopy(lagA:lagB:farLag:strict:)``). A pair at mid-height hears a source's floor
/// and ceiling images at one delay and one bearing: together they often outgrow the direct
/// sound, and taking the weaker peak for the image then marked the source.
///
/// **What it does.** Pairs of candidates alike in new sound are judged (``SourceCandidateFinder/holdsLittleNewSound(_:)``):
/// - both holding little new sound (the steady sources, and the candidate with the highest
///   new-sound ratio when that ratio alone is low): the copy the ripples name the later is
///   marked, the weaker in the plain average when they do not tell (the direct sound is louder
///   than any one reflection of it in a room of ordinary size);
/// - both holding new sound (a talker and its reflection): only when the ripples tell, strictly
///   (two talkers at one distance have reflections at one delay, whose cross terms can sum to
///   the pair's lags).
/// A talker that happens to sit on a steady source's reflection holds new sound, and its peak
/// is judged against no steady candidate. (With steady sources alone, whose rule for the
/// newest candidate unmarks the higher of two small new-sound ratios, a pink noise's copy in
/// `SteadyReflectionTests` was listed in 0.816 of the records instead of none; with the low ratios
/// alone, the talker at RT60 0.6 s, 0 dB on the steady-noise room sweep 60.2 % instead of 60.3 %,
/// and false sources the same 9.9 %.) A marked candidate
/// (``SourceCandidate/steadyReflection``, and ``SourceCandidate/laterCopy`` when the ripples
/// told) starts no source and grows no tentative one in ``MultiSourceTracker``, but still feeds
/// a source already confirmed: the plain window is short enough for a reflection to outgrow its
/// source for a moment, and a talker near a steady source's reflection keeps taking that peak
/// while silent. (On the steady-noise room sweep, RT60 0.3 s:
/// marking it as an echo instead dropped such a talker with it, 96 % → 48 % of its frames for a
/// talker 5° from a noise's reflection; dropping it from the candidates let a reflection's track
/// coast through the frames it was dropped in, and the talker's worst layout fell from 50 % to
/// 42 %.) Without the excess averages every candidate counts as steady.
///
/// On that sweep (noise as loud as the talker) the false sources fell from 12 % to 9 %, the
/// noise's reflections among them from 5.1 % to 2.3 %; the talker's and the noise's shares did
/// not move. The ripples (issue 46) then took `evaluate.py --multi`'s talker beside a pink noise
/// at RT60 0.3 s from 10.8 % false sources to 5.0 %, and one talker's from 2.0 % to 0.8 %.
package final class ReflectionImageTest {
    /// Window of the image average, seconds (its plain mean until then): the cross terms are a
    /// fraction of a candidate's height, and over the plain window (0.3 s) the background's
    /// spread reaches them. 2 and 4 s did no better on the steady-noise sweep.
    static let imageWindowSeconds = 1.0
    /// Longest delay of a reflection behind its source that the test looks for, seconds: 12 ms
    /// is about 4 m more path, the floor, ceiling and near walls of a living room.
    static let imageDelaySeconds = 0.012
    /// Least height of each cross term relative to the weaker candidate's height in the plain
    /// average: a reflection's cross terms reach about 0.7 of its peak.
    static let imageRatio = 0.35
    /// Least height of each cross term in multiples of the mean magnitude of the image average
    /// outside the lag window (4 gave 9.2 % false sources on the steady-noise sweep, 3 8.8 %,
    /// both the same shares for the talker and the noise).
    static let imageBackgroundFactor: Float = 3
    /// Least difference of the two ripple components that tells which of two copies came first
    /// (``firstCopy(lagA:lagB:farLag:strict:)``).
    static let rippleMargin = 0.01

    /// Half-width of the image average, samples: ``imageDelaySeconds`` at `sampleRate`, at most
    /// 3/8 of the FFT size (the Hann-windowed frames still overlap by a third there, and the
    /// circular correlation wraps at half of it), at least 4 samples beyond `searchLag`.
    static func imageLag(sampleRate: Double, fftSize: Int, searchLag: Int) -> Int {
        min(max(searchLag + 4, Int((imageDelaySeconds * sampleRate).rounded())), max(searchLag, 3 * fftSize / 8))
    }

    /// Half-width of the average, whole samples: the longest delay of a reflection behind its
    /// source that the test looks for.
    package let lag: Int
    /// Half-width of the physical lag window, whole samples (the estimator's ``GCCPHAT/searchLag``).
    private let searchLag: Int
    private let fftSize: Int
    /// Share of the newest frame in the average: hop / ``imageWindowSeconds``.
    private let smoothing: Float
    /// The frames' correlations averaged over ``imageWindowSeconds`` at lags `−lag…lag` (index
    /// `lag + lag`), far beyond the physical lag window.
    private let average: AlignedFloats
    /// Frames averaged (the average is their plain mean until ``imageWindowSeconds`` have passed).
    private var frames = 0
    /// Per bin, the level ripple `(|L|² − |R|²)/(|L|² + |R|²)` averaged like ``average`` (bins
    /// 0…N/2 − 1; Nyquist is never read): which of two copies of one sound arrived first
    /// (``firstCopy(lagA:lagB:farLag:strict:)``).
    private let ripple: AlignedFloats

    /// - Parameters:
    ///   - sampleRate: Hz.
    ///   - fftSize: the broadband estimator's FFT size (its correlation's length).
    ///   - searchLag: the estimator's lag window, whole samples each side.
    ///   - hopDuration: time between frames, seconds.
    package init(sampleRate: Double, fftSize: Int, searchLag: Int, hopDuration: Double) {
        self.lag = Self.imageLag(sampleRate: sampleRate, fftSize: fftSize, searchLag: searchLag)
        self.searchLag = searchLag
        self.fftSize = fftSize
        self.smoothing = Float(min(1, hopDuration / Self.imageWindowSeconds))
        self.average = AlignedFloats(count: 2 * lag + 1)
        // The estimator's FFT size is a power of two of at least 16: N/2 bins are whole vectors.
        self.ripple = AlignedFloats(count: fftSize / 2)
    }

    /// Forgets the averages.
    package func reset() {
        average.zero()
        ripple.zero()
        frames = 0
    }

    /// Whether the average reaches far enough beyond the lag window to hold cross terms.
    package var canTest: Bool { lag > searchLag + 2 }

    /// The least height of a cross term that stands above the background:
    /// ``imageBackgroundFactor`` times the average's mean magnitude outside the lag window.
    package func backgroundHeight() -> Float {
        let r = average.baseAddress, L = lag, K = searchLag
        // The mean magnitude outside the lag window: all of it less the window's.
        typealias V = SIMD8<Float>
        var sums = V()
        var i = 0
        while i + 8 <= 2 * L + 1 {
            let v = UnsafeRawPointer(r + i).loadUnaligned(as: V.self)
            sums += v.replacing(with: -v, where: v .< 0)
            i += 8
        }
        var magnitude = sums.sum()
        while i <= 2 * L { magnitude += abs(r[i]); i += 1 }
        for i in (L - K)...(L + K) { magnitude -= abs(r[i]) }
        return Self.imageBackgroundFactor * max(0, magnitude) / Float(2 * (L - K))
    }

    /// Adds a frame: `image += smoothing·(weight·c(lag) − image)` at lags `−lag…lag` of the
    /// circular correlation `c`, and the same for the level ripple of each bin (decay only
    /// without a correlation: a frame below the gate or without an estimate).
    /// - Parameters:
    ///   - correlation: the frame's circular correlation (`fftSize` values), or nil.
    ///   - spectra: the frame's spectra (its left and right channels).
    ///   - weight: the frame's tail weight, 0…1.
    package func update(correlation: UnsafePointer<Float>?, spectra: FrameSpectra, weight: Float) {
        let image = average.baseAddress, levels = ripple.baseAddress
        let a = smoothing, L = lag, n = fftSize
        guard let c = correlation else {
            Self.blend(image, toward: image, count: 2 * L + 1, share: a, scale: 0)
            Self.blend(levels, toward: levels, count: n / 2, share: a, scale: 0)
            return
        }
        // Until the window has filled, the plain mean of the frames so far.
        frames += 1
        let b = max(a, 1 / Float(frames))
        // Lags −L…−1 sit at the end of the circular correlation, 0…L at its start.
        Self.blend(image, toward: c + (n - L), count: L, share: b, scale: weight)
        Self.blend(image + L, toward: c, count: L + 1, share: b, scale: weight)
        blendRipple(spectra, share: b, scale: weight)
    }

    /// `ripple[k] += share·(scale·(|L|² − |R|²)/(|L|² + |R|²) − ripple[k])` for bins 0…N/2 − 1,
    /// eight at a time (0 for a silent bin).
    private func blendRipple(_ spectra: FrameSpectra, share: Float, scale: Float) {
        typealias V = SIMD8<Float>
        let y = ripple.baseAddress, bins = fftSize / 2
        let vb = V(repeating: share), vw = V(repeating: scale), tiny = V(repeating: .leastNormalMagnitude)
        for k in stride(from: 0, to: bins, by: 8) {
            let (lr, li) = FrameSpectra.eightBins(spectra.left, from: k)
            let (rr, ri) = FrameSpectra.eightBins(spectra.right, from: k)
            let pl = lr * lr + li * li, pr = rr * rr + ri * ri
            let r = (pl - pr) / (pl + pr + tiny)
            let old = UnsafeRawPointer(y + k).loadUnaligned(as: V.self)
            UnsafeMutableRawPointer(y + k).storeBytes(of: old + vb * (vw * r - old), as: V.self)
        }
    }

    /// The averaged level ripple's mean over the bins between DC and Nyquist: a level difference
    /// that is the same in every bin (mismatched capsules, a head's shadow) is no ripple, and
    /// would leak into every quefrency `t` as `mean·sin(πt)/(πt)`.
    private func rippleMean() -> Double {
        let y = ripple.baseAddress, bins = fftSize / 2
        var mean = 0.0
        for k in 1..<bins { mean += Double(y[k]) }
        return mean / Double(bins - 1)
    }

    /// The averaged level ripple's cosine component at quefrency `t` samples, its `mean`
    /// (``rippleMean()``) taken out: `Σₖ (ripple[k] − mean)·cos(2πkt/N)` over the bins between
    /// DC and Nyquist, divided by their number. A copy of the sound `Δ` samples behind it in the
    /// left channel alone adds a positive component at `Δ`; in the right channel alone, a
    /// negative one.
    private func rippleComponent(at t: Double, mean: Double) -> Double {
        let y = ripple.baseAddress, bins = fftSize / 2
        let step = 2 * Double.pi * t / Double(fftSize)
        // cos(kθ) by the rotation (cos, sin) ← (cos·cosθ − sin·sinθ, sin·cosθ + cos·sinθ).
        let c1 = cos(step), s1 = sin(step)
        var c = c1, s = s1, sum = 0.0
        for k in 1..<bins {
            sum += (Double(y[k]) - mean) * c
            (c, s) = (c * c1 - s * s1, s * c1 + c * s1)
        }
        return sum / Double(bins - 1)
    }

    /// Which of two copies of one sound (candidates at lags `a` and `b`, samples, whose cross
    /// terms the image average holds at `farLag` and `a + b − farLag`) reached the pair first,
    /// from the level ripples the later copy leaves in each channel.
    ///
    /// With `a` the direct sound and `b` its image `Δ_L` later at the left microphone, the cross
    /// term beyond the window on the positive side lies at `x = b + Δ_L`, and the image trails
    /// the direct sound by `Δ_L = x − b` at the left microphone and by `Δ_R = x − a` at the
    /// right: a positive ripple component at `x − b` (the left channel's) and a negative one at
    /// `x − a` (the right's). Were `b` the direct sound, the two would swap. The cross terms
    /// cannot tell the two apart (their lags sum to `a + b` either way); the ripples can, by
    /// `a − b` samples.
    /// - Parameters:
    ///   - a: the first candidate's lag, samples.
    ///   - b: the second candidate's lag, samples.
    ///   - farLag: the lag of either cross term, samples.
    /// - Returns: the ripple's components at `x − b` and at `x − a` (units of the ripple,
    ///   `(|L|² − |R|²)/(|L|² + |R|²)`).
    package func copyRipples(lagA a: Double, lagB b: Double, farLag: Double) -> (atB: Double, atA: Double) {
        let x = max(farLag, a + b - farLag)
        let mean = rippleMean()
        return (rippleComponent(at: x - b, mean: mean), rippleComponent(at: x - a, mean: mean))
    }

    /// Which of two copies of one sound reached the pair first.
    package enum FirstCopy { case a, b, untold }

    /// Which of two copies of one sound came first by their ripples (``copyRipples(lagA:lagB:farLag:)``):
    /// `a` when the component at `x − b` exceeds the one at `x − a` by at least ``rippleMargin``,
    /// `b` when the reverse, else untold. With `strict` (two copies of new sound, where two
    /// talkers' own reflections at one delay can mimic a pair's cross terms) the two components
    /// must also have opposite signs, and differ by twice the margin.
    package func firstCopy(lagA a: Double, lagB b: Double, farLag: Double, strict: Bool) -> FirstCopy {
        let (atB, atA) = copyRipples(lagA: a, lagB: b, farLag: farLag)
        let difference = atB - atA
        let margin = strict ? 2 * Self.rippleMargin : Self.rippleMargin
        guard abs(difference) >= margin, !strict || atB * atA < 0 else { return .untold }
        return difference > 0 ? .a : .b
    }

    /// Whether a candidate at lag `b` (samples) is the later copy of a sound at lag `a`: their
    /// cross terms stand in the image average at least `least` high, and the level ripples name
    /// `a` the first copy, strictly (``firstCopy(lagA:lagB:farLag:strict:)``). For a direct
    /// sound heard lately whose peak has left the candidates (``HeardDirectSounds``): the image
    /// average remembers a second, the plain one 0.3 s.
    package func isLaterCopy(lag b: Double, of a: Double, least: Float) -> Bool {
        let cross = crossTerms(lagSum: a + b, least: least)
        guard cross.height >= least else { return false }
        return firstCopy(lagA: a, lagB: b, farLag: cross.lag, strict: true) == .a
    }

    /// `y[i] += share·(scale·x[i] − y[i])` for `count` values, eight at a time.
    private static func blend(
        _ y: UnsafeMutablePointer<Float>, toward x: UnsafePointer<Float>, count: Int, share: Float, scale: Float
    ) {
        typealias V = SIMD8<Float>
        let vb = V(repeating: share), vw = V(repeating: scale)
        var i = 0
        while i + 8 <= count {
            let old = UnsafeRawPointer(y + i).loadUnaligned(as: V.self)
            let new = UnsafeRawPointer(x + i).loadUnaligned(as: V.self)
            UnsafeMutableRawPointer(y + i).storeBytes(of: old + vb * (vw * new - old), as: V.self)
            i += 8
        }
        while i < count {
            y[i] += share * (scale * x[i] - y[i])
            i += 1
        }
    }

    /// The highest `min(r(x), r(x′))` over the lags `x` outside the lag window (beyond
    /// ``searchLag``) and within ``lag``, with `x′` the highest of the image average `r`
    /// within a sample of `s − x` (the cross terms are one sample wide, a whitened spectrum's
    /// peaks, and each of the two candidates' lags is known to a fraction of a sample); lags
    /// whose own value is below `least` are skipped (0 when none qualifies).
    /// - Parameters:
    ///   - s: the sum of the two candidates' lags, samples.
    ///   - least: the height below which a lag cannot qualify.
    /// - Returns: the height, and the lag of the cross term on the positive side, samples (to a
    /// fraction of a sample).
    package func crossTerms(lagSum s: Double, least: Float) -> (height: Float, lag: Double) {
        let r = average.baseAddress
        let L = lag, K = searchLag
        var best: Float = 0, bestLag = 0, bestPartner = 0
        for x in -L...L where abs(x) > K {
            let v = r[x + L]
            guard v >= least, v > best else { continue }
            let partner = s - Double(x)
            let low = max(-L, Int((partner - 1).rounded(.up))), high = min(L, Int((partner + 1).rounded(.down)))
            var w: Float = 0, wLag = 0
            for p in stride(from: low, through: high, by: 1) where abs(p) > K && r[p + L] > w { w = r[p + L]; wLag = p }
            if min(v, w) > best { best = min(v, w); bestLag = x; bestPartner = wLag }
        }
        guard best > 0 else { return (0, 0) }
        // The positive one of the two, to a fraction of a sample (a parabola through its peak).
        let x = max(bestLag, bestPartner)
        guard x > -L, x < L else { return (best, Double(x)) }
        return (best, Double(x) + parabolicPeakOffset(Double(r[x + L - 1]), Double(r[x + L]), Double(r[x + L + 1])))
    }
}
