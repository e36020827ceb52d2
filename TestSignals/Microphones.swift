#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Microphone arrangements, described from their physics (positions, head geometry, capsule
/// patterns) and independent of the engine's own model.
///
/// Azimuth θ is in degrees: 0 ahead, negative left, positive right, ±180 behind. A far source
/// sends a plane wave from the unit direction `u = (sin θ, cos θ)` (x to the right, y ahead).
public enum Microphones: Sendable, Equatable {
    /// Two omnidirectional microphones in free field, left at x = −d/2, right at x = +d/2 (metres).
    case spaced(spacing: Double)
    /// Ears of a rigid sphere of radius `headRadius` (m): Woodworth's ITD
    /// `(r/c)·(φ + sin φ)` with φ the lateral angle, plus an optional broadband level difference
    /// of `ildAt90` dB · sin θ (right minus left).
    case binaural(headRadius: Double, ildAt90: Double)
    /// Two coincident cardioids aimed at ±`halfAngle` degrees (an XY pair): no delay, gains
    /// `½(1 + cos(θ ∓ halfAngle))`.
    case coincident(halfAngle: Double)

    /// Arrival times at the left and right microphones, seconds relative to the array centre.
    public func arrivalTimes(azimuth: Double, speedOfSound c: Double = 343) -> (left: Double, right: Double) {
        let theta = azimuth * Double.pi / 180
        switch self {
        case .spaced(let d):
            // t = −(p·u)/c with p = (∓d/2, 0).
            let ux = sin(theta)
            return (left: (d / 2) * ux / c, right: -(d / 2) * ux / c)
        case .binaural(let r, _):
            let lateral = asin(max(-1, min(1, sin(theta))))
            let itd = r / c * (lateral + sin(lateral))  // > 0: right ear first
            return (left: itd / 2, right: -itd / 2)
        case .coincident:
            return (0, 0)
        }
    }

    /// Linear gains of the left and right channels for a source at `azimuth` degrees.
    public func gains(azimuth: Double) -> (left: Double, right: Double) {
        let theta = azimuth * Double.pi / 180
        switch self {
        case .spaced:
            return (1, 1)
        case .binaural(_, let ild):
            let difference = ild * sin(theta)
            return (pow(10, -difference / 40), pow(10, difference / 40))
        case .coincident(let half):
            let h = half * Double.pi / 180
            return (0.5 * (1 + cos(theta + h)), 0.5 * (1 + cos(theta - h)))
        }
    }
}
