#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The binaural model's interaural delay against the lateral angle `θ`, at the two ends of the
/// frequency range: `path(θ) = a·θ + b·sin θ` in units of `r/c` (head radius over the speed of
/// sound), so that the delay (right minus left) is `τ = −(r/c)·path(θ)`.
///
/// The law at a measurement's low-frequency share `L` (see
/// ``ArrayModel/lowFrequencyShare(frequencyHz:)``) is the blend
/// `(1 − L)·(a_high·θ + b_high·sin θ) + L·(a_low·θ + b_low·sin θ)`. It rises monotonically on
/// [−π/2, π/2] when `a ≥ 0` and `a + b > 0` at both ends (its slope `a + b·cos θ` is then
/// positive), so it inverts exactly (``ArrayModel/lateral(delay:lowFrequencyShare:)``, by bisection).
///
/// - ``sphere``: a rigid sphere with the ears at ±90°: Woodworth's `θ + sin θ` at high
///   frequencies, Kuhn's `3·sin θ` at low ones.
/// - ``measuredHeads`` (the default): fitted to the engine's own delay measurements on four
///   measured heads (MIT KEMAR, Neumann KU100 and two SONICOM listeners), checked leaving each
///   head out in turn (Docs/Accuracy.md, "Real heads: the fitted delay law";
///   `Benchmarks/accuracy/headlaw.py`). Real heads' delays grow nearly linearly with the
///   azimuth (their ears sit behind the centre), where a sphere's flatten towards the side.
public struct HeadDelayLaw: Sendable, Equatable {
    /// High-frequency slope coefficient `a_high` (of `θ`, radians), units of `r/c`.
    public var highLinear: Double
    /// High-frequency coefficient `b_high` of `sin θ`, units of `r/c`.
    public var highSine: Double
    /// Low-frequency slope coefficient `a_low` (of `θ`), units of `r/c`.
    public var lowLinear: Double
    /// Low-frequency coefficient `b_low` of `sin θ`, units of `r/c`.
    public var lowSine: Double

    /// - Precondition: the law rises monotonically at both ends: `a ≥ 0` and `a + b > 0`.
    public init(highLinear: Double, highSine: Double, lowLinear: Double, lowSine: Double) {
        precondition(
            [highLinear, highSine, lowLinear, lowSine].allSatisfy(\.isFinite) && highLinear >= 0 && lowLinear >= 0
                && highLinear + highSine > 0 && lowLinear + lowSine > 0,
            "a head delay law must rise monotonically (a ≥ 0, a + b > 0 at both ends)")
        self.highLinear = highLinear
        self.highSine = highSine
        self.lowLinear = lowLinear
        self.lowSine = lowSine
    }

    /// A rigid sphere: Woodworth's `θ + sin θ` (high), Kuhn's `3·sin θ` (low).
    public static let sphere = HeadDelayLaw(highLinear: 1, highSine: 1, lowLinear: 0, lowSine: 3)

    /// The law fitted to four measured heads (see the type's notes), for the default radius
    /// (8.75 cm) at 343 m/s. Fitted by `Benchmarks/accuracy/headlaw.py`; its figures are in
    /// Docs/Accuracy.md.
    public static let measuredHeads = HeadDelayLaw(
        highLinear: HeadDelayLawFit.highLinear, highSine: HeadDelayLawFit.highSine,
        lowLinear: HeadDelayLawFit.lowLinear, lowSine: HeadDelayLawFit.lowSine)

    /// `path(θ)` at low-frequency share `share` (0…1), units of `r/c`.
    @inline(__always)
    public func path(theta: Double, share: Double) -> Double {
        let s = sin(theta)
        return (1 - share) * (highLinear * theta + highSine * s) + share * (lowLinear * theta + lowSine * s)
    }
}
