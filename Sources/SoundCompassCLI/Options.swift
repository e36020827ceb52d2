import Foundation
import ArgumentParser
import SoundCompass
import TestSignals

extension ArrayModel.Kind: ExpressibleByArgument {}
extension RecordFormat: ExpressibleByArgument {}
extension TrackerResponse: ExpressibleByArgument {}

/// A length given in samples ("2048") or milliseconds ("43ms").
struct FrameLength: ExpressibleByArgument, CustomStringConvertible {
    enum Unit { case samples, milliseconds }
    var value: Double
    var unit: Unit

    init?(argument: String) {
        let text = argument.lowercased()
        if text.hasSuffix("ms"), let v = Double(text.dropLast(2)), v > 0, v.isFinite {
            value = v; unit = .milliseconds
        } else if let v = Int(text), v > 0 {
            value = Double(v); unit = .samples
        } else {
            return nil
        }
    }

    /// The length in samples at `sampleRate` Hz (capped at 2³⁰, far beyond any valid frame,
    /// so absurd values reach the configuration check instead of overflowing).
    func samples(at sampleRate: Double) -> Int {
        let samples = switch unit {
        case .samples: value
        case .milliseconds: (value / 1000 * sampleRate).rounded()
        }
        return Int(max(1, min(samples, Double(1 << 30))))
    }

    var description: String { unit == .samples ? "\(Int(value))" : "\(value)ms" }
}

/// The options that shape an analysis, shared by every command that analyzes.
struct AnalysisOptions: ParsableArguments {
    @Option(help: "Array model: spaced (two mics in free field), binaural (ears of a head), coincident (level-encoded pair); default spaced.")
    var array: ArrayModel.Kind?

    @Option(help: ArgumentHelp("Microphone spacing in metres (spaced; the time cue's aperture for coincident; default 0.15).", valueName: "metres"))
    var spacing: Double?

    @Option(help: ArgumentHelp("Head radius in metres (binaural; default 0.0875).", valueName: "metres"))
    var headRadius: Double?

    @Option(help: ArgumentHelp(
        "Calibration profile (JSON from 'soundcompass calibrate'): the array, its spacing, the channels' delay and gain offsets and the ILD gain; replaces --array, --spacing, --head-radius and --ild-gain.",
        valueName: "file"))
    var profile: String?

    @Option(help: ArgumentHelp("Level-cue gain: tanh gain for coincident (default 12), dB at 90° for binaural (default 10).", valueName: "gain"))
    var ildGain: Double?

    @Option(help: ArgumentHelp("Frame length in samples, or milliseconds with 'ms' (default: about 43 ms, a power of two).", valueName: "n|Nms"))
    var frame: FrameLength?

    @Option(help: ArgumentHelp("Hop between frames in samples, or milliseconds with 'ms' (default: half a frame).", valueName: "n|Nms"))
    var hop: FrameLength?

    @Option(help: ArgumentHelp("Two channels of a multichannel input to use as left and right, 1-based.", valueName: "L,R"))
    var channels: String?

    @Flag(help: "Exchange left and right.")
    var swap = false

    @Option(help: ArgumentHelp("Frames quieter than this carry no confidence (dBFS).", valueName: "dBFS"))
    var gate: Double = -70

    @Option(help: ArgumentHelp(
        "Frequency bands for per-band bearings, NAME:LOW-HIGH in Hz, comma-separated, or 'none' (default low:100-500,speech:500-3000,alert:3000-8000,high:8000-16000; bands above 0.45·fs are dropped).",
        valueName: "bands"))
    var bands: String?

    @Option(help: "How quickly the tracked azimuth follows: calm, balanced or snappy.")
    var response: TrackerResponse = .balanced

