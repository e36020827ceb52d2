#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How the two microphones are arranged, which decides how time and level differences map to
/// a direction and how much each cue is trusted.
///
/// All models report a *lateral* value `sin(azimuth)` in −1…1 (negative left) and the azimuth
/// `asin(lateral)` in degrees, in [−90, 90] (a two-microphone array cannot tell front from back).
public struct ArrayModel: Sendable, Equatable {
    /// The physical arrangement.
    public enum Kind: String, Sendable, CaseIterable {
        /// Two omnidirectional microphones `spacingMeters` metres apart in free field.
        /// `azimuth = −asin(c·τ/d)`; the level difference carries no weight.
        case spaced
        /// Microphones at the ears of a spherical head of radius `headRadiusMeters`: a
        /// frequency-dependent delay (Kuhn's `3(r/c)·sin θ` at low frequencies, Woodworth's
        /// `(r/c)·(θ + sin θ)` at high ones) and the head shadow's level difference, which grows
        /// with frequency, as a second cue (see the `ArrayModel+Head.swift` notes).
        case binaural
        /// Level-encoded stereo (XY/MS pair, a phone's beamformed pair): the level difference
        /// through `tanh(gain·…)` is the main cue, the time difference a small correction.
        case coincident
    }

    /// The arrangement.
    public var kind: Kind
    /// Microphone spacingMeters in metres (spaced; also the aperture for the coincident model's time cue).
    public var spacingMeters: Double
    /// Head radius in metres (binaural).
    public var headRadiusMeters: Double
    /// Speed of sound in m/s.
    public var speedOfSoundMetersPerSecond: Double
    /// Level-cue mapping gain. Coincident: the gain `g` of `lateral = sign(x)·tanh(g·(|x| − 0.01))`
    /// with `x = (R_rms − L_rms)/(R_rms + L_rms)` (12, as in the iOS app). Binaural: the scale of
    /// the spherical head shadow's level difference, 10 for the sphere's own (about 14 dB at
    /// 4 kHz for a source at ±90°); `lateral(leftRMS:rightRMS:highFrequencyILD:)` keeps the flat
    /// reading `ILD_hf / gain`.
    public var ildGain: Double
    /// Inter-channel delay of the hardware in seconds, subtracted from every measured delay
    /// (right minus left; from a calibration profile, 0 by default).
    public var delayOffsetSeconds: Double
    /// Inter-channel gain of the hardware in dB, subtracted from every measured level
    /// difference (right minus left; from a calibration profile, 0 by default).
    public var gainOffsetDecibels: Double

    /// Default speed of sound, m/s (air at about 20 °C).
    public static let defaultSpeedOfSound = 343.0
    /// Default microphone spacingMeters, metres.
    public static let defaultSpacing = 0.15
    /// Default head radius, metres.
    public static let defaultHeadRadius = 0.0875

    /// - Parameters:
    ///   - kind: the arrangement (default `.spaced`).
    ///   - spacingMeters: microphone spacing in metres, within ``spacingRange`` (5 mm…5 m).
    ///   - headRadiusMeters: head radius in metres, within ``headRadiusRange`` (1…50 cm).
    ///   - ildGain: level-cue gain; `nil` picks the kind's default (12 coincident, 10 dB binaural).
    ///   - speedOfSoundMetersPerSecond: m/s.
    ///   - delayOffsetSeconds: see ``delayOffsetSeconds``.
    ///   - gainOffsetDecibels: see ``gainOffsetDecibels``.
    public init(
        kind: Kind = .spaced, spacingMeters: Double = defaultSpacing, headRadiusMeters: Double = defaultHeadRadius,
        ildGain: Double? = nil, speedOfSoundMetersPerSecond: Double = defaultSpeedOfSound,
        delayOffsetSeconds: Double = 0, gainOffsetDecibels: Double = 0
    ) {
        precondition(
            Self.spacingRange.contains(spacingMeters) && Self.headRadiusRange.contains(headRadiusMeters)
                && speedOfSoundMetersPerSecond > 0 && speedOfSoundMetersPerSecond.isFinite,
            "spacing \(spacingMeters) m or head radius \(headRadiusMeters) m outside ArrayModel.spacingRange / headRadiusRange")
        self.kind = kind
        self.spacingMeters = spacingMeters
        self.headRadiusMeters = headRadiusMeters
        self.speedOfSoundMetersPerSecond = speedOfSoundMetersPerSecond
        self.ildGain = ildGain ?? (kind == .binaural ? 10 : 12)
        self.delayOffsetSeconds = delayOffsetSeconds
        self.gainOffsetDecibels = gainOffsetDecibels
    }

    /// The largest |delay| in seconds of a source at ±90°: spaced and coincident, `d/c`; binaural,
    /// Woodworth's high-frequency `(r/c)·(π/2 + 1)` (low frequencies reach `3r/c`, and the lag
    /// window is wider still: ``lagWindowSeconds``).
    public var maximumDelaySeconds: Double {
        switch kind {
        case .spaced, .coincident: spacingMeters / speedOfSoundMetersPerSecond
        case .binaural: headRadiusMeters / speedOfSoundMetersPerSecond * (Double.pi / 2 + 1)
        }
    }

