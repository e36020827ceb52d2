import SoundCompassEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A calibration profile: the measured geometry and channel offsets of one recording rig, as
/// `soundcompass calibrate` writes it and `analyze`/`live --profile` read it (JSON; see
/// Docs/Calibration.md for the fields).
public struct ArrayProfile: Sendable, Equatable {
    /// The array model.
    public var array: ArrayModel.Kind
    /// Microphone spacing, metres (spaced, coincident; for binaural the ear-to-ear distance, 2 × the head radius).
    public var spacingMeters: Double
    /// Head radius, metres (binaural; `nil` otherwise).
    public var headRadiusMeters: Double?
    /// Inter-channel delay of the hardware, right minus left, microseconds.
    public var delayOffsetMicroseconds: Double
    /// Inter-channel gain of the hardware, right minus left, dB.
    public var gainOffsetDecibels: Double
    /// Binaural level-cue gain, dB at 90°; `nil` for the other kinds (a coincident profile of an
    /// older version may carry a tanh gain: it is read and ignored).
    public var ildGain: Double?
    /// Binaural: the delay law's coefficients `[a_high, b_high, a_low, b_low]` (``HeadDelayLaw``,
    /// units of `r/c`) when not the default; `nil` for the default law and the other kinds.
    public var headLaw: HeadDelayLaw?
    /// A coincident pair's pattern coefficient, 0…1 (`nil` for the other kinds; 0.5, cardioid,
    /// when a coincident profile has none).
    public var pattern: Double?
    /// A coincident pair's included angle, degrees in (0, 180] (`nil` for the other kinds; 90
    /// when a coincident profile has none).
    public var includedAngleDegrees: Double?
    /// True when the recordings are raw Mid-Side (M, S) channels, decoded before the analysis
    /// (coincident; ``pattern`` and ``includedAngleDegrees`` are then the decoded pair's).
    public var midSide: Bool
    /// Sample rate of the recording the profile was fitted on, Hz.
    public var sampleRate: Double
    /// Speed of sound the spacing was fitted with, m/s.
    public var speedOfSoundMetersPerSecond: Double
    /// The parameters that were fitted (the others are the nominal values), e.g. `["spacing", "delay", "gain"]`.
    public var fitted: [String]
    /// The recording the profile was fitted on (informational).
    public var recording: String?
    /// Median azimuth error on that recording before and after, degrees (informational).
    public var medianErrorBeforeDegrees: Double?
    public var medianErrorAfterDegrees: Double?

    /// A profile holding `model` (its offsets and gains), fitted at `sampleRate` Hz.
    public init(
        model: ArrayModel, sampleRate: Double, fitted: [CalibrationParameter], recording: String? = nil,
        medianErrorBeforeDegrees: Double? = nil, medianErrorAfterDegrees: Double? = nil
    ) {
        array = model.kind
        spacingMeters = model.kind == .binaural ? 2 * model.headRadiusMeters : model.spacingMeters
        headRadiusMeters = model.kind == .binaural ? model.headRadiusMeters : nil
        delayOffsetMicroseconds = model.delayOffsetSeconds * 1e6
        gainOffsetDecibels = model.gainOffsetDecibels
        ildGain = model.kind == .binaural ? model.ildGain : nil
        headLaw = model.kind == .binaural && model.headLaw != .measuredHeads ? model.headLaw : nil
        pattern = model.kind == .coincident ? model.coincidentPair.pattern : nil
        includedAngleDegrees = model.kind == .coincident ? model.coincidentPair.includedAngleDegrees : nil
        midSide = model.kind == .coincident && model.channelsAreMidSide
        self.sampleRate = sampleRate
        speedOfSoundMetersPerSecond = model.speedOfSoundMetersPerSecond
        self.fitted = fitted.map(\.rawValue)
        self.recording = recording
        self.medianErrorBeforeDegrees = medianErrorBeforeDegrees
        self.medianErrorAfterDegrees = medianErrorAfterDegrees
    }

