#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A coincident pair of first-order capsules (an XY pair, a Blumlein pair, a decoded
/// Mid-Side pair): the geometry behind the coincident model's level cue.
///
/// Each capsule has the gain `g(φ) = a + (1 − a)·cos φ` at the angle φ off its axis, with the
/// pattern coefficient `a` (1 omni, 0.5 cardioid, 0.37 supercardioid, 0.25 hypercardioid,
/// 0 figure-8). The left capsule is aimed at `−angle/2`, the right at `+angle/2` (degrees,
/// negative left), so a far source at azimuth θ gives
/// `gL = a + b·cos(θ + h)`, `gR = a + b·cos(θ − h)` with `b = 1 − a`, `h = angle/2`.
///
/// One source makes the channels `L = gL·s`, `R = gR·s`: their 2×2 covariance has its
/// principal axis along `(gL, gR)` at the angle `ψ = atan2(gR, gL)` from the left axis (taken
/// modulo 180°: a rear lobe's negative gain flips the sign of both, not the axis). Equal
/// uncorrelated noise in both channels adds the same power to both variances and leaves that
/// axis where it is, which a ratio of RMS values would not. ``azimuth(principalAngle:)``
/// inverts `ψ(θ)` exactly on [−90°, 90°] (closed form, no table): for `0 < angle ≤ 180°` the
/// map is monotonic there, `dψ/dθ = b·(2a·cos θ·sin h + b·sin 2h)/(gL² + gR²) ≥ 0`.
public struct CoincidentPair: Sendable, Equatable {
    /// The pattern coefficient `a`, 0…1 (0.5 cardioid).
    public var pattern: Double
    /// The included angle between the capsules' axes, degrees, in (0, 180] (90 for XY).
    public var includedAngleDegrees: Double

    /// Named first-order patterns.
    public enum Pattern: String, Sendable, CaseIterable {
        case omni, cardioid, supercardioid, hypercardioid, figure8

        /// The pattern coefficient `a` of `a + (1 − a)·cos φ`: 1, 0.5, 0.37, 0.25, 0.
        public var coefficient: Double {
            switch self {
            case .omni: 1
            case .cardioid: 0.5
            case .supercardioid: 0.37
            case .hypercardioid: 0.25
            case .figure8: 0
            }
        }
    }

    /// The default XY pair: cardioids at 90° (±45°).
    public static let xyCardioids = CoincidentPair()

    /// - Parameters:
    ///   - pattern: the pattern coefficient `a`, 0…1 (0.5 cardioid).
    ///   - includedAngleDegrees: the angle between the capsules' axes, degrees, in (0, 180].
    public init(pattern: Double = Pattern.cardioid.coefficient, includedAngleDegrees: Double = 90) {
        precondition(Self.isValid(pattern: pattern, includedAngleDegrees: includedAngleDegrees),
                     "a coincident pair needs a pattern in 0…1 and an included angle in (0, 180] degrees")
        self.pattern = pattern
        self.includedAngleDegrees = includedAngleDegrees
    }

    /// True when `pattern` is in 0…1 and `includedAngleDegrees` in (0, 180].
    public static func isValid(pattern: Double, includedAngleDegrees: Double) -> Bool {
        pattern >= 0 && pattern <= 1 && includedAngleDegrees > 0 && includedAngleDegrees <= 180
    }

    /// The pair a Mid-Side recording decodes to with `L = M + S`, `R = M − S`.
    ///
    /// Convention: the mid capsule faces ahead with the pattern coefficient `midPattern`; the
    /// side capsule is a figure-8 across the axis whose positive lobe faces left, with
    /// `sideGain` times the mid capsule's on-axis sensitivity (1: equal, the usual). Then
    /// `L = a_m + b_m·cos θ − w·sin θ = a_m + √(b_m² + w²)·cos(θ + φ)` with `tan φ = w/b_m`: a
    /// first-order capsule aimed at `−φ`, and `R` its mirror. Scaled to unit on-axis gain, the
    /// pair has `a = a_m/(a_m + √(b_m² + w²))` and the included angle `2φ`.
    /// - Parameters:
    ///   - midPattern: the mid capsule's pattern coefficient, 0…1.
    ///   - sideGain: the side capsule's gain relative to the mid's, > 0 (≤ 100).
    public static func midSide(midPattern: Double, sideGain: Double) -> CoincidentPair {
        precondition(midPattern >= 0 && midPattern <= 1 && sideGain > 0 && sideGain <= 100,
                     "a Mid-Side pair needs a mid pattern in 0…1 and a side gain in (0, 100]")
        let b = 1 - midPattern
        let radius = (b * b + sideGain * sideGain).squareRoot()
        let half = atan2(sideGain, b) * 180 / .pi
        return CoincidentPair(pattern: midPattern / (midPattern + radius), includedAngleDegrees: 2 * half)
    }

