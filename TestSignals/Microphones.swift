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
    /// Two coincident first-order capsules (an XY or Blumlein pair): no delay, gains
    /// `a + (1 − a)·cos(θ ± α/2)` for the left (aimed at −α/2) and the right (aimed at +α/2)
    /// capsule, with `pattern` the coefficient `a` (0…1: 1 omni, 0.5 cardioid, 0.25
    /// hypercardioid, 0 figure-8) and `includedAngle` α in degrees (0…180).
    case coincident(pattern: Double, includedAngle: Double)
    /// A Mid-Side pair recorded raw: the left channel is M, a capsule facing ahead with the
    /// pattern coefficient `midPattern` (0…1), the right channel is S, a figure-8 across with
    /// its positive lobe to the left and `sideGain` times M's on-axis gain (> 0). Decoding
    /// `L = M + S`, `R = M − S` gives a coincident pair.
    case midSide(midPattern: Double, sideGain: Double)

    /// Two coincident cardioids aimed at ±`halfAngle` degrees (an XY pair; 45 for the usual 90°).
    public static func coincident(halfAngle: Double) -> Microphones {
        .coincident(pattern: 0.5, includedAngle: 2 * halfAngle)
    }

    /// What is wrong with the parameters, or nil when they describe real microphones
    /// (spacing and head radius positive, patterns in 0…1, included angle in 0…180°, side
    /// gain positive, all finite).
    public var problem: String? {
        switch self {
        case .spaced(let d):
            return d.isFinite && d > 0 ? nil : "the spacing must be positive, got \(d) m"
        case .binaural(let r, let ild):
            if !(r.isFinite && r > 0) { return "the head radius must be positive, got \(r) m" }
            return ild.isFinite ? nil : "the level difference must be finite"
        case .coincident(let a, let angle):
            if !(a >= 0 && a <= 1) { return "the pattern coefficient must be within 0…1, got \(a)" }
            return angle >= 0 && angle <= 180 ? nil : "the included angle must be within 0…180°, got \(angle)°"
        case .midSide(let a, let w):
            if !(a >= 0 && a <= 1) { return "the mid pattern coefficient must be within 0…1, got \(a)" }
            return w.isFinite && w > 0 ? nil : "the side gain must be positive, got \(w)"
        }
    }

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
        case .coincident, .midSide:
            return (0, 0)
        }
    }

    /// Linear gains of the left and right channels for a source at `azimuth` degrees.
    /// Invalid parameters (see ``problem``) are a programmer error and trap.
    public func gains(azimuth: Double) -> (left: Double, right: Double) {
        if let problem { preconditionFailure("Microphones: \(problem)") }
        let theta = azimuth * Double.pi / 180
        switch self {
        case .spaced:
            return (1, 1)
        case .binaural(_, let ild):
            let difference = ild * sin(theta)
            return (pow(10, -difference / 40), pow(10, difference / 40))
        case .coincident(let a, let angle):
            let h = angle / 2 * Double.pi / 180
            return (a + (1 - a) * cos(theta + h), a + (1 - a) * cos(theta - h))
        case .midSide(let a, let w):
            return (a + (1 - a) * cos(theta), -w * sin(theta))
        }
    }
}