    /// The array model this profile describes.
    public var model: ArrayModel {
        ArrayModel(
            kind: array, spacingMeters: array == .binaural ? ArrayModel.defaultSpacing : spacingMeters,
            headRadiusMeters: headRadiusMeters ?? (array == .binaural ? spacingMeters / 2 : ArrayModel.defaultHeadRadius),
            ildGain: ildGain, speedOfSoundMetersPerSecond: speedOfSoundMetersPerSecond,
            delayOffsetSeconds: delayOffsetMicroseconds * 1e-6,
            gainOffsetDecibels: gainOffsetDecibels,
            coincidentPair: CoincidentPair(
                pattern: pattern ?? CoincidentPair.xyCardioids.pattern,
                includedAngleDegrees: includedAngleDegrees ?? CoincidentPair.xyCardioids.includedAngleDegrees),
            channelsAreMidSide: array == .coincident && midSide, headLaw: headLaw ?? .measuredHeads)
    }

    /// The `format` field of every profile.
    public static let formatName = "soundcompass-profile"
    /// The profile version this build writes and the newest it reads.
    public static let currentVersion = 1

    /// The largest profile file read, bytes (1 MiB; a profile is a few hundred bytes).
    public static let maximumFileBytes = 1 << 20

    /// Reads a profile file (a regular file of at most ``maximumFileBytes``).
    /// - Throws: ``ProfileError`` naming the file and the problem.
    public static func load(path: String) throws(ProfileError) -> ArrayProfile {
        let text: String
        do { text = try InputFile.readText(path, limit: maximumFileBytes) } catch {
            switch error {
            case .notFound: throw .notFound(path: path)
            case .unreadable(let reason): throw .unreadable(path: path, reason: reason)
            }
        }
        return try parse(text, path: path)
    }

