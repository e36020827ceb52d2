import ArgumentParser
import Foundation
import SoundCompass
import SoundCompassOptions
import TestSignals

extension SoundCompassCommand {
    struct Synth: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a synthetic stereo recording with known directions, and its ground truth.",
            discussion: """
                Sources are given as KIND@AZIMUTH[@START-END], repeatable. KIND is white, pink, speech, \
                tone:HZ, chirp:FROM-TO or band:LOW-HIGH; AZIMUTH is degrees (0 ahead, negative left) or \
                FROM:TO for a source moving linearly over its playing time; START-END in seconds. \
                Examples: --source speech@-40  --source band:150-400@-50  --source pink@-60:60@1-5. \
                The ground truth (time,azimuth every 10 ms where a source plays) goes to --truth, by \
                default next to OUTPUT as NAME.truth.csv; with several sources also each one's \
                (time,id,azimuth,active) as NAME.truth.sources.csv. With --turn the listener turns its head: \
                source azimuths are then bearings in the world (±180 behind), the pair's yaw swings \
                sinusoidally, the IMU log goes to --imu (default NAME.imu.csv) and the truth adds \
                yaw, world_azimuth and hemisphere columns. Where sources play at the same time the \
                truth follows the first listed (all play at --level), while the engine follows \
                whichever dominates each frame (usually the broadband one), so synth warns: give \
                sources separate times for a truth that holds throughout.
                """)

        @Argument(help: "The sound file to write; its extension (.wav, .flac, .aiff, .ogg, .raw) sets the format unless --file-format does.")
        var outputFile: String

        @Option(
            name: .customLong("source"),
            help: ArgumentHelp("A source, KIND@AZIMUTH[@START-END] (repeatable; default white@30).", valueName: "spec"),
            transform: SourceSpec.parse)
        var sources: [SourceSpec] = []

        @Flag(help: "Write the built-in demo scene instead (ignores --source, --duration, --array).")
        var demo = false

        @Option(parsing: .unconditional, help: ArgumentHelp("Seconds (at most 2^28 samples: 93 min at 48 kHz).", valueName: "s"))
        var duration: Double = 5

        @Option(parsing: .unconditional, help: ArgumentHelp("Sample rate, Hz.", valueName: "Hz"))
        var rate: Int = 48000

        @Option(help: "Microphones: spaced, binaural (Woodworth head) or coincident (an XY pair: cardioids at 90° unless --pattern, --angle or --mid-side).")
        var array: ArrayModel.Kind = .spaced

        @OptionGroup
        var coincident: CoincidentOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Microphone spacing, metres (spaced).", valueName: "metres"))
        var spacing: Double = ArrayModel.defaultSpacing

        @Option(parsing: .unconditional, help: ArgumentHelp("Head radius, metres (binaural).", valueName: "metres"))
        var headRadius: Double = ArrayModel.defaultHeadRadius

        @Option(parsing: .unconditional, help: ArgumentHelp("Broadband level difference at 90°, dB (binaural).", valueName: "dB"))
        var headIld: Double = 0

        @Option(parsing: .unconditional, help: ArgumentHelp("Delay the right channel by this much, µs: a rig whose channels are not aligned (negative: right early).", valueName: "µs"))
        var channelDelay: Double = 0

        @Option(parsing: .unconditional, help: ArgumentHelp("Gain of the right channel re the left, dB: a rig whose channels are not matched.", valueName: "dB"))
        var channelGain: Double = 0

        @Option(parsing: .unconditional, help: ArgumentHelp("Level of each source, dBFS RMS.", valueName: "dBFS"))
        var level: Double = -20

        @Option(parsing: .unconditional, help: ArgumentHelp("Add uncorrelated white noise to each channel at this SNR, dB (default: no noise).", valueName: "dB"))
        var snr: Double?

        @Option(parsing: .unconditional, help: "Random seed; the same seed writes the same file.")
        var seed: UInt64 = 1

        @Option(help: ArgumentHelp(
            "File format (default: from OUTPUT's extension; WAV without one). Older names (wav16, flac24, raw-s16le, …) also fix the sample format.",
            valueName: "format"))
        var fileFormat: SynthFormat.Argument?

        @Option(help: ArgumentHelp(
            "Sample format: f32le, s32le, s24le or s16le (ALSA's FLOAT_LE, S16_LE, … also accepted; default: f32le for WAV and raw, s24le for FLAC and WAVE_EXTENSIBLE, s16le for AIFF).",
            valueName: "format"))
        var sampleFormat: PCMEncoding?

        @OptionGroup
        var verbosity: QuietOption

        @Option(help: ArgumentHelp("Ground-truth CSV path (default OUTPUT.truth.csv; 'none' for none).", valueName: "file"))
        var truth: String?

        @Option(help: ArgumentHelp(
            "Turn the listener: yaw swings ±AMPLITUDE degrees with PERIOD seconds, from START seconds (default 0), e.g. 30:4@1.",
            valueName: "amplitude:period[@start]"),
            transform: TurnSpec.parse)
        var turn: TurnSpec?

        @Option(help: ArgumentHelp("IMU log CSV path, with --turn (default OUTPUT.imu.csv).", valueName: "file"))
        var imu: String?

        @Option(help: "IMU log columns, with --turn: yaw (time,yaw,…) or quaternion (time,qw,qx,qy,qz).")
        var imuFormat: IMULogStyle = .yaw

        @Option(parsing: .unconditional, help: ArgumentHelp("IMU rows per second, with --turn.", valueName: "Hz"))
        var imuRate: Double = 100

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Write yaw growing clockwise (+1, this tool's convention) or counter-clockwise (-1), with --turn.", valueName: "+1|-1"))
        var imuYawSign: YawSign = YawSign(value: 1)

        @Option(parsing: .unconditional, help: ArgumentHelp("Audio time at which the IMU log starts (its clock reads 0 there), seconds, with --turn.", valueName: "seconds"))
        var imuStart: Double = 0

        /// Most samples per channel `synth` writes: 2²⁸ (93 min at 48 kHz), 2 GiB of stereo float
        /// samples, which a WAV file holds. It renders block by block, in bounded memory.
        static let maximumSamples = 1 << 28

        func validate() throws {
            guard rate >= 8000, rate <= 768_000 else { throw ValidationError("--rate must be 8000…768000 Hz") }
            guard duration.isFinite, duration > 0, duration * Double(rate) <= Double(Self.maximumSamples) else {
                throw ValidationError(
                    "--duration must be positive and at most \(Self.maximumSamples) samples (\(Self.maximumSamples / rate) s at \(rate) Hz)")
            }
            // Fewer than one sample would write a file with no audio, which nothing can read.
            guard (duration * Double(rate)).rounded(.down) >= 1 else {
                throw ValidationError(
                    "--duration \(duration) s is less than one sample at \(rate) Hz; give at least one sample (1/\(rate) s)")
            }
            guard ArrayModel.spacingRange.contains(spacing) else {
                throw ValidationError("--spacing must be \(ArrayModel.spacingRange.lowerBound)…\(ArrayModel.spacingRange.upperBound) metres, got \(spacing)")
            }
            guard ArrayModel.headRadiusRange.contains(headRadius) else {
                throw ValidationError("--head-radius must be \(ArrayModel.headRadiusRange.lowerBound)…\(ArrayModel.headRadiusRange.upperBound) metres, got \(headRadius)")
            }
            guard headIld.isFinite, abs(headIld) <= 40 else { throw ValidationError("--head-ild must be within ±40 dB") }
            guard channelDelay.isFinite, abs(channelDelay) <= 10_000 else {
                throw ValidationError("--channel-delay must be within ±10000 µs")
            }
            guard channelGain.isFinite, abs(channelGain) <= 40 else { throw ValidationError("--channel-gain must be within ±40 dB") }
            guard level.isFinite, level >= -120, level <= 20 else { throw ValidationError("--level must be −120…20 dBFS") }
            if let snr, !(snr.isFinite && snr >= -60 && snr <= 120) { throw ValidationError("--snr must be −60…120 dB") }
            try coincident.validate(kind: array)
            let nyquist = Double(rate) / 2
            for spec in sources {
                if let problem = spec.problem(nyquist: nyquist) { throw ValidationError("--source \(spec.text): \(problem)") }
                if let start = spec.start, start >= duration {
                    throw ValidationError("--source \(spec.text): it starts at \(formatSeconds(start)) s, at or after the end of the recording (\(formatSeconds(duration)) s)")
                }
            }
            if let truth, truth != "none", truth == outputFile || LineSink.isSameFile(truth, outputFile) {
                throw ValidationError("--truth names the output sound file")
            }
            if turn == nil && (imu != nil || imuStart != 0 || imuRate != 100 || imuYawSign.value != 1 || imuFormat != .yaw) {
                throw ValidationError("--imu, --imu-format, --imu-rate, --imu-yaw-sign and --imu-start need --turn")
            }
            guard imuRate.isFinite, imuRate >= 1, imuRate <= 10_000 else { throw ValidationError("--imu-rate must be 1…10000 Hz") }
            guard imuStart.isFinite, imuStart >= 0, imuStart < duration else {
                throw ValidationError("--imu-start must be within the recording (0…\(formatSeconds(duration)) s)")
            }
            if let imu, imu == outputFile || LineSink.isSameFile(imu, outputFile) || imu == truth {
                throw ValidationError("--imu names another output file")
            }
        }

        func run() throws {
            try Diagnostics.reportingFailures {
                let scene = makeScene()
                do { try scene.validate() } catch { throw CLIFailure("\(outputFile): \(error)", status: .usage) }
                if let overlap = scene.firstOverlap(), truth != "none" { Diagnostics.warning(Self.overlapWarning(overlap)) }
                let listener = turn.map { RotatingListener(scene: scene, yaw: $0.motion) }
                let rig = ChannelMismatch(delay: channelDelay * 1e-6, gainDecibels: channelGain)
                let format = try SynthFormat.resolve(path: outputFile, fileFormat: fileFormat, sampleFormat: sampleFormat)
                if let asked = fileFormat?.container, let named = SynthFormat.container(forPath: outputFile) ?? nil, named != asked {
                    Diagnostics.warning("\(outputFile): written as \(asked.rawValue) (--file-format), although its extension says \(named.rawValue)")
                }
                // Written under a temporary name and renamed once complete: a run that fails or
                // is killed leaves OUTPUT as it was (what was written is kept as OUTPUT.partial).
                let staged: StagedOutput
                do { staged = try StagedOutput(path: outputFile, opening: false) } catch {
                    // Said as libsndfile's own failure to create it would be.
                    guard case WholeFileWriter.Failure.cannotCreate(let reason) = error else { throw CLIFailure(error) }
                    let prefix = outputFile + ": "
                    throw SoundFileError.cannotCreate(
                        path: outputFile, reason: reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason)
                }
                try finishingOutput(staged) {
                    // Block by block: memory stays bounded however long the recording. The mix's
                    // peak is measured as it is written; a mix that reaches full scale is rendered
                    // again (the render is deterministic), scaled whole to peak at `Self.peakCeiling`.
                    let render = { (body: (StereoSignal) throws -> Void) throws in
                        if let listener { try listener.render(mismatch: rig, body) } else { try scene.render(mismatch: rig, body) }
                    }
                    var peak: Float = 0
                    try writeSoundFile(to: staged.writingPath, format: format, sampleRate: scene.sampleRate) { write in
                        try render { block in
                            peak = max(peak, Self.peak(block.left), Self.peak(block.right))
                            try write(block.left, block.right)
                        }
                    }
                    if peak >= 1 {
                        let gain = Self.peakCeiling / peak
                        try writeSoundFile(to: staged.writingPath, format: format, sampleRate: scene.sampleRate) { write in
                            try render { block in try write(block.left.map { $0 * gain }, block.right.map { $0 * gain }) }
                        }
                        if !verbosity.quiet { Diagnostics.note(Self.normalisationNote(outputFile, peak: peak, gain: gain)) }
                    }
                }
                let truthPath = truth ?? Self.defaultTruthPath(for: outputFile)
                if truthPath != "none" {
                    try Self.writeStaged(truthPath) { piece in
                        if let listener { try listener.truthCSV(piece) } else { try scene.truthCSV(piece) }
                    }
                }
                let sourcesTruthPath = try writeSourceTruth(scene, truthPath: truthPath, turning: listener != nil)
                var imuPath: String?
                if let listener {
                    let path = imu ?? Self.defaultPath(for: outputFile, suffix: ".imu.csv")
                    let log = RotatingListener.IMULog(
                        rate: imuRate,
                        orientation: imuFormat == .yaw ? .yaw(column: "yaw", radians: false) : .quaternion,
                        sign: imuYawSign.value, start: imuStart)
                    try Self.writeStaged(path) { piece in try listener.imuCSV(log, piece) }
                    imuPath = path
                }
                let written = [truthPath != "none" ? truthPath : nil, sourcesTruthPath, imuPath].compactMap { $0 }
                if !verbosity.quiet {
                    Diagnostics.note(
                    "wrote \(outputFile) (\(formatSeconds(scene.duration)) s, \(Int(scene.sampleRate)) Hz, \(format.rawValue))"
                        + (written.isEmpty ? "" : " and " + written.joined(separator: " and ")))
                }
            }
        }

        /// Writes a text file beside the recording (a truth or IMU CSV) as the recording is
        /// written: under a hidden temporary name, renamed onto `path` once complete, so that a
        /// run that fails or is interrupted leaves `path` as it was (what was written is kept as
        /// `PATH.partial`). `body` hands its text to the piece writer it is given.
        static func writeStaged(_ path: String, _ body: (_ piece: (String) throws -> Void) throws -> Void) throws {
            let staged: StagedOutput
            do { staged = try StagedOutput(path: path) } catch { throw CLIFailure(error) }
            try finishingOutput(staged) {
                guard let sink = staged.writingSink else { return }
                try body { try sink.write(Array($0.utf8)) }
            }
        }

        /// The peak a mix that reaches full scale is scaled to: −1 dBFS, the usual ceiling for
        /// a master, which leaves room for the rounding of integer formats and for lossy codecs'
        /// overshoot.
        static let peakCeiling = Float(0.891_250_938)   // 10^(−1/20)

        /// Largest magnitude of `samples`.
        static func peak(_ samples: [Float]) -> Float { samples.reduce(0) { max($0, abs($1)) } }

        /// What synth says when it scaled the mix.
        static func normalisationNote(_ path: String, peak: Float, gain: Float) -> String {
            let dB = { (x: Float) in formatFixedCLI(20 * log10(Double(x)), 1) }
            return "\(path): the mix peaked at \(dB(peak).hasPrefix("-") ? "" : "+")\(dB(peak)) dBFS (\(formatFixedCLI(Double(peak), 3)) of full scale), "
                + "so the whole render was scaled by \(dB(gain)) dB to peak at -1.0 dBFS and no format clips it; "
                + "the sources are \(dB(1 / gain)) dB below --level (the SNR holds), and the truth is unchanged"
        }

        /// Creates (or replaces) the sound file at `path` (the output's temporary name; messages
        /// name OUTPUT) and passes `body` a function that writes one block of left and right samples.
        func writeSoundFile(
            to path: String, format: SoundFileWriter.Format, sampleRate: Double,
            _ body: (_ write: ([Float], [Float]) throws -> Void) throws -> Void
        ) throws {
            let writer = try SoundFileWriter(
                path: path, name: outputFile, sampleRate: Int(sampleRate), channels: 2, format: format)
            try body { left, right in try writer.write(channels: [left, right]) }
            writer.close()
        }

        func makeScene() -> Scene {
            if demo { return Scene.demo(sampleRate: Double(rate)) }
            let microphones: Microphones = switch array {
            case .spaced: .spaced(spacing: spacing)
            case .binaural: .binaural(headRadius: headRadius, ildAt90: headIld)
            case .coincident:
                coincident.midSide
                    ? .midSide(midPattern: coincident.pattern?.coefficient ?? 0.5, sideGain: coincident.sideGain ?? 1)
                    : .coincident(pattern: coincident.pattern?.coefficient ?? 0.5, includedAngle: coincident.angle ?? 90)
            }
            let specs = sources.isEmpty ? [SourceSpec(argument: "white@30")!] : sources
            let built = specs.enumerated().map { index, spec in
                spec.source(duration: duration, level: level, seed: seed &+ UInt64(index) &* 7919)
            }
            return Scene(
                sampleRate: Double(rate), duration: duration, microphones: microphones, sources: built,
                noise: snr.map { SensorNoise(snrDecibels: $0, seed: seed &+ 104_729) })
        }

        static func defaultTruthPath(for output: String) -> String { defaultPath(for: output, suffix: ".truth.csv") }

        /// OUTPUT without its extension, plus `suffix`.
        /// Relative when OUTPUT is: "test.wav" gives "test.truth.csv", not an absolute path.
        static func defaultPath(for output: String, suffix: String) -> String {
            let nameStart = output.lastIndex(of: "/").map { output.index(after: $0) } ?? output.startIndex
            guard let dot = output[nameStart...].lastIndex(of: "."), dot != nameStart else { return output + suffix }
            return String(output[..<dot]) + suffix
        }
    }
}