    func validate() throws {
        if let spacing, !(spacing > 0 && spacing.isFinite && spacing <= 10) {
            throw ValidationError("--spacing must be a positive distance in metres (at most 10), got \(spacing)")
        }
        if let headRadius, !(headRadius > 0 && headRadius.isFinite && headRadius <= 1) {
            throw ValidationError("--head-radius must be a positive radius in metres (at most 1), got \(headRadius)")
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
        if let ildGain, !(ildGain > 0 && ildGain.isFinite) {
            throw ValidationError("--ild-gain must be positive, got \(ildGain)")
        }
        guard gate.isFinite, gate <= 0 else { throw ValidationError("--gate must be a level in dBFS (≤ 0), got \(gate)") }
        if let bands {
            do { _ = try BandSpec.parse(bands) } catch { throw ValidationError("--bands: \(error.description)") }
        }
    }

    /// The channel pair, parsed from `--channels`, for the input named `inputName`.
    func channelPair(for inputName: String) throws -> (left: Int, right: Int)? {
        guard let channels else { return nil }
        let parts = channels.split(separator: ",", omittingEmptySubsequences: false).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2, let left = parts[0], let right = parts[1], left >= 1, right >= 1 else {
            let count = parts.count
            let problem = count < 2
                ? "--channels needs two channels as L,R (got \"\(channels)\", \(count) channel\(count == 1 ? "" : "s"))"
                : "--channels needs two 1-based channel numbers as L,R (got \"\(channels)\")"
            throw CLIFailure("\(inputName): \(problem)", status: .usage)
        }
        return (left, right)
    }

    /// `--channels` for a live stream: `L,R` picks a pair; a single `N` says the stream has `N`
    /// channels, of which 1 and 2 are used.
    func channelSelection(for inputName: String) throws -> (pair: (left: Int, right: Int)?, count: Int?) {
        if let channels, let count = Int(channels.trimmingCharacters(in: .whitespaces)) {
            guard count >= 2 else {
                throw CLIFailure("\(inputName): --channels \(count): a stereo pair needs at least 2 channels", status: .usage)
            }
            return (nil, count)
        }
        return (try channelPair(for: inputName), nil)
    }

    /// Opens `file` with the channel options, or the built-in demo scene when `file` is nil.
    func openSource(_ file: String?) throws -> any StereoSource {
        if let file {
            return try SoundFileReader(path: file, channels: try channelPair(for: file), swap: swap)
        }
        let signal = Scene.demo().render()
        let pair = try SoundFileReader.channelPair(
            try channelPair(for: "demo scene"), swap: swap, of: 2, path: "demo scene")
        let swapped = pair.left == 2
        return MemoryStereoSource(
            left: swapped ? signal.right : signal.left, right: swapped ? signal.left : signal.right,
            sampleRate: signal.sampleRate, name: "demo scene")
    }

    /// The `--profile` file, read and checked; nil without one.
    /// - Throws: ``ProfileError`` for a profile that cannot be read or used.
    func loadProfile() throws -> ArrayProfile? {
        try profile.map { try ArrayProfile.load(path: $0) }
    }

    /// The array model: the profile's when one is given, else the options'.
    func arrayModel(profile loaded: ArrayProfile?) -> ArrayModel {
        if let loaded { return loaded.model }
        return ArrayModel(
            kind: array ?? .spaced, spacing: spacing ?? ArrayModel.defaultSpacing,
            headRadius: headRadius ?? ArrayModel.defaultHeadRadius, ildGain: ildGain)
    }

    /// The analysis settings for a sample rate, with the array model of `profile` when given.
    func configuration(sampleRate: Double, profile loaded: ArrayProfile? = nil) -> AnalysisConfiguration {
        let model = arrayModel(profile: loaded)
        let frameLength = frame?.samples(at: sampleRate)
        let hopLength = hop?.samples(at: sampleRate)
        // `validate()` has already rejected a --bands list that does not parse.
        let bandList = bands.flatMap { try? BandSpec.parse($0) }
        return AnalysisConfiguration(
            sampleRate: sampleRate, frameLength: frameLength,
            hopLength: hopLength ?? frameLength.map { max(1, $0 / 2) }, array: model, silenceGateDBFS: gate,
            bands: bandList ?? BandSpec.defaults, response: response)
    }

    /// The settings for `source` and a fresh analyzer with them.
    /// - Throws: a usage error naming the source when the settings do not suit its sample rate.
    func makeAnalyzer(for source: some StereoSource, orientation: YawTimeline? = nil) throws
        -> (AnalysisConfiguration, StreamingAnalyzer)
    {
        let loaded = try loadProfile()
        let config = configuration(sampleRate: source.sampleRate, profile: loaded)
        if let profile, let fitted = loaded, fitted.sampleRate != source.sampleRate {
            Diagnostics.warning(
                "\(profile): fitted at \(formatHertz(fitted.sampleRate)), but \(source.name) is \(formatHertz(source.sampleRate)); a different interface setting may delay the channels differently")
        }
        do { try config.validate() } catch {
            throw CLIFailure("\(source.name): \(error.description)", status: .usage)
        }
        return (config, try StreamingAnalyzer(configuration: config, orientation: orientation))
    }

    /// One line describing the settings, for stderr.
    func describe(_ config: AnalysisConfiguration) -> String {
        let ms = { (n: Int) in String(Int((Double(n) / config.sampleRate * 1000).rounded())) }
        return "frame \(config.frameLength) (\(ms(config.frameLength)) ms), hop \(config.hopLength) (\(ms(config.hopLength)) ms), "
            + Self.describe(config.array) + (profile.map { " (profile \($0))" } ?? "")
    }

    /// The settings line under a trace plot's title: rate, framing, array, and the IMU log.
    func plotSettings(_ config: AnalysisConfiguration, imu: String?) -> String {
        "\(Int(config.sampleRate)) Hz; \(describe(config))" + (imu.map { "; IMU \($0)" } ?? "")
    }

    /// The array model in a few words: "spaced 0.15 m", "binaural head radius 0.0875 m, ILD gain 10",
    /// with the channel offsets when a profile sets them.
    static func describe(_ model: ArrayModel) -> String {
        var text = model.kind.rawValue
        switch model.kind {
        case .spaced: text += " \(formatMetres(model.spacing)) m"
        case .coincident: text += " \(formatMetres(model.spacing)) m, ILD gain \(formatNumber(model.ildGain, 2))"
        case .binaural: text += " head radius \(formatMetres(model.headRadius)) m, ILD gain \(formatNumber(model.ildGain, 2)) dB"
        }
        if model.delayOffset != 0 || model.gainOffsetDecibels != 0 {
            text += ", channel offsets \(formatNumber(model.delayOffset * 1e6, 1)) µs \(formatNumber(model.gainOffsetDecibels, 2)) dB"
        }
        return text
    }
}

/// Where and how records are written.
struct OutputOptions: ParsableArguments {
    @Option(help: "Record format (default: text on a terminal, jsonl otherwise).")
    var format: RecordFormat?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write records to this file instead of stdout.", valueName: "file"))
    var output: String?

