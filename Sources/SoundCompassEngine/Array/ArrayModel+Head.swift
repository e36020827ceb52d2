#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The binaural model's frequency dependence: the interaural time and level differences of a
/// rigid sphere of radius `r` with the ears at its ends (±90°), as functions of the lateral
/// angle `θ` and the frequency `f`.
///
/// **Time.** Below `ka ≈ 0.8` (`k = 2πf/c`; 500 Hz for 8.75 cm) the sphere's interaural delay is
/// Kuhn's (1977) low-frequency limit `3(r/c)·sin θ`; above `ka ≈ 3.2` (2 kHz) it approaches
/// Woodworth's ray model `(r/c)·(θ + sin θ)`. The low-frequency delay is 1.5 times the high one
/// near the front, 1.17 times at the sides. Between, the model blends the two with the
/// low-frequency share `L(f) = 1/(1 + (ka/ka₀)³)`, with `ka₀ = 1.6` the geometric middle of
/// Kuhn's two regimes (1 kHz for 8.75 cm; `L` is 0.89 at 500 Hz and 0.11 at 2 kHz):
/// `τ(θ, f) = −(r/c)·[(1 − L)·(θ + sin θ) + L·3·sin θ]` (right minus left, negative for a source
/// on the right).
///
/// A measured delay is a mixture of frequencies. GCC-PHAT's refined peak sits where the
/// weighted bins' phases balance, which to first order is the average of the bins' delays with
/// weights `|G[k]|·ω²` (the curvature each bin adds to the peak; see
/// ``GCCPHAT/lowFrequencyShare(_:shares:bins:)``), so the delay of a frame or band is read with
/// the same average of `L` over its bins: ``delay(lateral:lowFrequencyShare:)`` and
/// ``lateral(delay:lowFrequencyShare:)``.
///
/// **Level.** Brown and Duda's (1998) one-pole, one-zero head-shadow filter for an ear at angle
/// `φ` from the source, `H(ω, φ) = (1 + iα(φ)·ω/(2ω₀)) / (1 + iω/(2ω₀))` with `ω₀ = c/r` and
/// `α(φ) = 1.05 + 0.95·cos(φ·180°/150°)` (+6 dB facing the source at high frequencies, the
/// deepest shadow at 150°, the bright spot behind it). The level difference (right minus left)
/// `ILD(θ, f) = 20·log₁₀|H(ω, 90° − θ)| − 20·log₁₀|H(ω, 90° + θ)|` is about 0.3 dB at 200 Hz,
/// 6 dB at 1 kHz, 14 dB at 4 kHz and 16 dB at 8 kHz for a source at 90° and r = 8.75 cm; it
/// grows with the lateral angle up to about 60–75° and falls a little towards 90° (the bright
/// spot). ``ildGain`` scales it (10, the default, is the sphere's own).
extension ArrayModel {
    /// Lower end of Kuhn's high-frequency regime, `ka` (2 kHz for 8.75 cm).
    static let highFrequencyRegimeKa = 3.2
    /// Upper end of Kuhn's low-frequency regime, `ka` (500 Hz for 8.75 cm).
    static let lowFrequencyRegimeKa = 0.8
    /// The middle of the transition, `ka₀ = √(0.8·3.2) = 1.6`.
    static let transitionKa = (lowFrequencyRegimeKa * highFrequencyRegimeKa).squareRoot()
    /// The ``ildGain`` at which the binaural level model is the sphere's own, dB.
    public static let defaultBinauralILDGain = 10.0

    /// The lag GCC-PHAT searches on each side, seconds. Spaced and coincident: the largest
    /// physical delay. Binaural: `4r/c` (1.02 ms for 8.75 cm), the sphere's largest delay
    /// `3r/c` (low frequencies at 90°) with a third more for real heads, whose ears sit behind
    /// the head's centre and whose interaural delays reach 0.7–0.8 ms. A delay past the model's
    /// largest reads ±90° with the confidence of its correlation peak.
    public var lagWindowSeconds: Double {
        switch kind {
        case .spaced, .coincident: maximumDelaySeconds
        case .binaural: 4 * headRadiusMeters / speedOfSoundMetersPerSecond
        }
    }

    /// The share `L` (0…1) of Kuhn's low-frequency delay in the binaural model at a frequency:
    /// `1/(1 + (ka/ka₀)³)` with `k = 2πf/c`, `a` the head radius and `ka₀ = 1.6`.
    /// - Parameter frequencyHz: the frequency, Hz (≥ 0).
    /// - Returns: 1 at 0 Hz, falling to 0 at high frequencies.
    public func lowFrequencyShare(frequencyHz: Double) -> Double {
        let ka = 2 * Double.pi * max(0, frequencyHz) * headRadiusMeters / speedOfSoundMetersPerSecond
        let x = ka / Self.transitionKa
        return 1 / (1 + x * x * x)
    }

    /// The binaural interaural delay (right minus left, seconds) of a far source at
    /// `lateral = sin θ`, for a measurement whose low-frequency share is `share` (see the notes
    /// above): `−(r/c)·[(1 − L)·(θ + sin θ) + L·3·sin θ]`. Spaced and coincident models ignore
    /// `share`.
    /// - Parameters:
    ///   - lateral: `sin θ`, −1…1.
    ///   - share: the low-frequency share `L`, 0…1 (0: Woodworth's high-frequency delay).
    public func delay(lateral: Double, lowFrequencyShare share: Double) -> Double {
        guard kind == .binaural else { return delay(lateral: lateral) }
        let s = max(-1, min(1, lateral))
        let l = max(0, min(1, share))
        return -headRadiusMeters / speedOfSoundMetersPerSecond * headLaw.path(theta: asin(s), share: l)
    }

