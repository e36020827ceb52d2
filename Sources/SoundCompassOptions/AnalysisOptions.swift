import ArgumentParser
import Foundation
import SoundCompass

extension ArrayModel.Kind: ExpressibleByArgument {}
extension TrackerResponse: ExpressibleByArgument {}

/// A length given in samples ("2048") or milliseconds ("43ms").
package struct FrameLength: ExpressibleByArgument, CustomStringConvertible {
    package enum Unit { case samples, milliseconds }
    package var value: Double
    package var unit: Unit

    package init?(argument: String) {
        guard let length = try? Self.parse(argument) else { return nil }
        self = length
    }

    private init(value: Double, unit: Unit) { (self.value, self.unit) = (value, unit) }

    /// Parses a length, saying what is wrong with it.
    package static func parse(_ argument: String) throws -> FrameLength {
        let text = argument.lowercased()
        if text.hasSuffix("ms") {
            guard let v = Double(text.dropLast(2)), v > 0, v.isFinite else {
                throw ArgumentProblem("milliseconds must be a positive number, e.g. 43ms")
            }
            return FrameLength(value: v, unit: .milliseconds)
        }
        guard let v = Int(text), v > 0 else {
            throw ArgumentProblem("give a positive number of samples (2048) or milliseconds with 'ms' (43ms)")
        }
        guard v <= AnalysisConfiguration.maximumFrameLength else {
            throw ArgumentProblem("\(v) samples is more than the \(AnalysisConfiguration.maximumFrameLength) a frame may hold")
        }
        return FrameLength(value: Double(v), unit: .samples)
    }

    package var description: String { unit == .samples ? "\(Int(value))" : "\(value)ms" }

    /// The length for ``AnalysisSettings``.
    package var length: AnalysisSettings.Length { unit == .samples ? .samples(Int(value)) : .milliseconds(value) }
}

