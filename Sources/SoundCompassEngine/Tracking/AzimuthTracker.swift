/// How quickly the tracked bearing follows new evidence.
public enum TrackerResponse: String, Sendable, CaseIterable {
    /// Steadiest; follows slow movement.
    case calm
    /// The default: follows a talker walking past, holds a still source steady.
    case balanced
    /// Follows fast movement and jumps; shows more jitter.
    case snappy

    /// Spectral density of the white angular acceleration of the motion model, deg²/s³.
    var accelerationDensity: Double {
        switch self {
        case .calm: 300
        case .balanced: 3000
        case .snappy: 30000
        }
    }
}

/// A constant-velocity Kalman filter on the azimuth, whose measurement noise comes from each
/// frame's confidence.
///
/// State: azimuth θ (degrees) and its rate ω (degrees/s). Prediction over a hop `dt`:
/// `θ += ω·dt` with process noise from white angular acceleration of density `q` (the
/// response preset): `Q = q·[[dt³/3, dt²/2], [dt²/2, dt]]`. Measurement: the frame's own
/// azimuth with variance `(2°/c)²` for confidence `c` (floored at 0.05), so a frame with half
/// the confidence counts a quarter as much. A constant-velocity model follows a source moving
/// at constant speed with no steady-state lag.
///
/// Frames that are not active, or less confident than 0.2, only predict: the rate decays by 10 %
/// per frame so that the bearing coasts to a stop, and the variances stop growing at (5°)² and
/// (30°/s)² so that the first weak frame after a pause is not believed too much. A measurement more than 3 standard
/// deviations of the innovation from the prediction is not believed (validation gate).
///
/// **Known motion.** When the listener's turning is known (an IMU and a resolved hemisphere),
/// the source's movement across the array that it causes is added to the prediction, so the
/// track follows a turning head without lag, even through pauses.
///
/// **Re-acquisition.** A gated measurement more than 15° from the track is evidence for a
/// challenger: rejected measurements that agree with each other (within 15° of the challenger's
/// confidence-weighted mean) add their confidence to its weight, one that does not starts a new
/// challenger, and each measurement the track accepts takes its own confidence off the
/// challenger's weight. When the weight reaches 1.5 (three frames of confidence 0.5, or six of
/// 0.25) the track restarts at the challenger: the source has moved, or the track had locked on
/// a reflection. A challenger without support for one second is forgotten. A bearing averaged
/// over time (given with a `gate`) that falls outside its gate supports a challenger at half its
/// confidence (``gatedChallengerShare``): in loud noise a frame's own bearing is rare, and a
/// track started on a wrong one was otherwise never corrected. The tracked azimuth stays within
/// [−90, 90].
package struct AzimuthTracker: Sendable {
    /// The response preset.
    package let response: TrackerResponse
    private let dt: Double
    private var theta = 0.0, omega = 0.0
    private var p00 = 0.0, p01 = 0.0, p11 = 0.0
    private var initialised = false
    private var challenger = 0.0, challengerWeight = 0.0
    private var framesSinceChallengerSupport = 0
    /// Whether the last frame had a known shift (see ``update(measurement:confidence:shift:)``).
    private var shifting = false

    /// Frames less confident than this only predict (the engine's threshold for a confident frame).
    static let minimumConfidence = ConfidenceMapping.confident
    /// Caps of the position (deg²) and rate ((deg/s)²) variances while coasting.
    static let coastingPositionVariance = 25.0
    static let coastingRateVariance = 900.0

    /// Standard deviation of a fully confident measurement, degrees.
    static let measurementSigma = 2.0
    /// Distance from the track beyond which a rejected measurement supports a challenger, and
    /// within which it agrees with one, degrees.
    static let challengerSeparation = 15.0
    /// Summed confidence at which a challenger replaces the track.
    static let challengerWeightToRestart = 1.5
    /// Seconds a challenger lives without support.
    static let challengerLifetime = 1.0
    /// Share of its confidence with which a gated bearing outside its gate supports a challenger:
    /// eleven agreeing frames of the onset bearing (confidence 0.3) restart the track (ten sum
    /// to just under 1.5). At a full share (five frames) a moving talker at RT60 0.6 s, 10 dB
    /// read 5.4° instead of 4.6° (`evaluate.py`); at a quarter the diffuse-field scenes at
    /// 48 kHz gained less (see Docs/Accuracy.md).
    static let gatedChallengerShare = 0.5

    /// - Parameters:
    ///   - response: the preset.
    ///   - hopDuration: seconds between frames.
    package init(response: TrackerResponse = .balanced, hopDuration: Double) {
        self.response = response
        self.dt = hopDuration
    }

    /// The tracked azimuth, degrees (0 before the first confident frame).
    package var azimuth: Double { theta }
    /// The tracked rate, degrees per second.
    package var rate: Double { omega }
    /// True once a confident frame has started the track.
    package var isTracking: Bool { initialised }

    package mutating func reset() { self = AzimuthTracker(response: response, hopDuration: dt) }

    /// Takes `rate` (degrees per second) off the tracked rate: the part of the motion that
    /// from now on arrives as a known `shift` (see ``update(measurement:confidence:shift:)``).
    private mutating func removeRate(_ rate: Double) {
        if initialised && rate.isFinite { omega -= rate }
    }

    /// Advances one frame.
    /// - Parameters:
    ///   - measurement: the frame's own azimuth, degrees.
    ///   - confidence: its confidence, 0…1 (0 for inactive frames: prediction only).
    ///   - shift: known movement of the source across the array since the last frame, degrees,
    ///     added to the prediction (the listener's own turning, from an IMU, see ``HeadTurn``;
    ///     0 without one). The first frame of a shift also takes it off the tracked rate, which
    ///     had learned the turning until then.
    ///   - gate: given for a bearing read from an average over time (see ``OnsetBearing``),
    ///     degrees: further than this from the predicted track it does not move the track (the
    ///     average may sit on a reflection for a while; the rate decays as in a frame with nothing
    ///     heard) and supports a challenger at ``gatedChallengerShare`` of its confidence; within
    ///     it it moves the tracked position only, not the rate (an average over 0.3 s lags a
    ///     moving source).
    /// - Returns: the tracked azimuth, degrees.
    @discardableResult
    package mutating func update(measurement: Double, confidence: Double, shift: Double = 0, gate: Double? = nil) -> Double {
        // A known shift that starts now was, until now, learned as the source's own rate: take
        // it off the rate (the turning arrives as the shift from here on).
        if shift != 0 && !shifting { removeRate(shift / dt) }
        shifting = shift != 0
        let usable = confidence >= Self.minimumConfidence && measurement.isFinite
        guard initialised else {
            if usable { restart(at: measurement, confidence: confidence) }
            return theta
        }
        framesSinceChallengerSupport += 1
        if Double(framesSinceChallengerSupport) * dt > Self.challengerLifetime { challengerWeight = 0 }
        // Predict.
        let q = response.accelerationDensity
        theta += omega * dt + (shift.isFinite ? shift : 0)
        let n00 = p00 + 2 * dt * p01 + dt * dt * p11 + q * dt * dt * dt / 3
        let n01 = p01 + dt * p11 + q * dt * dt / 2
        let n11 = p11 + q * dt
        p00 = n00; p01 = n01; p11 = n11
        if !usable {
            // Nothing heard: coast to a stop, and do not let the uncertainty grow without bound,
            // or the first weak frame after a pause would be believed too much.
            omega *= 0.9
            p00 = min(p00, Self.coastingPositionVariance)
            p11 = min(p11, Self.coastingRateVariance)
            p01 = max(-(p00 * p11).squareRoot(), min((p00 * p11).squareRoot(), p01))
            clampState()
            return theta
        }
        // Update.
        let r = pow(Self.measurementSigma / max(confidence, 0.05), 2)
        let innovation = measurement - theta
        let s = p00 + r
        // A bearing averaged over time outside its gate, or a measurement more than 3 standard
        // deviations from the prediction (the validation gate), is not believed (a reflection, a
        // second source, a wrong peak; the averaged bearing leaves the rate to decay)...
        let outsideGate = gate.map { abs(innovation) > $0 } ?? false
        if outsideGate || abs(innovation) > 3 * s.squareRoot() {
            if outsideGate { omega *= 0.9 }
            // ...but one far from the track supports a challenger.
            let support = outsideGate ? confidence * Self.gatedChallengerShare : confidence
            if abs(innovation) > Self.challengerSeparation,
                supportRestarts(challengerAt: measurement, confidence: support)
            {
                restart(at: challenger, confidence: confidence)
                return theta
            }
            clampState()
            return theta
        }
        challengerWeight = max(0, challengerWeight - confidence)
        // A bearing averaged over time says where the source is, not how fast it moves.
        let k0 = p00 / s, k1 = gate == nil ? p01 / s : 0
        theta += k0 * innovation
        omega += k1 * innovation
        let m00 = (1 - k0) * p00, m01 = (1 - k0) * p01, m11 = p11 - k1 * p01
        p00 = m00; p01 = m01; p11 = m11
        clampState()
        return theta
    }

    private mutating func restart(at measurement: Double, confidence: Double) {
        theta = max(-90, min(90, measurement))
        omega = 0
        p00 = pow(Self.measurementSigma / max(confidence, 0.05), 2)
        p01 = 0
        p11 = 400  // (20°/s)²: unknown rate
        initialised = true
        challengerWeight = 0
    }

    /// Adds a rejected measurement's support to the challenger; true when the challenger has
    /// gathered enough to replace the track.
    private mutating func supportRestarts(challengerAt measurement: Double, confidence: Double) -> Bool {
        if challengerWeight > 0 && abs(measurement - challenger) <= Self.challengerSeparation {
            challenger += (measurement - challenger) * confidence / (challengerWeight + confidence)
            challengerWeight += confidence
        } else {
            challenger = measurement
            challengerWeight = confidence
        }
        framesSinceChallengerSupport = 0
        return challengerWeight >= Self.challengerWeightToRestart
    }

    private mutating func clampState() {
        if theta > 90 { theta = 90; omega = min(omega, 0) }
        if theta < -90 { theta = -90; omega = max(omega, 0) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