    /// The lateral value `sin θ` (−1…1) of a measured delay (right minus left, seconds) whose
    /// low-frequency share is `share`; delays past the model's largest read ±1 (90°). Spaced and
    /// coincident models ignore `share`.
    /// - Parameters:
    ///   - delay: seconds, before the hardware offset ``delayOffsetSeconds`` is removed.
    ///   - share: the low-frequency share `L`, 0…1.
    public func lateral(delay: Double, lowFrequencyShare share: Double) -> Double {
        guard kind == .binaural else { return lateral(delay: delay) }
        let l = max(0, min(1, share))
        let tau = delay - delayOffsetSeconds
        let largest = headLaw.path(theta: Double.pi / 2, share: l)
        let target = max(-largest, min(largest, -tau * speedOfSoundMetersPerSecond / headRadiusMeters))
        guard abs(target) < largest else { return target < 0 ? -1 : 1 }
        // The law's path rises monotonically on [−π/2, π/2] (HeadDelayLaw): bisection, a
        // fixed 42 steps, to 10⁻¹² rad (no derivative trouble where it flattens at ±90°).
        var low = -Double.pi / 2, high = Double.pi / 2
        for _ in 0..<42 {
            let middle = (low + high) / 2
            if headLaw.path(theta: middle, share: l) < target { low = middle } else { high = middle }
        }
        return sin((low + high) / 2)
    }

    /// The binaural time cue's spread in lateral units at a lateral value: the model's
    /// `itdSigma` (0.02) times `max(0.05, cos θ·(a + b)/(a + b·cos θ))`, the slope of `sin θ`
    /// against the delay law's high-frequency end relative to its slope straight ahead (for the
    /// sphere, `2·cos θ/(1 + cos θ)`). A delay error moves the lateral
    /// value less and less towards the sides (not at all at 90°, where the delay is flat in `θ`
    /// but `sin θ` is flatter still), so the cue pins the lateral value there; the floor keeps
    /// the weight finite at ±90°.
    /// - Parameter lateral: the time cue's `sin θ`, −1…1.
    func binauralTimeSigma(lateral: Double) -> Double {
        let s = max(-1, min(1, lateral))
        let cosine = (1 - s * s).squareRoot()
        let law = headLaw
        let relative = cosine * (law.highLinear + law.highSine) / (law.highLinear + law.highSine * cosine)
        return cueTrust.itdSigma * max(0.05, relative)
    }

    /// The binaural model's interaural level difference (right minus left, dB) of a far source
    /// at `lateral = sin θ` and a frequency, from the spherical head shadow scaled by
    /// ``ildGain`` / 10 (see the notes above).
    /// - Parameters:
    ///   - lateral: `sin θ`, −1…1.
    ///   - frequencyHz: Hz (≥ 0).
    public func levelDifference(lateral: Double, frequencyHz: Double) -> Double {
        let theta = Self.azimuthDegrees(lateral: lateral)
        let w = 2 * Double.pi * max(0, frequencyHz) * headRadiusMeters / (2 * speedOfSoundMetersPerSecond)
        return ildGain / Self.defaultBinauralILDGain * (Self.shadowDecibels(w, 90 - theta) - Self.shadowDecibels(w, 90 + theta))
    }

    /// `20·log₁₀|H(ω, φ)|` of the head-shadow filter at `w = ω/(2ω₀)` for an ear at `φ` degrees
    /// from the source.
    static func shadowDecibels(_ w: Double, _ phi: Double) -> Double {
        let alpha = 1.05 + 0.95 * cos(phi / 150 * Double.pi)
        let aw = alpha * w
        return 10 * log10((1 + aw * aw) / (1 + w * w))
    }

    /// The lateral value (−1…1) the binaural level cue indicates: the measured level difference
    /// (less ``gainOffsetDecibels``) inverted through ``levelDifference(lateral:frequencyHz:)``
    /// on the rising part of the model (0° up to where it peaks, 60–75°); a difference at or
    /// past the peak reads ±1 (90°), where the real head's bright spot leaves the level cue
    /// ambiguous anyway.
    /// - Parameters:
    ///   - decibels: measured right-minus-left level difference, dB.
    ///   - frequencyHz: the frequency the difference represents, Hz.
    public func lateral(levelDifference decibels: Double, frequencyHz: Double) -> Double {
        let x = decibels - gainOffsetDecibels
        let magnitude = abs(x)
        // The model's peak over the lateral angle, on a 1° grid refined by bisection below.
        var peakLateral = 0.0, peakValue = 0.0
        var degrees = 1.0
        while degrees <= 90 {
            let s = sin(degrees * Double.pi / 180)
            let v = levelDifference(lateral: s, frequencyHz: frequencyHz)
            if v > peakValue { peakValue = v; peakLateral = s } else { break }
            degrees += 1
        }
        guard peakValue > 0 else { return 0 }
        if magnitude >= peakValue { return x < 0 ? -1 : 1 }
        var low = 0.0, high = peakLateral
        for _ in 0..<30 {
            let middle = (low + high) / 2
            if levelDifference(lateral: middle, frequencyHz: frequencyHz) < magnitude { low = middle } else { high = middle }
        }
        let s = (low + high) / 2
        return x < 0 ? -s : s
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