    private var halfAngle: Double { includedAngleDegrees * .pi / 360 }

    /// Linear gains of the left and right capsules for a far source at `azimuthDegrees`.
    public func gains(azimuthDegrees: Double) -> (left: Double, right: Double) {
        let theta = azimuthDegrees * .pi / 180, h = halfAngle, b = 1 - pattern
        return (pattern + b * cos(theta + h), pattern + b * cos(theta - h))
    }

    /// The principal angle `ψ = atan2(gR, gL)` of a source at `azimuthDegrees`, radians, folded
    /// into (−π/2, π/2] (the axis, not its sign).
    public func principalAngle(azimuthDegrees: Double) -> Double {
        let g = gains(azimuthDegrees: azimuthDegrees)
        var psi = atan2(g.right, g.left)
        if psi > .pi / 2 { psi -= .pi } else if psi <= -.pi / 2 { psi += .pi }
        return psi
    }

    /// The azimuth, degrees in [−90, 90], whose principal angle is `psi` (radians, taken
    /// modulo π). A `psi` the pair cannot produce (noise past the end of its range) gives the
    /// nearer end, ±90. An omnidirectional pair (`a = 1`) has no level information: 0.
    public func azimuth(principalAngle psi: Double) -> Double {
        // gL·sin ψ = gR·cos ψ  ⇔  A·cos θ + B·sin θ = C.
        let s = sin(psi), c = cos(psi), h = halfAngle, b = 1 - pattern
        let a1 = b * cos(h) * (s - c), b1 = -b * sin(h) * (s + c), c1 = -pattern * (s - c)
        let radius = (a1 * a1 + b1 * b1).squareRoot()
        guard radius > 1e-12 else { return 0 }
        let centre = atan2(b1, a1), spread = acos(max(-1, min(1, c1 / radius)))
        func wrapped(_ t: Double) -> Double {
            var t = t.truncatingRemainder(dividingBy: 2 * .pi)
            if t > .pi { t -= 2 * .pi } else if t <= -.pi { t += 2 * .pi }
            return t
        }
        let first = wrapped(centre + spread), second = wrapped(centre - spread)
        let beyond = { (t: Double) in max(0, abs(t) - .pi / 2) }
        let theta = beyond(second) < beyond(first) ? second : first
        return max(-90, min(90, theta * 180 / .pi))
    }

    /// The steepness `dψ/dθ` of the map at `azimuthDegrees` (radians per radian, ≥ 0 on
    /// [−90°, 90°]): how far the principal angle moves per unit of azimuth. An error `δψ`
    /// reads as `δψ/(dψ/dθ)` of azimuth, so a flat map (an omni pair: 0) is not believed.
    /// A Blumlein pair (figure-8s at 90°) has 1 everywhere; XY cardioids 0.33 at ±90°, 0.41 ahead.
    public func steepness(azimuthDegrees: Double) -> Double {
        let theta = azimuthDegrees * .pi / 180, h = halfAngle, b = 1 - pattern
        let g = gains(azimuthDegrees: azimuthDegrees)
        let power = g.left * g.left + g.right * g.right
        guard power > 1e-12 else { return 0 }
        return b * (2 * pattern * cos(theta) * sin(h) + b * sin(2 * h)) / power
    }

    /// The correlation coefficient of the two capsules in a diffuse (isotropic) field,
    /// `(a² + b²·cos α/3)/(a² + b²/3)` with α the included angle: the directness of a frame
    /// that holds no direct sound (0.75 for XY cardioids, 0 for a Blumlein pair, 1 for omnis).
    public var diffuseCorrelation: Double {
        let b = 1 - pattern, a = pattern
        let alpha = includedAngleDegrees * .pi / 180
        return (a * a + b * b * cos(alpha) / 3) / (a * a + b * b / 3)
    }

    /// The principal angle (radians, in (−π/2, π/2]) and the directness (0…1) of a pair of
    /// channels with the given second moments: `ψ = ½·atan2(2·P_LR, P_LL − P_RR)` and
    /// `(λ₁ − λ₂)/(λ₁ + λ₂)`, the share of the power that lies along one direction
    /// (1 for one source, 0 for equal uncorrelated noise).
    /// - Parameters:
    ///   - leftPower: mean of `L²`.
    ///   - rightPower: mean of `R²`.
    ///   - crossPower: mean of `L·R`.
    public static func principalAxis(
        leftPower: Double, rightPower: Double, crossPower: Double
    ) -> (angle: Double, directness: Double) {
        let difference = leftPower - rightPower, total = leftPower + rightPower
        let spread = (difference * difference + 4 * crossPower * crossPower).squareRoot()
        guard total > 0, spread > 0 else { return (.pi / 4, 0) }
        return (0.5 * atan2(2 * crossPower, difference), min(1, spread / total))
    }
}