    /// The delay `τd` (seconds) that models the two channels' coherence in a diffuse sound field
    /// (the reverberant field of a room) as `Γ(f) = sin(2πf·τd)/(2πf·τd)`, or nil when the model
    /// has none.
    ///
    /// - spaced: the spacingMeters over the speed of sound, which makes `Γ` exact for two
    ///   omnidirectional microphones (Cook et al., 1955): near 1 below `c/(4d)`, first zero at
    ///   `c/(2d)`.
    /// - binaural: the largest interaural delay, an approximation: a head's diffuse-field
    ///   coherence falls like that of a free pair somewhat wider than the head.
    /// - coincident: nil. The capsules share one point, so the diffuse field is coherent at every
    ///   frequency and the time cue carries little anyway.
    public var diffuseCoherenceDelaySeconds: Double? {
        switch kind {
        case .spaced, .binaural: maximumDelaySeconds
        case .coincident: nil
        }
    }

    /// The delay (right minus left arrival, seconds) of a far source at `lateral = sin θ`.
    public func delay(lateral: Double) -> Double {
        let s = max(-1, min(1, lateral))
        switch kind {
        case .spaced, .coincident: return -spacingMeters * s / speedOfSoundMetersPerSecond
        case .binaural:
            let theta = asin(s)
            return -headRadiusMeters / speedOfSoundMetersPerSecond * (theta + s)
        }
    }

    /// The lateral value `sin θ` (−1…1) of a measured delay (right minus left, seconds),
    /// clamped at the physical limits.
    public func lateral(delay: Double) -> Double {
        let tau = delay - delayOffsetSeconds
        switch kind {
        case .spaced, .coincident:
            return max(-1, min(1, -speedOfSoundMetersPerSecond * tau / spacingMeters))
        case .binaural:
            // Invert θ + sin θ = −τ·c/r on [−π/2, π/2] (monotonic) by Newton's method.
            let target = max(-(Double.pi / 2 + 1), min(Double.pi / 2 + 1, -tau * speedOfSoundMetersPerSecond / headRadiusMeters))
            var theta = target / 2
            for _ in 0..<8 {
                let f = theta + sin(theta) - target
                theta -= f / (1 + cos(theta))
                theta = max(-Double.pi / 2, min(Double.pi / 2, theta))
            }
            return sin(theta)
        }
    }

    /// The lateral value (−1…1) the level cue indicates, from channel RMS values and the
    /// high-frequency level difference.
    /// - Parameters:
    ///   - leftRMS: left broadband RMS (linear).
    ///   - rightRMS: right broadband RMS (linear).
    ///   - highFrequencyILD: right-minus-left level difference above 1.5 kHz, dB.
    public func lateral(leftRMS: Double, rightRMS: Double, highFrequencyILD: Double) -> Double {
        switch kind {
        case .spaced:
            return 0
        case .binaural:
            return max(-1, min(1, (highFrequencyILD - gainOffsetDecibels) / ildGain))
        case .coincident:
            // Remove the hardware gain offset (right minus left, dB) before the ratio: the
            // corrected level difference 20·log10(r/l) is the measured one minus the offset.
            let correction = pow(10, -gainOffsetDecibels / 40)
            let l = leftRMS / correction, r = rightRMS * correction
            guard l + r > 0 else { return 0 }
            return Self.coincidentLateral(ratio: (r - l) / (r + l), gain: ildGain)
        }
    }

    /// Half-width of the dead zone of the coincident level mapping: level ratios within ±0.01
    /// (about ±0.17 dB) read as straight ahead, so a pair's small mismatch does not wander.
    static let coincidentDeadZone = 0.01

    /// The coincident model's level mapping, `lateral = sign(x)·tanh(g·(|x| − 0.01))` and 0 in
    /// the dead zone ``coincidentDeadZone``.
    /// - Parameters:
    ///   - x: the level ratio `(R − L)/(R + L)` of the channels' RMS values, −1…1.
    ///   - gain: the mapping gain `g` (``ildGain``, > 0).
    /// - Returns: the lateral value, −1…1.
    static func coincidentLateral(ratio x: Double, gain: Double) -> Double {
        let magnitude = abs(x) - coincidentDeadZone
        guard magnitude > 0 else { return 0 }
        return (x < 0 ? -1 : 1) * tanh(gain * magnitude)
    }

    /// How the model trusts each cue: the standard deviation (in lateral units) of a fully
    /// confident estimate, which sets the inverse-variance weights of ``CueFusion``, and the
    /// share of the fused confidence the cue can earn on its own.
    var cueTrust: (itdSigma: Double, itdShare: Double, ildSigma: Double, ildShare: Double) {
        switch kind {
        case .spaced: (0.02, 1.0, .infinity, 0.0)
        case .binaural: (0.02, 1.0, 0.25, 0.6)
        case .coincident: (0.25, 0.3, 0.05, 1.0)
        }
    }
}
