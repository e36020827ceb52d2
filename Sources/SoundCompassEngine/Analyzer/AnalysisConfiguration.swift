/// Settings of one analysis: sample rate, framing and array model.
public struct AnalysisConfiguration: Sendable, Equatable {
    /// Sample rate in Hz (≥ 8000).
    public var sampleRate: Double
    /// Analysis frame length in samples (≥ 64).
    public var frameLength: Int
    /// Hop between frame starts in samples (1 … frameLength).
    public var hopLength: Int
    /// Array model and its geometry.
    public var array: ArrayModel
    /// Frames quieter than this (dBFS, mean power of both channels) carry no confidence and are
    /// not `active`. Default −70 dBFS.
    public var silenceGateDBFS: Double
    /// Share of the newest frame in the spectral averages behind GCC-PHAT's coherence
    /// weighting, 0…1 (default 0.5; 0 gives plain PHAT). See ``GCCPHAT``.
    public var coherenceSmoothing: Double
    /// Bands of the per-band estimator; those above 0.45·fs are dropped (see ``usableBands``).
    public var bands: [BandSpec]
    /// Activity detection against the learned noise floor.
    public var activity: ActivityConfiguration
    /// How quickly the tracked azimuth follows.
    public var response: TrackerResponse
    /// Fall rate of the frame level, dB/s, at which a frame's confidence reaches 0: frames whose
    /// level falls are mostly a room's reverberant tail (see ``TailWeighting``). Default 125 dB/s;
    /// 0 turns the weighting off.
    public var tailDecayDecibelsPerSecond: Double

    /// Extra lag, seconds, that GCC-PHAT searches beyond the array's physical limit (default 0).
    /// Calibration measures with a margin, so that a rig wider than its nominal spacing or a
    /// lagging channel is not clipped at the nominal limit.
    public var lagMarginSeconds: Double = 0

    /// Most sources the multi-source tracker follows at once (``AnalysisRecord/sources``),
    /// 0…``maximumSources`` (default 3). 0 turns the tracker off: no work, empty `sources`, and
    /// no onset average for the broadband tracker to take in the frames that carry no bearing of
    /// their own (see `OnsetBearing`).
    public var maxSources = 3
    /// Window over which the multi-source tracker gathers each frame's direction evidence,
    /// seconds (the time constant of its average; default 0.3 s, within 0.05…5 s).
    public var sourceWindowSeconds = 0.3
    /// Whether the source candidates also search the excess average, the bins that stand above
    /// their stationary floor (see `ExcessCandidateSearch.swift`): a talker beside a steady
    /// noise (a fan, a television) is then listed too. Default true (`--no-steady-sources` turns
    /// it off); it costs an inverse FFT of a quarter of the frame's size per frame at 48 kHz.
    /// Without a steady source the candidates are the same either way.
    public var hearsBesideSteadySources = true

    /// Whether a spaced pair's broadband time cue is corrected for the room's pull towards 0°,
    /// measured at onsets, where the direct sound arrives before its reflections (see
    /// `PrecedenceLag`; Docs/Accuracy.md, "A small pair"). An experiment, default false; no
    /// effect on the other array kinds. `itd_us` stays the measured delay either way.
    public var correctsRoomPull = false

    /// Largest ``maxSources``.
    public static let maximumSources = 8
    /// The ``sourceWindowSeconds`` accepted, seconds.
    public static let sourceWindowRange: ClosedRange<Double> = 0.05...5

    /// Default ``tailDecayDecibelsPerSecond``, dB/s: the decay of a room with an RT60 of about 0.5 s.
    public static let defaultTailDecayRate = 125.0