/// The options that shape an analysis, shared by every command that analyzes.
package struct AnalysisOptions: ParsableArguments {
    package init() {}

    @Option(help: "Array model: spaced (two mics in free field), binaural (ears of a head), coincident (level-encoded pair); default spaced.")
    package var array: ArrayModel.Kind?

    @Option(parsing: .unconditional, help: ArgumentHelp("Microphone spacing in metres (spaced; default 0.15).", valueName: "metres"))
    package var spacing: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Head radius in metres (binaural; default 0.0875).", valueName: "metres"))
    package var headRadius: Double?

    @Option(help: ArgumentHelp(
        "Calibration profile (JSON from 'soundcompass calibrate'): the array, its spacing, the channels' delay and gain offsets, the ILD gain or the capsules' pattern and angle; replaces --array, --spacing, --head-radius, --ild-gain, --pattern, --angle and --mid-side.",
        valueName: "file"))
    package var profile: String?

    @Option(help: ArgumentHelp(
        "A measured head (AES69 SOFA file): its own delay and level against azimuth replace the binaural model's; implies --array binaural.",
        valueName: "file.sofa"))
    package var hrtf: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Level-cue gain of the binaural model: the spherical head shadow's scale, 0.5 to 100, 10 = the sphere's own (about 14 dB at 4 kHz at 90°).", valueName: "gain"))
    package var ildGain: Double?

    @OptionGroup
    package var coincident: CoincidentOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Frame length in samples, or milliseconds with 'ms' (default: about 43 ms, a power of two).", valueName: "n|Nms"), transform: FrameLength.parse)
    package var frame: FrameLength?

    @Option(parsing: .unconditional, help: ArgumentHelp("Hop between frames in samples, or milliseconds with 'ms' (default: half a frame).", valueName: "n|Nms"), transform: FrameLength.parse)
    package var hop: FrameLength?

    @Option(parsing: .unconditional, help: ArgumentHelp("Two channels of a multichannel input to use as left and right, 1-based (default 1,2).", valueName: "L,R"))
    package var channels: String?

    @Flag(help: "Exchange left and right.")
    package var swap = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames quieter than this carry no confidence (dBFS).", valueName: "dBFS"))
    package var gate: Double = -70

    @Option(help: ArgumentHelp(
        "Frequency bands for per-band bearings, NAME:LOW-HIGH in Hz, comma-separated, or 'none' (default: low 100–500, speech 500–3000, alert 3000–8000 and high 8000–16000 Hz; bands above 0.45·fs are dropped).",
        valueName: "bands"))
    package var bands: String?

    @Option(help: "How quickly the tracked azimuth follows: calm, balanced or snappy.")
    package var response: TrackerResponse = .balanced

    @Option(parsing: .unconditional, help: ArgumentHelp("Most simultaneous sources tracked (the records' sources), 0 (off) to 8.", valueName: "n"))
    package var maxSources: Int = 3

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Time over which the source tracker gathers each direction's evidence: shorter catches a quieter talker between a louder one's words, longer gives steadier bearings and fewer reflection ghosts in echoing rooms (seconds, 0.05 to 5).",
        valueName: "seconds"))
    package var sourceWindow: Double = 0.3

    @Flag(inversion: .prefixedNo, help: "List a talker beside a steady noise (a fan, a television): while one is heard, the source tracker reads the other sources from the bins that stand above their stationary floor (on by default).")
    package var steadySources = true

    @Flag(inversion: .prefixedNo, help: "Experimental: correct a spaced pair's broadband bearing for the room's pull towards ahead, measured at sound onsets, where the direct sound arrives before its reflections; helps small pairs in rooms (off by default; see Docs/Accuracy.md, A small pair).")
    package var roomPullCorrection = false

    package func validate() throws {
        if let spacing, !ArrayModel.spacingRange.contains(spacing) {
            throw ValidationError("--spacing must be \(ArrayModel.spacingRange.lowerBound)…\(ArrayModel.spacingRange.upperBound) metres, got \(spacing)")
        }
        if let headRadius, !ArrayModel.headRadiusRange.contains(headRadius) {
            throw ValidationError("--head-radius must be \(ArrayModel.headRadiusRange.lowerBound)…\(ArrayModel.headRadiusRange.upperBound) metres, got \(headRadius)")
        }
        if hrtf != nil, let array, array != .binaural {
            throw ValidationError("--hrtf is a measured head: it needs --array binaural, not \(array.rawValue)")
        }
        if profile != nil {
            let given = [
                array.map { _ in "--array" }, spacing.map { _ in "--spacing" }, headRadius.map { _ in "--head-radius" },
                ildGain.map { _ in "--ild-gain" },
            ].compactMap { $0 }
            if let first = given.first {
                throw ValidationError("\(first) conflicts with --profile, which sets the array model")
            }
        }
        if let ildGain, !ArrayModel.ildGainRange.contains(ildGain) {
            let range = ArrayModel.ildGainRange
            throw ValidationError("--ild-gain must be \(range.lowerBound)…\(range.upperBound) dB at 90° (10 = the sphere's own), got \(ildGain)")
        }
        try validateCoincident()
        guard (0...AnalysisConfiguration.maximumSources).contains(maxSources) else {
            throw ValidationError("--max-sources must be 0 (off) to \(AnalysisConfiguration.maximumSources), got \(maxSources)")
        }
        let window = AnalysisConfiguration.sourceWindowRange
        guard window.contains(sourceWindow) else {
            throw ValidationError("--source-window must be \(window.lowerBound) to \(window.upperBound) seconds, got \(sourceWindow)")
        }
        guard gate.isFinite, gate <= 0 else { throw ValidationError("--gate must be a level in dBFS (≤ 0), got \(gate)") }
        if let bands {
            do { _ = try BandSpec.parse(bands) } catch { throw ValidationError("--bands: \(error.description)") }
        }
    }

    /// The channel pair, parsed from `--channels`, for the input named `inputName`.
    package func channelPair(for inputName: String) throws(OptionFailure) -> (left: Int, right: Int)? {
        guard let channels else { return nil }
        let parts = channels.split(separator: ",", omittingEmptySubsequences: false).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2, let left = parts[0], let right = parts[1], left >= 1, right >= 1 else {
            let count = parts.count
            let problem = count < 2
                ? "--channels needs two channels as L,R (got \"\(channels)\", \(count) channel\(count == 1 ? "" : "s"))"
                : "--channels needs two 1-based channel numbers as L,R (got \"\(channels)\")"
            throw OptionFailure("\(inputName): \(problem)")
        }
        let limit = CaptureLimits.maximumChannelCount
        guard left <= limit, right <= limit else {
            throw OptionFailure("\(inputName): --channels \(max(left, right)) is more than the \(limit) channels supported")
        }
        return (left, right)
    }

    /// The analysis settings (the profile is read when the session opens).
    package var settings: AnalysisSettings {
        // `validate()` has already rejected a --bands list that does not parse.
        let bandList = bands.flatMap { try? BandSpec.parse($0) }
        var settings = AnalysisSettings(
            array: ArrayModel(
                kind: array ?? (hrtf != nil ? .binaural : .spaced), spacingMeters: spacing ?? ArrayModel.defaultSpacing,
                headRadiusMeters: headRadius ?? ArrayModel.defaultHeadRadius, ildGain: ildGain,
                coincidentPair: coincident.pair, channelsAreMidSide: coincident.midSide),
            profilePath: profile, frameLength: frame?.length, hopLength: hop?.length, silenceGateDBFS: gate,
            bands: bandList ?? BandSpec.defaults, response: response)
        settings.maxSources = maxSources
        settings.sourceWindowSeconds = sourceWindow
        settings.hrtfPath = hrtf
        settings.hearsBesideSteadySources = steadySources
        settings.correctsRoomPull = roomPullCorrection
        return settings
    }

}