/// Columns of a synthesised IMU log.
enum IMULogStyle: String, ExpressibleByArgument, CaseIterable {
    case yaw, quaternion
}

/// `AMPLITUDE:PERIOD[@START]`: a sinusoidal head turn, see `synth --help`.
struct TurnSpec: ExpressibleByArgument {
    var amplitude: Double
    var period: Double
    var start: Double

    init?(argument: String) {
        guard let spec = try? Self.parse(argument) else { return nil }
        self = spec
    }

    private init(amplitude: Double, period: Double, start: Double) {
        (self.amplitude, self.period, self.start) = (amplitude, period, start)
    }

    /// Parses a turn, saying what is wrong with it.
    static func parse(_ argument: String) throws -> TurnSpec {
        let parts = argument.split(separator: "@", omittingEmptySubsequences: false)
        let fields = parts[0].split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count <= 2, fields.count == 2, let amplitude = fields[0], let period = fields[1] else {
            throw ArgumentProblem("write AMPLITUDE:PERIOD[@START] in degrees and seconds, e.g. 30:4@1")
        }
        guard amplitude.isFinite, abs(amplitude) <= 180 else { throw ArgumentProblem("amplitude must be within ±180°") }
        guard period.isFinite, period > 0 else { throw ArgumentProblem("period must be a positive number of seconds") }
        let start = parts.count == 2 ? Double(parts[1]) : 0
        guard let start, start.isFinite, start >= 0 else { throw ArgumentProblem("START must be seconds ≥ 0") }
        return TurnSpec(amplitude: amplitude, period: period, start: start)
    }

