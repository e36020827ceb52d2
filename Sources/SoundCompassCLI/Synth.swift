import ArgumentParser
import Foundation
import SoundCompass
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
                default next to OUTPUT as NAME.truth.csv. With --turn the listener turns its head: \
                source azimuths are then bearings in the world (±180 behind), the pair's yaw swings \
                sinusoidally, the IMU log goes to --imu (default NAME.imu.csv) and the truth adds \
                yaw, world_azimuth and hemisphere columns. Where sources play at the same time the \
                truth follows the first listed (all play at --level), while the engine follows \
                whichever dominates each frame (usually the broadband one), so synth warns: give \
                sources separate times for a truth that holds throughout.
                """)

        @Argument(help: "The sound file to write (format from --file-format).")
        var outputFile: String

        @Option(name: .customLong("source"), help: ArgumentHelp("A source, KIND@AZIMUTH[@START-END] (repeatable; default white@30).", valueName: "spec"))
        var sources: [SourceSpec] = []

        @Flag(help: "Write the built-in demo scene instead (ignores --source, --duration, --array).")
        var demo = false

        @Option(parsing: .unconditional, help: ArgumentHelp("Seconds.", valueName: "s"))
        var duration: Double = 5

        @Option(parsing: .unconditional, help: ArgumentHelp("Sample rate, Hz.", valueName: "Hz"))
        var rate: Int = 48000

        @Option(help: "Microphones: spaced, binaural (Woodworth head) or coincident (XY cardioids at ±45°).")
        var array: ArrayModel.Kind = .spaced

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

        @Option(parsing: .unconditional, help: ArgumentHelp("Add uncorrelated white noise to each channel at this SNR, dB.", valueName: "dB"))
        var snr: Double?

        @Option(parsing: .unconditional, help: "Random seed; the same seed writes the same file.")
        var seed: UInt64 = 1

        @Option(help: "File format (WAV float/16/24-bit, WAVE_EXTENSIBLE 24-bit, FLAC, AIFF, Ogg Vorbis).")
        var fileFormat: SoundFileWriter.Format = .wavFloat

        @Option(help: ArgumentHelp("Ground-truth CSV path (default OUTPUT.truth.csv; 'none' for none).", valueName: "file"))
        var truth: String?

        @Option(help: ArgumentHelp(
            "Turn the listener: yaw swings ±AMPLITUDE degrees with PERIOD seconds, from START seconds (default 0), e.g. 30:4@1.",
            valueName: "amplitude:period[@start]"))
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

        /// Most samples per channel `synth` renders (it holds the scene in memory): 2²⁶, 23 min at 48 kHz.
        static let maximumSamples = 1 << 26

        func validate() throws {
            guard rate >= 8000, rate <= 768_000 else { throw ValidationError("--rate must be 8000…768000 Hz") }
            guard duration.isFinite, duration > 0, duration * Double(rate) <= Double(Self.maximumSamples) else {
                throw ValidationError(
                    "--duration must be positive and at most \(Self.maximumSamples) samples (\(Self.maximumSamples / rate) s at \(rate) Hz)")
            }
            guard spacing.isFinite, spacing > 0, spacing <= 10 else { throw ValidationError("--spacing must be in (0, 10] metres") }
            guard headRadius.isFinite, headRadius > 0, headRadius <= 1 else {
                throw ValidationError("--head-radius must be in (0, 1] metres")
            }
            guard headIld.isFinite, abs(headIld) <= 40 else { throw ValidationError("--head-ild must be within ±40 dB") }
            guard channelDelay.isFinite, abs(channelDelay) <= 10_000 else {
                throw ValidationError("--channel-delay must be within ±10000 µs")
            }
            guard channelGain.isFinite, abs(channelGain) <= 40 else { throw ValidationError("--channel-gain must be within ±40 dB") }
            guard level.isFinite, level >= -120, level <= 20 else { throw ValidationError("--level must be −120…20 dBFS") }
            if let snr, !(snr.isFinite && snr >= -60 && snr <= 120) { throw ValidationError("--snr must be −60…120 dB") }
            let nyquist = Double(rate) / 2
            for spec in sources {
                if let problem = spec.problem(nyquist: nyquist) { throw ValidationError("--source \(spec.text): \(problem)") }
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
                if let overlap = scene.firstOverlap(), truth != "none" { Diagnostics.warning(Self.overlapWarning(overlap)) }
                let listener = turn.map { RotatingListener(scene: scene, yaw: $0.motion) }
                let rig = ChannelMismatch(delay: channelDelay * 1e-6, gainDecibels: channelGain)
                let signal = rig.apply(to: listener?.render() ?? scene.render())
                let writer = try SoundFileWriter(
                    path: outputFile, sampleRate: Int(scene.sampleRate), channels: 2, format: fileFormat)
                try writer.write(channels: [signal.left, signal.right])
                writer.close()
                let truthPath = truth ?? Self.defaultTruthPath(for: outputFile)
                if truthPath != "none" {
                    try createFile(truthPath).write(Array((listener?.truthCSV() ?? scene.truthCSV()).utf8))
                }
                var imuPath: String?
                if let listener {
                    let path = imu ?? Self.defaultPath(for: outputFile, suffix: ".imu.csv")
                    let log = RotatingListener.IMULog(
                        rate: imuRate,
                        orientation: imuFormat == .yaw ? .yaw(column: "yaw", radians: false) : .quaternion,
                        sign: imuYawSign.value, start: imuStart)
                    try createFile(path).write(Array(listener.imuCSV(log).utf8))
                    imuPath = path
                }
                let written = [truthPath != "none" ? truthPath : nil, imuPath].compactMap { $0 }
                Diagnostics.note(
                    "wrote \(outputFile) (\(formatSeconds(scene.duration)) s, \(Int(scene.sampleRate)) Hz, \(fileFormat.rawValue))"
                        + (written.isEmpty ? "" : " and " + written.joined(separator: " and ")))
            }
        }

        func makeScene() -> Scene {
            if demo { return Scene.demo(sampleRate: Double(rate)) }
            let microphones: Microphones = switch array {
            case .spaced: .spaced(spacing: spacing)
            case .binaural: .binaural(headRadius: headRadius, ildAt90: headIld)
            case .coincident: .coincident(halfAngle: 45)
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
        static func defaultPath(for output: String, suffix: String) -> String {
            URL(fileURLWithPath: output).deletingPathExtension().path + suffix
        }
    }
}

extension SoundFileWriter.Format: ExpressibleByArgument {}

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
        let parts = argument.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let fields = parts[0].split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard fields.count == 2, let amplitude = fields[0], let period = fields[1],
            amplitude.isFinite, abs(amplitude) <= 180, period.isFinite, period > 0
        else { return nil }
        let start = parts.count == 2 ? Double(parts[1]) : 0
        guard let start, start.isFinite, start >= 0 else { return nil }
        self.amplitude = amplitude
        self.period = period
        self.start = start
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
        text = argument
        let parts = argument.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let kind = parts[0].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let name = kind.first, !name.isEmpty else { return nil }
        func range(_ text: String) -> (Double, Double)? {
            // "a-b" where a and b may be negative: split at a '-' that follows a digit.
            let chars = Array(text)
            for i in 1..<max(chars.count, 1) where chars[i] == "-" && chars[i - 1].isNumber {
                if let a = Double(String(chars[..<i])), let b = Double(String(chars[(i + 1)...])) { return (a, b) }
            }
            return nil
        }
        switch name {
        case "white": signal = .whiteNoise
        case "pink": signal = .pinkNoise
        case "speech": signal = .speech
        case "tone":
            guard kind.count == 2, let f = Double(kind[1]), f > 0, f.isFinite else { return nil }
            signal = .tone(f)
        case "chirp":
            guard kind.count == 2, let (a, b) = range(kind[1]), a > 0, b > 0, a.isFinite, b.isFinite else { return nil }
            signal = .chirp(from: a, to: b)
        case "band":
            guard kind.count == 2, let (a, b) = range(kind[1]), a >= 0, b > a, b.isFinite else { return nil }
            signal = .bandNoise(low: a, high: b)
        default: return nil
        }
        let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        let azimuths = fields.compactMap { Double($0) }
        guard azimuths.count == fields.count, azimuths.count == 1 || azimuths.count == 2,
            azimuths.allSatisfy({ abs($0) <= 180 })
        else { return nil }
        from = azimuths[0]
        to = azimuths.last!
        if parts.count == 3 {
            guard let (a, b) = range(parts[2]), a >= 0, b > a, b.isFinite else { return nil }
            start = a; end = b
        }
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