    /// Parses profile JSON.
    /// - Throws: ``ProfileError`` naming `path`.
    public static func parse(_ text: String, path: String) throws(ProfileError) -> ArrayProfile {
        let file: ProfileFile
        do {
            file = try JSONDecoder().decode(ProfileFile.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            if case .dataCorrupted = error, let number = ProfileError.outOfRangeNumber(in: text) {
                throw .invalid(path: path, problem: "not valid JSON: the number \(number) is out of range")
            }
            throw .invalid(path: path, problem: ProfileError.describe(error))
        } catch {
            throw .invalid(path: path, problem: "not a profile (\(error))")
        }
        func check(_ ok: Bool, _ problem: String) throws(ProfileError) {
            if !ok { throw .invalid(path: path, problem: problem) }
        }
        if let format = file.format {
            try check(format == formatName, "format \"\(format)\" is not \"\(formatName)\"")
        }
        if let version = file.version {
            try check(version >= 1 && version == version.rounded(), "version \(version) is not a profile version (1)")
            // A whole number, but perhaps beyond Int (1e20): say it as given then.
            let given = version < 1e15 ? "\(Int(version))" : "\(version)"
            try check(version <= Double(currentVersion), "version \(given) is newer than this soundcompass reads (\(currentVersion)); update soundcompass")
        }
        guard let kind = ArrayModel.Kind(rawValue: file.array) else {
            throw .invalid(path: path, problem: "array \"\(file.array)\" is not one of spaced, binaural, coincident")
        }
        let spacings = ArrayModel.spacingRange, radii = ArrayModel.headRadiusRange
        try check(spacings.contains(file.spacing_m), "spacing_m \(file.spacing_m) is not a spacing in metres (\(spacings.lowerBound)…\(spacings.upperBound))")
        if let r = file.head_radius_m {
            try check(radii.contains(r), "head_radius_m \(r) is not a head radius in metres (\(radii.lowerBound)…\(radii.upperBound))")
        }
        try check(file.delay_offset_us.isFinite && abs(file.delay_offset_us) <= 10_000, "delay_offset_us \(file.delay_offset_us) is beyond ±10000 µs")
        let gains = ArrayModel.gainOffsetRange, ildGains = ArrayModel.ildGainRange
        try check(gains.contains(file.gain_offset_db), "gain_offset_db \(file.gain_offset_db) is beyond ±\(Int(gains.upperBound)) dB")
        if let g = file.ild_gain {
            try check(ildGains.contains(g), "ild_gain \(g) is not a level-cue gain in dB (\(ildGains.lowerBound)…\(ildGains.upperBound))")
        }
        if let a = file.pattern { try check(a.isFinite && a >= 0 && a <= 1, "pattern \(a) is not a first-order pattern coefficient (0…1)") }
        if let angle = file.included_angle_deg {
            try check(angle.isFinite && angle > 0 && angle <= 180, "included_angle_deg \(angle) is not an angle in degrees (0…180)")
        }
        try check(
            file.sample_rate >= AnalysisConfiguration.minimumSampleRate && file.sample_rate <= AnalysisConfiguration.maximumSampleRate,
            "sample_rate \(file.sample_rate) is not a rate in Hz (\(Int(AnalysisConfiguration.minimumSampleRate))…\(Int(AnalysisConfiguration.maximumSampleRate)))")
        let c = file.speed_of_sound_m_s ?? ArrayModel.defaultSpeedOfSound
        try check(c.isFinite && c >= 100 && c <= 2000, "speed_of_sound_m_s \(c) is not a speed of sound")
        var profile = ArrayProfile(model: ArrayModel(kind: kind), sampleRate: file.sample_rate, fitted: [])
        profile.spacingMeters = file.spacing_m
        profile.headRadiusMeters = kind == .binaural ? (file.head_radius_m ?? file.spacing_m / 2) : nil
        try check(
            kind != .binaural || radii.contains(profile.headRadiusMeters!),
            "spacing_m \(file.spacing_m) does not fit a head (radius \(radii.lowerBound)…\(radii.upperBound) m)")
        profile.delayOffsetMicroseconds = file.delay_offset_us
        profile.gainOffsetDecibels = file.gain_offset_db
        profile.ildGain = kind == .binaural ? file.ild_gain : nil
        if kind == .binaural, let law = file.head_law {
            try check(
                law.count == 4 && law.allSatisfy { $0.isFinite && abs($0) <= 100 } && law[0] >= 0 && law[2] >= 0
                    && law[0] + law[1] > 0 && law[2] + law[3] > 0,
                "head_law must be four numbers [a_high, b_high, a_low, b_low] with a ≥ 0 and a + b > 0 (a law that rises)")
            profile.headLaw = HeadDelayLaw(highLinear: law[0], highSine: law[1], lowLinear: law[2], lowSine: law[3])
        }
        if kind == .coincident {
            profile.pattern = file.pattern ?? CoincidentPair.xyCardioids.pattern
            profile.includedAngleDegrees = file.included_angle_deg ?? CoincidentPair.xyCardioids.includedAngleDegrees
            profile.midSide = file.mid_side ?? false
        }
        profile.speedOfSoundMetersPerSecond = c
        profile.fitted = file.fitted ?? []
        profile.recording = file.recording
        profile.medianErrorBeforeDegrees = file.median_error_before_deg
        profile.medianErrorAfterDegrees = file.median_error_after_deg
        return profile
    }

    /// The profile as JSON text, fields in a fixed order, ending in a newline.
    public var json: String {
        let number = formatFixed
        /// A value that must stay above 0: with more decimals where `digits` would round it to 0
        /// (an included angle of 0.02° is valid, "0.0" is not).
        func positive(_ x: Double, _ digits: Int) -> String {
            var d = digits
            while d < NumberFormatting.maximumDecimals, x > 0, let written = Double(number(x, d)), written <= 0 { d += 1 }
            let fixed = number(x, d)
            // Smaller than the most decimals can show (1e-300): the shortest exact form, "1e-300".
            if x > 0, let written = Double(fixed), written <= 0 { return "\(x)" }
            return fixed
        }
        func string(_ s: String) -> String {
            var bytes: [UInt8] = []
            NumberFormatting.appendJSONString(s, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        var lines = [
            "\"format\": \"\(Self.formatName)\"",
            "\"version\": \(Self.currentVersion)",
            "\"array\": \(string(array.rawValue))",
            "\"spacing_m\": \(number(spacingMeters, 5))",
        ]
        if let headRadiusMeters { lines.append("\"head_radius_m\": \(number(headRadiusMeters, 5))") }
        lines += [
            "\"delay_offset_us\": \(number(delayOffsetMicroseconds, 2))",
            "\"gain_offset_db\": \(number(gainOffsetDecibels, 3))",
            "\"ild_gain\": \(ildGain.map { positive($0, 3) } ?? "null")",
        ]
        if let law = headLaw {
            let values = [law.highLinear, law.highSine, law.lowLinear, law.lowSine].map { number($0, 5) }
            lines.append("\"head_law\": [\(values.joined(separator: ", "))]")
        }
        if let pattern { lines.append("\"pattern\": \(number(pattern, 3))") }
        if let includedAngleDegrees { lines.append("\"included_angle_deg\": \(positive(includedAngleDegrees, 1))") }
        if midSide { lines.append("\"mid_side\": true") }
        lines += [
            "\"sample_rate\": \(number(sampleRate, sampleRate == sampleRate.rounded() ? 0 : 3))",
            "\"speed_of_sound_m_s\": \(number(speedOfSoundMetersPerSecond, 1))",
            "\"fitted\": [\(fitted.map(string).joined(separator: ", "))]",
        ]
        if let recording { lines.append("\"recording\": \(string(recording))") }
        if let medianErrorBeforeDegrees { lines.append("\"median_error_before_deg\": \(number(medianErrorBeforeDegrees, 2))") }
        if let medianErrorAfterDegrees { lines.append("\"median_error_after_deg\": \(number(medianErrorAfterDegrees, 2))") }
        return "{\n  " + lines.joined(separator: ",\n  ") + "\n}\n"
    }
}

/// The JSON fields, as decoded.
private struct ProfileFile: Decodable {
    var format: String?
    var version: Double?
    var array: String
    var spacing_m: Double
    var head_radius_m: Double?
    var delay_offset_us: Double
    var gain_offset_db: Double
    var ild_gain: Double?
    var head_law: [Double]?
    var pattern: Double?
    var included_angle_deg: Double?
    var mid_side: Bool?
    var sample_rate: Double
    var speed_of_sound_m_s: Double?
    var fitted: [String]?
    var recording: String?
    var median_error_before_deg: Double?
    var median_error_after_deg: Double?
}

/// Why a profile cannot be used. Each description is one line naming the file.
public enum ProfileError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case unreadable(path: String, reason: String)
    case invalid(path: String, problem: String)

    /// True when the file is missing or cannot be read (exit 66 in the CLI); otherwise bad data (65).
    public var isUnreadable: Bool {
        if case .invalid = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .notFound(let p): "\(p): profile not found"
        case .unreadable(let p, let reason): "\(p): cannot read the profile: \(reason)"
        case .invalid(let p, let problem): "\(p): not a usable profile: \(problem)"
        }
    }

    /// The first number in `text` (outside strings) too large for a `Double`, such as `1e400`,
    /// which JSON allows and Foundation refuses without saying why.
    static func outOfRangeNumber(in text: String) -> String? {
        var inString = false, escaped = false, token = ""
        func check() -> String? {
            defer { token = "" }
            guard let value = Double(token), value.isInfinite else { return nil }
            return token
        }
        for c in text {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            if c == "\"" { inString = true; continue }
            if c.isNumber || c == "-" || c == "+" || c == "." || c == "e" || c == "E" {
                token.append(c)
            } else if let found = check() {
                return found
            }
        }
        return check()
    }

    /// What each field holds, for messages; fields not listed are numbers.
    private static let fieldKinds = [
        "format": "a string", "array": "a string", "recording": "a string", "fitted": "a list of strings",
        "mid_side": "true or false",
    ]

    static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        func expected(_ path: [any CodingKey]) -> String {
            // An element of `fitted` is a string; any other field is what `fieldKinds` says.
            if path.count > 1 { return "a string" }
            return path.first.flatMap { fieldKinds[$0.stringValue] } ?? "a number"
        }
        switch error {
        case .keyNotFound(let key, _): return "missing field \"\(key.stringValue)\""
        case .typeMismatch(_, let context):
            if context.codingPath.isEmpty { return "a profile is a JSON object ({ \"array\": …, … }), not a list or a single value" }
            return "field \"\(field(context.codingPath))\" should be \(expected(context.codingPath))"
        case .valueNotFound(_, let context): return "field \"\(field(context.codingPath))\" is null"
        case .dataCorrupted(let context):
            // Foundation says why (a number out of range, a stray character) in its description.
            let detail = context.debugDescription.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let why = detail.isEmpty || detail.count > 120 ? "" : ": \(detail)"
            return context.codingPath.isEmpty
                ? "not valid JSON\(why)" : "field \"\(field(context.codingPath))\" is not valid\(why)"
        @unknown default: return "not a profile"
        }
    }
}