    /// Lowest supported sample rate, Hz.
    public static let minimumSampleRate = 8000.0
    /// Highest supported sample rate, Hz.
    public static let maximumSampleRate = EngineLimits.maximumSampleRate
    /// Longest analysis frame, samples (2¹⁸: 5.5 s at 48 kHz, 0.34 s at 768 kHz). An analyzer
    /// holds about 180 bytes per frame sample (FFT buffers, band filters, lag searches), so
    /// this keeps one within about 50 MB; calibrate runs up to three (Docs/CLI.md states the
    /// figures).
    public static let maximumFrameLength = 1 << 18
    /// Target frame duration of the default framing, seconds (about 43 ms, 2048 samples at 48 kHz).
    public static let defaultFrameDuration = 0.04267

    /// The default frame length for a sample rate: the power of two nearest (in octaves) to
    /// 43 ms — 2048 at 44.1/48 kHz, 4096 at 96 kHz, 1024 at 22.05/24 kHz, 512 at 16 kHz, 256 at 8 kHz.
    public static func defaultFrameLength(sampleRate: Double) -> Int {
        let target = max(64, defaultFrameDuration * sampleRate)
        let exponent = (log2(target)).rounded()
        return 1 << Int(exponent)
    }

    /// - Parameters:
    ///   - sampleRate: Hz.
    ///   - frameLength: samples; `nil` for ``defaultFrameLength(sampleRate:)``.
    ///   - hopLength: samples; `nil` for half the frame (50 % overlap).
    ///   - array: the array model.
    ///   - silenceGateDBFS: see ``silenceGateDBFS``.
    ///   - tailDecayDecibelsPerSecond: see ``tailDecayDecibelsPerSecond``.
    public init(
        sampleRate: Double, frameLength: Int? = nil, hopLength: Int? = nil,
        array: ArrayModel = ArrayModel(), silenceGateDBFS: Double = -70, coherenceSmoothing: Double = 0.5,
        bands: [BandSpec] = BandSpec.defaults, activity: ActivityConfiguration = ActivityConfiguration(),
        response: TrackerResponse = .balanced, tailDecayDecibelsPerSecond: Double = defaultTailDecayRate
    ) {
        self.tailDecayDecibelsPerSecond = tailDecayDecibelsPerSecond
        self.bands = bands
        self.activity = activity
        self.response = response
        self.coherenceSmoothing = coherenceSmoothing
        self.sampleRate = sampleRate
        let frame = frameLength ?? Self.defaultFrameLength(sampleRate: sampleRate)
        self.frameLength = frame
        self.hopLength = hopLength ?? max(1, frame / 2)
        self.array = array
        self.silenceGateDBFS = silenceGateDBFS
    }

    /// Checks that the settings can be analysed.
    /// - Throws: ``ConfigurationError`` naming the first problem.
    public func validate() throws(ConfigurationError) {
        guard sampleRate.isFinite, sampleRate >= Self.minimumSampleRate else {
            throw .sampleRateTooLow(sampleRate)
        }
        guard sampleRate <= Self.maximumSampleRate else { throw .sampleRateTooHigh(sampleRate) }
        guard frameLength >= 64 else { throw .frameTooShort(frameLength) }
        guard frameLength <= Self.maximumFrameLength else { throw .frameTooLong(frameLength) }
        guard hopLength >= 1, hopLength <= frameLength else { throw .badHop(hopLength, frame: frameLength) }
        guard coherenceSmoothing >= 0, coherenceSmoothing <= 1 else { throw .badSmoothing(coherenceSmoothing) }
        guard tailDecayDecibelsPerSecond.isFinite, tailDecayDecibelsPerSecond >= 0 else { throw .badTailDecayRate(tailDecayDecibelsPerSecond) }
        for band in usableBands where band.high - band.low < 2 * sampleRate / Double(frameLength) {
            throw .bandTooNarrow(band.name, frame: frameLength)
        }
        guard (0...Self.maximumSources).contains(maxSources) else { throw .badMaxSources(maxSources) }
        guard Self.sourceWindowRange.contains(sourceWindowSeconds) else { throw .badSourceWindow(sourceWindowSeconds) }
        if let head = array.measuredHead {
            guard array.kind == .binaural, head.azimuths.count >= 2,
                  head.estimates.count == usableBands.count + 1,
                  head.estimates.allSatisfy({
                      $0.delays.count == head.azimuths.count && $0.lowDelays.count == head.azimuths.count
                          && $0.shares.count == head.azimuths.count && $0.lowShares.count == head.azimuths.count
                          && $0.delaySpreads.count == head.azimuths.count && $0.risingLevels.count == head.azimuths.count
                  })
            else { throw .measuredHeadMismatch(head.name) }
        }
        let maxLag = maximumLagSamples
        guard maxLag * 2 + 8 < Double(frameLength) else {
            throw .frameShorterThanArray(frameLength, maxLagSamples: maxLag)
        }
    }

