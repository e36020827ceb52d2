import ArgumentParser
import Foundation
import SoundCompass

/// `--pattern`: a first-order capsule pattern, by name or as its coefficient `a` of
/// `a + (1 − a)·cos φ`.
package struct CapsulePattern: ExpressibleByArgument, CustomStringConvertible {
    package var coefficient: Double
    package var description: String

    package init?(argument: String) {
        guard let pattern = try? Self.parse(argument) else { return nil }
        self = pattern
    }

    private init(coefficient: Double, description: String) {
        self.coefficient = coefficient
        self.description = description
    }

    /// Parses a pattern, saying what is wrong with it.
    package static func parse(_ argument: String) throws -> CapsulePattern {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let aliases = ["figure-8": "figure8", "fig8": "figure8", "bidirectional": "figure8", "omnidirectional": "omni"]
        if let named = CoincidentPair.Pattern(rawValue: aliases[text] ?? text) {
            return CapsulePattern(coefficient: named.coefficient, description: named.rawValue)
        }
        guard let value = Double(text), value >= 0, value <= 1 else {
            throw ArgumentProblem(
                "give omni, cardioid, supercardioid, hypercardioid, figure8 or a first-order coefficient from 0 (figure-8) to 1 (omni)")
        }
        return CapsulePattern(coefficient: value, description: text)
    }
}

/// The options that describe a coincident pair (`--pattern`, `--angle`, `--mid-side`,
/// `--side-gain`), declared once for the analyses (in ``AnalysisOptions``) and synth, and checked
/// and turned into a ``CoincidentPair`` the same way by both.
package struct CoincidentOptions: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp(
        "Coincident capsules' pattern: omni, cardioid, supercardioid, hypercardioid, figure8, or a first-order coefficient 0…1 (default cardioid; with --mid-side the mid capsule's).",
        valueName: "pattern"), transform: CapsulePattern.parse)
    package var pattern: CapsulePattern?

    @Option(parsing: .unconditional, help: ArgumentHelp("Coincident: included angle between the capsules, degrees (default 90).", valueName: "deg"))
    package var angle: Double?

    @Flag(help: "Coincident: raw Mid-Side channels, M then S (S's positive lobe to the left): synth writes them; the analyses decode L = M + S, R = M − S.")
    package var midSide = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Mid-Side: the side capsule's gain relative to the mid's (default 1).", valueName: "gain"))
    package var sideGain: Double?

    /// The options given, by name.
    package var given: [String] {
        [pattern.map { _ in "--pattern" }, angle.map { _ in "--angle" }, midSide ? "--mid-side" : nil,
         sideGain.map { _ in "--side-gain" }].compactMap { $0 }
    }

    /// Refuses values out of range and options that do not go together.
    /// - Parameter kind: the array model the options are for.
    package func validate(kind: ArrayModel.Kind) throws {
        if kind != .coincident, let first = given.first {
            throw ValidationError("\(first) applies to --array coincident (the \(kind.rawValue) model has no capsule patterns)")
        }
        if let angle, !(angle > 0 && angle <= 180) {
            throw ValidationError("--angle must be the included angle between the capsules in degrees, more than 0 and at most 180, got \(angle)")
        }
        if let sideGain, !(sideGain > 0 && sideGain <= 100) {
            throw ValidationError("--side-gain must be the side capsule's gain relative to the mid's, more than 0 and at most 100, got \(sideGain)")
        }
        if midSide && angle != nil {
            throw ValidationError("--angle conflicts with --mid-side: the decoded pair's angle follows from --side-gain and the mid --pattern")
        }
        if sideGain != nil && !midSide {
            throw ValidationError("--side-gain applies to --mid-side (a Mid-Side recording's S channel)")
        }
    }

    /// The pair: an XY pair of `--pattern` capsules at `--angle`, or with `--mid-side` the pair
    /// that M (`--pattern`) and S (`--side-gain`) decode to. Call after ``validate(kind:)``.
    package var pair: CoincidentPair {
        let a = pattern?.coefficient ?? CoincidentPair.xyCardioids.pattern
        if midSide { return .midSide(midPattern: a, sideGain: sideGain ?? 1) }
        return CoincidentPair(pattern: a, includedAngleDegrees: angle ?? CoincidentPair.xyCardioids.includedAngleDegrees)
    }
}

extension AnalysisOptions {
    /// Checks the coincident pair's options against the array model and `--profile`, and
    /// refuses `--ild-gain` for a coincident pair (whose level cue follows from its capsules).
    package func validateCoincident() throws {
        let choice = coincident
        if profile != nil, let first = choice.given.first {
            throw ValidationError("\(first) conflicts with --profile, which sets the array model")
        }
        if profile == nil { try choice.validate(kind: array ?? .spaced) }
        if array == .coincident && ildGain != nil {
            throw ValidationError("--ild-gain applies to --array binaural only: a coincident pair's level cue follows from its capsules (--pattern, --angle)")
        }
    }
}