    var motion: YawMotion { .sinusoid(amplitude: amplitude, period: period, start: start) }
    static var allValueStrings: [String] { [] }
}

/// `KIND@AZIMUTH[@START-END]`, see `synth --help`.
struct SourceSpec: ExpressibleByArgument {
    var text: String
    var signal: SourceSignal
    var from: Double
    var to: Double
    var start: Double?
    var end: Double?

    init?(argument: String) {
        guard let spec = try? Self.parse(argument) else { return nil }
        self = spec
    }

    private init(text: String, signal: SourceSignal, from: Double, to: Double, start: Double?, end: Double?) {
        (self.text, self.signal, self.from, self.to, self.start, self.end) = (text, signal, from, to, start, end)
    }

    /// Parses a source, saying what is wrong with it.
    static func parse(_ argument: String) throws -> SourceSpec {
        let parts = argument.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else {
            throw ArgumentProblem("write KIND@AZIMUTH or KIND@AZIMUTH@START-END, e.g. speech@-40 or pink@-60:60@2-6")
        }
        let kind = parts[0].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let kinds = "white, pink, speech, tone:HZ, chirp:FROM-TO or band:LOW-HIGH"
        guard let name = kind.first, !name.isEmpty else { throw ArgumentProblem("no KIND before '@' (one of \(kinds))") }
        func range(_ text: String) -> (Double, Double)? {
            // "a-b" where a and b may be negative: split at a '-' that follows a digit.
            let chars = Array(text)
            for i in 1..<max(chars.count, 1) where chars[i] == "-" && chars[i - 1].isNumber {
                if let a = Double(String(chars[..<i])), let b = Double(String(chars[(i + 1)...])) { return (a, b) }
            }
            return nil
        }
        let signal: SourceSignal
        switch name {
        case "white": signal = .whiteNoise
        case "pink": signal = .pinkNoise
        case "speech": signal = .speech
        case "tone":
            guard kind.count == 2, let f = Double(kind[1]), f > 0, f.isFinite else {
                throw ArgumentProblem("tone needs a positive frequency in Hz, e.g. tone:1000@30")
            }
            signal = .tone(f)
        case "chirp":
            guard kind.count == 2, let (a, b) = range(kind[1]), a > 0, b > 0, a.isFinite, b.isFinite else {
                throw ArgumentProblem("chirp needs two positive frequencies in Hz, e.g. chirp:200-4000@30")
            }
            signal = .chirp(from: a, to: b)
        case "band":
            guard kind.count == 2, let (a, b) = range(kind[1]), a >= 0, b > a, b.isFinite else {
                throw ArgumentProblem("band needs LOW-HIGH in Hz with LOW < HIGH, e.g. band:150-400@-50")
            }
            signal = .bandNoise(low: a, high: b)
        default:
            throw ArgumentProblem("unknown kind '\(name)' (one of \(kinds))")
        }
        let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        let azimuths = fields.compactMap { Double($0) }
        guard azimuths.count == fields.count, azimuths.count == 1 || azimuths.count == 2 else {
            throw ArgumentProblem("AZIMUTH must be degrees or FROM:TO in degrees, got '\(parts[1])'")
        }
        if let outside = azimuths.first(where: { !(abs($0) <= 180) }) {
            throw ArgumentProblem("azimuth \(formatTrimmed(outside, 3))° is outside −180…180 (0 ahead, negative left, positive right)")
        }
        var start: Double?, end: Double?
        if parts.count == 3 {
            guard let (a, b) = range(parts[2]), a >= 0, b > a, b.isFinite else {
                throw ArgumentProblem("START-END must be seconds with 0 ≤ START < END, got '\(parts[2])'")
            }
            start = a; end = b
        }
        return SourceSpec(text: argument, signal: signal, from: azimuths[0], to: azimuths.last!, start: start, end: end)
    }

    func source(duration: Double, level: Double, seed: UInt64) -> Source {
        let s = start ?? 0, e = end ?? duration
        let path: AzimuthPath = from == to ? .fixed(from) : .sweep(from: from, to: to, between: s, and: e)
        return Source(signal, path: path, start: s, end: e, levelDBFS: level, seed: seed)
    }

    /// Why the source cannot be rendered at a sample rate whose Nyquist frequency is `nyquist` Hz.
    func problem(nyquist: Double) -> String? {
        switch signal {
        case .tone(let f) where f >= nyquist: "tone of \(f) Hz is not below the Nyquist frequency (\(nyquist) Hz)"
        case .chirp(let a, let b) where max(a, b) >= nyquist: "chirp reaches the Nyquist frequency (\(nyquist) Hz)"
        case .bandNoise(_, let high) where high > nyquist: "band reaches above the Nyquist frequency (\(nyquist) Hz)"
        default: nil
        }
    }

    static var allValueStrings: [String] { [] }
}