    /// The bands that will be analysed: ``bands`` without those above 0.45·fs.
    public var usableBands: [BandSpec] { BandSpec.usable(bands, sampleRate: sampleRate) }

    /// The largest lag GCC-PHAT must search, in samples: the array's lag window
    /// (``ArrayModel/lagWindowSeconds``: its largest physical delay, wider for a real head) plus
    /// the calibrated channel delay and ``lagMarginSeconds``, times the sample rate.
    public var maximumLagSamples: Double {
        (array.lagWindowSeconds + abs(array.delayOffsetSeconds) + max(0, lagMarginSeconds)) * sampleRate
    }

    /// Frame duration in seconds.
    public var frameDuration: Double { Double(frameLength) / sampleRate }
    /// Hop duration in seconds.
    public var hopDuration: Double { Double(hopLength) / sampleRate }
}

/// Why an ``AnalysisConfiguration`` cannot be used.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case sampleRateTooLow(Double)
    case sampleRateTooHigh(Double)
    case frameTooShort(Int)
    case frameTooLong(Int)
    case badHop(Int, frame: Int)
    case frameShorterThanArray(Int, maxLagSamples: Double)
    case badSmoothing(Double)
    case bandTooNarrow(String, frame: Int)
    case badTailDecayRate(Double)
    case badMaxSources(Int)
    case badSourceWindow(Double)
    /// A measured head's tables were built for another array kind or band set (see ``MeasuredHead``).
    case measuredHeadMismatch(String)

    public var description: String {
        switch self {
        case .sampleRateTooLow(let rate):
            "sample rate \(formatHertz(rate)) is below the supported minimum of 8000 Hz"
        case .sampleRateTooHigh(let rate):
            "sample rate \(formatHertz(rate)) is above the supported maximum of 768000 Hz"
        case .frameTooShort(let n): "frame of \(n) samples is too short (minimum 64)"
        case .frameTooLong(let n): "frame of \(n) samples is too long (maximum \(AnalysisConfiguration.maximumFrameLength))"
        case .badHop(let hop, let frame): "hop of \(hop) samples must be between 1 and the frame length (\(frame))"
        case .bandTooNarrow(let name, let frame): "band \(name) is narrower than two FFT bins of a \(frame)-sample frame"
        case .badSmoothing(let value): "coherence smoothing \(value) must be between 0 and 1"
        case .badTailDecayRate(let value): "tail decay rate \(value) dB/s must be 0 (off) or positive"
        case .badMaxSources(let n): "maximum source count \(n) must be 0 (off) to \(AnalysisConfiguration.maximumSources)"
        case .badSourceWindow(let s):
            "source window \(s) s must be between \(AnalysisConfiguration.sourceWindowRange.lowerBound) and \(AnalysisConfiguration.sourceWindowRange.upperBound) s"
        case .measuredHeadMismatch(let name):
            "the measured head \(name) was measured for another array or band set; measure it for this configuration"
        case .frameShorterThanArray(let n, let lag):
            "frame of \(n) samples is too short for the array (largest delay \(Int(lag.rounded(.up))) samples)"
        }
    }
}

func formatHertz(_ rate: Double) -> String {
    rate == rate.rounded() && abs(rate) < 1e15 ? "\(Int(rate)) Hz" : "\(rate) Hz"
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
