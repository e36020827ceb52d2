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
        /// Level-encoded stereo from coincident first-order capsules (XY, Blumlein, decoded
        /// Mid-Side; see ``CoincidentPair``): the direction is the exact inverse of the pair's
        /// polar patterns applied to the channels' covariance. The capsules share one point, so
        /// the time difference is 0 for every direction: it is measured and reported but carries
        /// no weight in the direction.
        case coincident
    }

    /// The arrangement.
    public var kind: Kind
    /// Microphone spacing in metres (spaced; for coincident only the half-width of the delay search,
    /// whose result is reported but not used for the direction).
    public var spacingMeters: Double
    /// Head radius in metres (binaural).
    public var headRadiusMeters: Double
    /// Speed of sound in m/s.
    public var speedOfSoundMetersPerSecond: Double
    /// Binaural level-cue gain: the scale of the spherical head shadow's level difference, 10 for
    /// the sphere's own (about 14 dB at 4 kHz for a source at ±90°);
    /// `lateral(leftRMS:rightRMS:highFrequencyILD:)` keeps the flat reading `ILD_hf / gain`. Not
    /// used by the other kinds (a coincident pair's level cue follows from ``coincidentPair``).
    public var ildGain: Double
    /// The capsules of a coincident pair: pattern and included angle (coincident; XY cardioids
    /// at 90° by default). With ``channelsAreMidSide`` it is the pair the recording decodes to.
    public var coincidentPair: CoincidentPair
    /// True when the two input channels are a Mid-Side recording's raw M and S (coincident):
    /// the analysis decodes `L = M + S`, `R = M − S` first (see ``CoincidentPair/midSide(midPattern:sideGain:)``).
    public var channelsAreMidSide: Bool
    /// Binaural: the interaural delay law (``HeadDelayLaw``), scaled by ``headRadiusMeters``;
    /// ``HeadDelayLaw/measuredHeads`` by default.
    public var headLaw: HeadDelayLaw
    /// Binaural: a measured head's own delay and level tables (`--hrtf`), which replace
    /// ``headLaw`` and the spherical level model when present (built for one configuration:
    /// see ``MeasuredHead``). Nil by default.
    public var measuredHead: MeasuredHead?
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
    ///   - ildGain: binaural level-cue gain (the head shadow's scale); `nil` picks the default, 10.
    ///   - speedOfSoundMetersPerSecond: m/s.
    ///   - delayOffsetSeconds: see ``delayOffsetSeconds``.
    ///   - gainOffsetDecibels: see ``gainOffsetDecibels``.
    ///   - coincidentPair: see ``coincidentPair``.
    ///   - channelsAreMidSide: see ``channelsAreMidSide``.
    ///   - headLaw: see ``headLaw``.
    public init(
        kind: Kind = .spaced, spacingMeters: Double = defaultSpacing, headRadiusMeters: Double = defaultHeadRadius,
        ildGain: Double? = nil, speedOfSoundMetersPerSecond: Double = defaultSpeedOfSound,
        delayOffsetSeconds: Double = 0, gainOffsetDecibels: Double = 0,
        coincidentPair: CoincidentPair = .xyCardioids, channelsAreMidSide: Bool = false,
        headLaw: HeadDelayLaw = .measuredHeads
    ) {
        precondition(
            Self.spacingRange.contains(spacingMeters) && Self.headRadiusRange.contains(headRadiusMeters)
                && speedOfSoundMetersPerSecond > 0 && speedOfSoundMetersPerSecond.isFinite,
            "spacing \(spacingMeters) m or head radius \(headRadiusMeters) m outside ArrayModel.spacingRange / headRadiusRange")
        self.kind = kind
        self.spacingMeters = spacingMeters
        self.headRadiusMeters = headRadiusMeters
        self.speedOfSoundMetersPerSecond = speedOfSoundMetersPerSecond
        self.ildGain = ildGain ?? Self.defaultBinauralILDGain
        self.coincidentPair = coincidentPair
        self.channelsAreMidSide = channelsAreMidSide
        self.headLaw = headLaw
        self.measuredHead = nil
        self.delayOffsetSeconds = delayOffsetSeconds
        self.gainOffsetDecibels = gainOffsetDecibels
    }

    /// The largest |delay| in seconds of a source at ±90°: spaced and coincident, `d/c`; binaural,
    /// the delay law's high-frequency `(r/c)·path(π/2)` (Woodworth's `(r/c)·(π/2 + 1)` for the
    /// sphere; low frequencies reach further, and the lag window is wider still:
    /// ``lagWindowSeconds``).
    public var maximumDelaySeconds: Double {
        switch kind {
        case .spaced, .coincident: spacingMeters / speedOfSoundMetersPerSecond
        case .binaural: headRadiusMeters / speedOfSoundMetersPerSecond * headLaw.path(theta: Double.pi / 2, share: 0)
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

    /// The delay (right minus left arrival, seconds) of a far source at `lateral = sin θ`
    /// (binaural: the delay law's high-frequency end).
    public func delay(lateral: Double) -> Double {
        let s = max(-1, min(1, lateral))
        switch kind {
        case .spaced, .coincident: return -spacingMeters * s / speedOfSoundMetersPerSecond
        case .binaural:
            return -headRadiusMeters / speedOfSoundMetersPerSecond * headLaw.path(theta: asin(s), share: 0)
        }
    }

    /// The lateral value `sin θ` (−1…1) of a measured delay (right minus left, seconds),
    /// clamped at the physical limits (binaural: the delay law's high-frequency end).
    public func lateral(delay: Double) -> Double {
        switch kind {
        case .spaced, .coincident:
            return max(-1, min(1, -speedOfSoundMetersPerSecond * (delay - delayOffsetSeconds) / spacingMeters))
        case .binaural:
            return lateral(delay: delay, lowFrequencyShare: 0)
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
            // RMS values alone carry no polarity: read them as an in-phase pair.
            return coincidentLevelCue(ChannelCovariance(
                leftPower: leftRMS * leftRMS, rightPower: rightRMS * rightRMS, crossPower: leftRMS * rightRMS),
                degreesOfFreedom: .infinity).lateral
        }
    }

    /// The coincident model's level cue from a frame's second moments: the principal axis of
    /// the channels' covariance (hardware gain offset removed) inverted through the pair's
    /// patterns (``CoincidentPair/azimuth(principalAngle:)``).
    ///
    /// The confidence (before the loudness term) is `directness × steepness`:
    /// - directness: the share of the power along one direction beyond what a diffuse field or
    ///   chance gives this pair, `e = (r − f)/(1 − f)` with `r = (λ₁ − λ₂)/(λ₁ + λ₂)` and the
    ///   floor `f` the larger of |``CoincidentPair/diffuseCorrelation``| and `3/√N` (what two
    ///   unrelated channels of `N` degrees of freedom reach by chance), through
    ///   ``ConfidenceMapping/directness(_:)``;
    /// - steepness: `clamp(dψ/dθ / 0.3)` at the estimate (``ConfidenceMapping/fullSteepness``),
    ///   0 for an omni pair, which has no level information.
    /// - Parameters:
    ///   - covariance: the frame's second moments, as measured (the gain offset is removed here).
    ///   - degreesOfFreedom: independent samples behind them (≥ 1): the frame length for a
    ///     broadband frame, `2·bandwidth·duration` for a band.
    /// - Returns: the lateral value `sin θ` (−1…1) and the confidence (0…1).
    package func coincidentLevelCue(
        _ covariance: ChannelCovariance, degreesOfFreedom: Double
    ) -> (lateral: Double, confidence: Double) {
        // Remove the hardware gain offset (right minus left, dB): scale L by 10^(g/40) and R by
        // 10^(−g/40), so the corrected level difference is the measured one minus g.
        let k2 = pow(10, gainOffsetDecibels / 20)
        let axis = CoincidentPair.principalAxis(
            leftPower: covariance.leftPower * k2, rightPower: covariance.rightPower / k2,
            crossPower: covariance.crossPower)
        let pair = coincidentPair
        let azimuth = pair.azimuth(principalAngle: axis.angle)
        let chance = ConfidenceMapping.chanceDirectnessScale / max(1, degreesOfFreedom).squareRoot()
        let floor = min(max(pair.diffuseCorrelation.magnitude, chance), 0.95)
        let excess = (axis.directness - floor) / (1 - floor)
        let confidence = ConfidenceMapping.directness(excess)
            * ConfidenceMapping.steepness(pair.steepness(azimuthDegrees: azimuth))
        return (sin(azimuth * .pi / 180), confidence)
    }

    /// How the model trusts each cue: the standard deviation (in lateral units) of a fully
    /// confident estimate, which sets the inverse-variance weights of ``CueFusion``, and the
    /// share of the fused confidence the cue can earn on its own.
    var cueTrust: (itdSigma: Double, itdShare: Double, ildSigma: Double, ildShare: Double) {
        switch kind {
        case .spaced: (0.02, 1.0, .infinity, 0.0)
        case .binaural: (0.02, 1.0, 0.25, 0.6)
        // Coincident: the delay is 0 for every direction, so the time cue has no weight.
        case .coincident: (.infinity, 0.0, 0.05, 1.0)
        }
    }
}

extension ArrayModel {
    /// The azimuth of a lateral value: `asin(lateral)` in degrees, [−90, 90], with `lateral`
    /// clamped to −1…1 first. The one lateral-to-degrees mapping of the engine.
    /// - Parameter lateral: `sin θ` (a value outside −1…1 reads as ±90°).
    /// - Returns: the azimuth in degrees, negative left.
    @inline(__always)
    package static func azimuthDegrees(lateral: Double) -> Double {
        asin(max(-1, min(1, lateral))) * 180 / Double.pi
    }
}