    /// - Parameter input: the input file, which `--output` must not overwrite.
    func makeWriter(input: String?, bandNames: [String] = [], orientation: Bool = false) throws -> RecordWriter {
        let sink: LineSink
        if let output, let input, LineSink.isSameFile(output, input) {
            throw CLIFailure("\(output): --output names the input file; refusing to overwrite it", status: .usage)
        }
        if let output {
            sink = try createFile(output)
        } else {
            sink = .standardOutput()
        }
        let chosen = format ?? (output == nil && sink.isTerminal ? .text : .jsonl)
        return RecordWriter(format: chosen, sink: sink, bandNames: bandNames, orientation: orientation)
    }
}

/// Metres with up to four decimals, trailing zeros dropped: "0.15", "0.1203".
func formatMetres(_ value: Double) -> String { formatNumber(value, 4) }

/// `value` rounded to `places` decimals, trailing zeros dropped: "12", "0.5", "-3.25".
func formatNumber(_ value: Double, _ places: Int) -> String {
    let scale = pow(10, Double(places))
    let rounded = (value * scale).rounded() / scale
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return "\(Int(rounded))" }
    var text = String(format: "%.\(places)f", rounded)
    while text.hasSuffix("0") { text.removeLast() }
    return text
}

func formatHertz(_ rate: Double) -> String { "\(formatNumber(rate, 3)) Hz" }
