#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tells a source in front from one behind by how its lateral position moves as the listener
/// turns, and puts the bearing on the full circle.
///
/// **Physics.** A far source fixed in the world at bearing θ, heard by a pair whose yaw is ψ
/// (degrees, growing clockwise), sits at θ − ψ relative to the pair, so the lateral position the
/// pair measures is `s = sin(θ − ψ)`. Its slope against ψ is `−cos(θ − ψ)`: negative for a
/// source in front, positive for one behind. A source in front and its mirror image behind give
/// the same `s` at one heading, but only one of them stays put in the world as the head turns.
///
/// **Fit.** Writing `s = u·cos ψ − v·sin ψ` with `(u, v) = k·(sin θ, cos θ)` makes the model
/// linear. Over a sliding window of the last ``Settings/window`` seconds of confident, active
/// frames with a known yaw, the resolver fits `(u, v)` by least squares weighted by each
/// frame's confidence. `k` absorbs a lateral scale below 1 (reverberation pulls bearings towards
/// the centre) without touching the sign. The slope at the window's mean heading ψ̄ is
/// `−c` with `c = u·sin ψ̄ + v·cos ψ̄ = k·cos(θ − ψ̄)`.
///
/// **Commit.** The resolver commits to the world bearing `θ̂ = atan2(u, v)` once the window spans
/// at least ``Settings/minimumRotation`` of yaw, holds ``Settings/minimumFrames`` frames, fits
/// well (RMS residual at most ``Settings/maximumResidual``) and `c` is clearly non-zero: at least
/// ``Settings/minimumSlope`` and ``Settings/significance`` standard errors from 0. Every such fit
/// renews the decision.
///
/// **Per frame.** Once committed, the frame's hemisphere is the side of the pair the committed
/// bearing is on, seen from the current heading: front when `|θ̂ − ψ| ≤ 90°`. A source that the
/// turning head carries across the pair's axis so changes hemisphere at the right moment, as
/// judged by the whole window rather than by one frame near ±90°, where the two readings meet.
/// The tracked azimuth `a` (in [−90, 90]) is then read as `a` in front or `±180 − a` behind.
///
/// **Latch and release.** When the turning stops the decision stays for ``Settings/latch``
/// seconds after the last fit that renewed it. It is dropped at once, and the window emptied,
/// when the source clearly changes: confident frames whose lateral position is more than
/// ``Settings/changeThreshold`` from what the committed bearing predicts, with their summed
/// confidence reaching ``Settings/changeWeight`` (agreeing frames take theirs off again).
///
/// Life cycle: `init` allocates the window; ``update(time:yaw:measurement:confidence:tracked:)``
/// never allocates.
package struct FrontBackResolver {
    /// Tuning of the resolver; the defaults suit speech and noise from a talker at conversational
    /// distance and a listener turning their head.
    package struct Settings: Sendable, Equatable {
        /// Length of the sliding window of (yaw, lateral) pairs, seconds.
        package var window: Double = 2.5
        /// Yaw range the window must span before a decision, degrees.
        package var minimumRotation: Double = 15
        /// Frames the window must hold before a decision.
        package var minimumFrames: Int = 8
        /// Frames less confident than this do not enter the window (stricter than a confident
        /// frame: see ``ConfidenceMapping/confidentToGuide``).
        package var minimumConfidence: Double = ConfidenceMapping.confidentToGuide
        /// Smallest |slope| of lateral against yaw (per radian) that counts as non-zero.
        package var minimumSlope: Double = 0.1
        /// Standard errors the slope must lie from 0.
        package var significance: Double = 4
        /// Largest RMS difference between the fitted and the measured lateral positions.
        package var maximumResidual: Double = 0.2
        /// Seconds a decision is kept after the last fit that renewed it.
        package var latch: Double = 10
        /// Lateral distance from the prediction that counts against the committed source.
        package var changeThreshold: Double = 0.35
        /// Summed confidence of disagreeing frames that drops the decision.
        package var changeWeight: Double = 1.5

        package init() {}
    }

    /// The resolver's answer for one frame.
    package struct Resolution: Sendable, Equatable {
        /// Front/back state at this frame.
        package var hemisphere: Hemisphere
        /// Azimuth, degrees: the tracked azimuth while unknown, on (−180, 180] once resolved.
        package var azimuth: Double
    }

    /// The tuning.
    package let settings: Settings
    private let capacity: Int
    // The window, a ring of (cos ψ, sin ψ, ψ in degrees, lateral, weight, time).
    private var cosYaw: [Double], sinYaw: [Double], yawDegrees: [Double], lateral: [Double], weight: [Double],
        times: [Double]
    private var head = 0, count = 0
    private var bearing: Double?
    private var confirmedAt = -Double.infinity
    private var scale = 1.0
    private var disagreement = 0.0
    private var lastYaw: Double?

    /// - Parameters:
    ///   - hopDuration: seconds between frames (sizes the window).
    ///   - settings: tuning.
    package init(hopDuration: Double, settings: Settings = Settings()) {
        precondition(hopDuration > 0, "hop duration must be positive")
        self.settings = settings
        capacity = max(settings.minimumFrames, Int((settings.window / hopDuration).rounded(.up)) + 1)
        cosYaw = Array(repeating: 0, count: capacity)
        sinYaw = cosYaw; yawDegrees = cosYaw; lateral = cosYaw; weight = cosYaw; times = cosYaw
    }

    /// The hemisphere the committed bearing is in when seen from `yaw` (degrees); `.unknown`
    /// while nothing is committed.
    package func expectedHemisphere(yaw: Double) -> Hemisphere {
        guard let bearing else { return .unknown }
        return abs(YawTimeline.wrap(bearing - yaw)) <= 90 ? .front : .back
    }

    /// Forgets everything.
    package mutating func reset() {
        head = 0; count = 0
        bearing = nil
        confirmedAt = -.infinity
        disagreement = 0
        lastYaw = nil
    }

    /// Advances one frame.
    /// - Parameters:
    ///   - time: the frame's time, seconds.
    ///   - yaw: unwrapped yaw at the frame, degrees (`nil` when the IMU says nothing here).
    ///   - measurement: the frame's own azimuth, degrees in [−90, 90].
    ///   - confidence: its confidence, 0…1 (0 for an inactive frame).
    ///   - tracked: the tracked azimuth, degrees in [−90, 90].
    /// - Returns: the frame's hemisphere and azimuth.
    package mutating func update(
        time: Double, yaw: Double?, measurement: Double, confidence: Double, tracked: Double
    ) -> Resolution {
        if let yaw { lastYaw = yaw }
        if bearing != nil && time - confirmedAt > settings.latch { bearing = nil }
        if let yaw, confidence >= settings.minimumConfidence, measurement.isFinite {
            let s = sin(measurement * Double.pi / 180)
            if let bearing { checkForChange(lateral: s, yaw: yaw, bearing: bearing, confidence: confidence) }
            insert(time: time, yaw: yaw, lateral: s, weight: confidence)
            fit(time: time)
        }
        guard let heading = lastYaw else { return Resolution(hemisphere: .unknown, azimuth: tracked) }
        switch expectedHemisphere(yaw: heading) {
        case .unknown: return Resolution(hemisphere: .unknown, azimuth: tracked)
        case .front: return Resolution(hemisphere: .front, azimuth: tracked)
        case .back: return Resolution(hemisphere: .back, azimuth: Hemisphere.behind(tracked))
        }
    }

    private mutating func insert(time: Double, yaw: Double, lateral s: Double, weight w: Double) {
        let slot = (head + count) % capacity
        let radians = yaw * Double.pi / 180
        cosYaw[slot] = cos(radians); sinYaw[slot] = sin(radians); yawDegrees[slot] = yaw
        lateral[slot] = s; weight[slot] = w; times[slot] = time
        if count < capacity { count += 1 } else { head = (head + 1) % capacity }
        // Drop what has slid out of the window.
        while count > 0 && times[head] < time - settings.window {
            head = (head + 1) % capacity
            count -= 1
        }
    }

    /// Fits `s = u·cos ψ − v·sin ψ` over the window and commits when the fit is clear.
    private mutating func fit(time: Double) {
        guard count >= settings.minimumFrames else { return }
        var a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0, sw = 0.0, swy = 0.0
        var low = Double.infinity, high = -Double.infinity
        for k in 0..<count {
            let i = (head + k) % capacity
            let w = weight[i], c = cosYaw[i], s = -sinYaw[i], y = lateral[i]
            a11 += w * c * c; a12 += w * c * s; a22 += w * s * s
            b1 += w * c * y; b2 += w * s * y
            sw += w; swy += w * yawDegrees[i]
            low = min(low, yawDegrees[i]); high = max(high, yawDegrees[i])
        }
        guard high - low >= settings.minimumRotation else { return }
        let det = a11 * a22 - a12 * a12
        guard det > 1e-12 * max(a11 * a22, 1e-300) else { return }
        let u = (a22 * b1 - a12 * b2) / det
        let v = (a11 * b2 - a12 * b1) / det
        var sse = 0.0
        for k in 0..<count {
            let i = (head + k) % capacity
            let r = lateral[i] - (u * cosYaw[i] - v * sinYaw[i])
            sse += weight[i] * r * r
        }
        let rms = (sse / sw).squareRoot()
        guard rms <= settings.maximumResidual else { return }
        // Slope at the mean heading and its standard error; the residual is floored so that a
        // noiseless synthetic window does not claim infinite certainty.
        let mean = swy / sw * Double.pi / 180
        let gu = sin(mean), gv = cos(mean)
        let unitVariance = max(sse / max(Double(count - 2), 1), 1e-4)
        let variance = unitVariance * (gu * gu * a22 - 2 * gu * gv * a12 + gv * gv * a11) / det
        let slope = u * gu + v * gv
        guard abs(slope) >= settings.minimumSlope, abs(slope) >= settings.significance * variance.squareRoot() else {
            return
        }
        bearing = atan2(u, v) * 180 / Double.pi
        scale = max(0.2, min(1.5, (u * u + v * v).squareRoot()))
        confirmedAt = time
        disagreement = 0
    }

    /// Drops the decision when confident frames keep disagreeing with the committed source.
    private mutating func checkForChange(lateral s: Double, yaw: Double, bearing: Double, confidence: Double) {
        let predicted = scale * sin((bearing - yaw) * Double.pi / 180)
        if abs(s - predicted) > settings.changeThreshold {
            disagreement += confidence
            if disagreement >= settings.changeWeight {
                self.bearing = nil
                disagreement = 0
                count = 0
            }
        } else {
            disagreement = max(0, disagreement - confidence)
        }
    }
}
