import SoundCompassEngine

/// What shapes an analysis before the sample rate is known: the array, the framing, the gate,
/// the bands and the tracker's response. ``AnalysisSession`` turns it into an
/// ``AnalysisConfiguration`` for its source.
public struct AnalysisSettings: Sendable {
    /// A length given in samples or in milliseconds.
    public enum Length: Sendable, Equatable {
        /// A number of samples (> 0).
        case samples(Int)
        /// A duration in milliseconds (> 0), rounded to whole samples.
        case milliseconds(Double)

        /// The length in samples at `sampleRate` Hz, at least 1 and capped at 2⁶⁰ (far beyond
        /// any valid frame, so absurd values reach the configuration check, which names them,
        /// instead of overflowing).
        public func samples(at sampleRate: Double) -> Int {
            let samples = switch self {
            case .samples(let count): Double(count)
            case .milliseconds(let ms): (ms / 1000 * sampleRate).rounded()
            }
            return Int(max(1, min(samples, Double(1 << 60))))
        }
    }

    /// The nominal array model; replaced by the profile's when ``profilePath`` is given.
    public var array: ArrayModel
    /// A calibration profile (JSON, as `ArrayProfile.json` writes it) whose array model replaces
    /// ``array``; read when the session opens.
    public var profilePath: String?
    /// A measured head (an AES69 SOFA file) whose own delay and level tables replace the
    /// binaural delay law and level model (``MeasuredHead``); built for the source's sample
    /// rate when the session opens. Binaural only.
    public var hrtfPath: String?
    /// Frame length; `nil` for about 43 ms (a power of two).
    public var frameLength: Length?
    /// Hop between frames; `nil` for half a frame.
    public var hopLength: Length?
    /// Frames quieter than this carry no confidence, dBFS.
    public var silenceGateDBFS: Double
    /// Frequency bands for per-band bearings (those above 0.45·fs are dropped).
    public var bands: [BandSpec]
    /// How quickly the tracked azimuth follows.
    public var response: TrackerResponse

    /// Most sources tracked at once (``AnalysisConfiguration/maxSources``), 0…8; 0: none.
    public var maxSources = 3
    /// Window over which the source tracker gathers direction evidence, seconds
    /// (``AnalysisConfiguration/sourceWindowSeconds``, 0.05…5).
    public var sourceWindowSeconds = 0.3
    /// Whether the source tracker also lists a talker beside a steady noise
    /// (``AnalysisConfiguration/hearsBesideSteadySources``; default true).
    public var hearsBesideSteadySources = true
    /// Whether a spaced pair's broadband bearing is corrected for the room's pull
    /// (``AnalysisConfiguration/correctsRoomPull``; an experiment, default false).
    public var correctsRoomPull = false

    /// Where the analysis starts in the input, seconds (the input's own clock: records keep
    /// their time in the input). 0: its start.
    public var startSeconds: Double = 0
    /// Where the analysis ends in the input, seconds; `nil`: its end.
    public var endSeconds: Double?

    public init(
        array: ArrayModel = ArrayModel(), profilePath: String? = nil, frameLength: Length? = nil,
        hopLength: Length? = nil, silenceGateDBFS: Double = -70, bands: [BandSpec] = BandSpec.defaults,
        response: TrackerResponse = .balanced
    ) {
        self.array = array
        self.profilePath = profilePath
        self.frameLength = frameLength
        self.hopLength = hopLength
        self.silenceGateDBFS = silenceGateDBFS
        self.bands = bands
        self.response = response
    }

    /// The analysis settings at `sampleRate` Hz, with `array` (the profile's model) in place of
    /// ``array`` when given. Not validated.
    public func configuration(sampleRate: Double, array model: ArrayModel? = nil) -> AnalysisConfiguration {
        let frame = frameLength?.samples(at: sampleRate)
        let hop = hopLength?.samples(at: sampleRate)
        var configuration = AnalysisConfiguration(
            sampleRate: sampleRate, frameLength: frame, hopLength: hop ?? frame.map { max(1, $0 / 2) },
            array: model ?? array, silenceGateDBFS: silenceGateDBFS, bands: bands, response: response)
        configuration.maxSources = maxSources
        configuration.sourceWindowSeconds = sourceWindowSeconds
        configuration.hearsBesideSteadySources = hearsBesideSteadySources
        configuration.correctsRoomPull = correctsRoomPull
        return configuration
    }
}
