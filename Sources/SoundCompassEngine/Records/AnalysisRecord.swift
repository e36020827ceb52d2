#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which half-plane the source is in: a two-microphone array alone cannot tell.
public enum Hemisphere: String, Sendable, CaseIterable {
    case front, back, unknown

    /// The bearing behind the pair that gives the same lateral position as `azimuth` (degrees
    /// in [−90, 90]): `±180 − azimuth`, on (−180, 180] (+40 → +140, −40 → −140, 0 → 180).
    package static func behind(_ azimuth: Double) -> Double {
        wrapDegrees(azimuth >= 0 ? 180 - azimuth : -180 - azimuth)
    }
}

/// The estimate of one frequency band in one frame (filled by the band estimator).
public struct BandRecord: Sendable, Equatable {
    /// Band name, e.g. "speech".
    public var name: String
    /// Lower edge, Hz.
    public var lowHz: Double
    /// Upper edge, Hz.
    public var highHz: Double
    /// Band azimuth, degrees (same convention as ``AnalysisRecord/azimuth``).
    public var azimuth: Double
    /// Band confidence, 0…1.
    public var confidence: Double
    /// Band level, dBFS.
    public var levelDBFS: Double
    /// True for the loudest band of an active frame.
    public var loudest: Bool

    public init(
        name: String, lowHz: Double, highHz: Double, azimuth: Double, confidence: Double, levelDBFS: Double,
        loudest: Bool = false
    ) {
        self.loudest = loudest
        self.name = name
        self.lowHz = lowHz
        self.highHz = highHz
        self.azimuth = azimuth
        self.confidence = confidence
        self.levelDBFS = levelDBFS
    }
}

/// What the engine heard in one analysis frame: one output record.
///
/// Every number is finite. Field names in the writers (`time`, `azimuth`, …) are a public
/// contract: other tools read them. See Docs/OutputFormat.md.
public struct AnalysisRecord: Sendable, Equatable {
    /// Index of the frame, from 0.
    public var frame: Int
    /// Centre of the frame in seconds from the first sample, from the sample count.
    public var time: Double
    /// Tracked bearing in degrees: 0 ahead, negative left, positive right; [−90, 90] while
    /// ``hemisphere`` is `.unknown`, (−180, 180] once front/back is resolved. It is the frame's
    /// own azimuth until the tracker has seen a confident frame.
    public var azimuth: Double
    /// The frame's own azimuth before tracking, degrees in [−90, 90]: what the pair measured,
    /// which cannot tell front from back (the records' `raw_azimuth`). See
    /// ``resolvedRawAzimuth`` for it on the side ``hemisphere`` puts the source.
    public var rawAzimuth: Double
    /// `sin(azimuth)` for a frontal source: −1 (hard left) … 1 (hard right).
    public var lateral: Double
    /// Fused confidence, 0…1.
    public var confidence: Double
    /// Broadband level difference, right minus left, dB.
    public var ildDecibels: Double
    /// Time difference, arrival at right minus arrival at left, µs (positive: source on the left).
    public var itdMicroseconds: Double
    /// Frame level, dBFS: mean power of both channels re a full-scale square wave (a full-scale
    /// sine reads −3 dBFS); −160 for digital silence.
    public var levelDBFS: Double
    /// True when the frame holds sound worth a bearing (see ``ActivityDetector``); inactive
    /// frames have zero confidence and do not move the tracker.
    public var active: Bool
    /// Front/back state.
    public var hemisphere: Hemisphere
    /// Confidence of the time cue alone, 0…1.
    public var itdConfidence: Double
    /// Confidence of the level cue alone, 0…1 (0 for the spaced model, which does not use it).
    public var ildConfidence: Double
    /// Strongest frequency of the frame, Hz (interpolated spectral peak; 0 when not active).
    public var dominantHz: Double
    /// The learned noise floor at this frame, dBFS.
    public var noiseFloorDBFS: Double
    /// Per-band estimates (empty when no band estimator runs).
    public var bands: [BandRecord]
    /// Device yaw at the frame's time, degrees on (−180, 180], growing clockwise; `nil` when no
    /// IMU is given or it says nothing near this time.
    public var yaw: Double?
    /// Bearing of the source in the world, relative to yaw 0, degrees on (−180, 180]:
    /// ``azimuth`` plus ``yaw``; `nil` until front/back is resolved.
    public var worldAzimuth: Double?
    /// The sources the multi-source tracker follows, by increasing ``SourceRecord/id`` (at most
    /// ``AnalysisConfiguration/maxSources``; empty when it is 0). The array is reused between
    /// frames, like ``bands``.
    public var sources: [SourceRecord] = []
    /// What the loudest labelled source is (or, with no source heard, the whole mixture), with
    /// classification on; `nil` otherwise. The engine leaves it `nil` (see ``SoundLabel``).
    public var label: SoundLabel?
    /// The bearing of the alerting source (degrees, like ``azimuth``), when a source's label
    /// alerts (``SoundLabel/alert``); `nil` otherwise.
    public var alertAzimuth: Double?
    /// The id of the alerting source (``SourceRecord/id``; 0 for the whole mixture), when
    /// ``alertAzimuth`` is set.
    public var alertSource: Int = 0

    public init(
        frame: Int = 0, time: Double = 0, azimuth: Double = 0, rawAzimuth: Double = 0, lateral: Double = 0,
        confidence: Double = 0,
        ildDecibels: Double = 0, itdMicroseconds: Double = 0, levelDBFS: Double = AnalysisRecord.silenceDBFS,
        active: Bool = false, hemisphere: Hemisphere = .unknown, itdConfidence: Double = 0,
        ildConfidence: Double = 0, dominantHz: Double = 0, noiseFloorDBFS: Double = AnalysisRecord.silenceDBFS,
        bands: [BandRecord] = [], yaw: Double? = nil, worldAzimuth: Double? = nil, sources: [SourceRecord] = []
    ) {
        self.sources = sources
        self.yaw = yaw
        self.worldAzimuth = worldAzimuth
        self.rawAzimuth = rawAzimuth
        self.noiseFloorDBFS = noiseFloorDBFS
        self.dominantHz = dominantHz
        self.frame = frame
        self.time = time
        self.azimuth = azimuth
        self.lateral = lateral
        self.confidence = confidence
        self.ildDecibels = ildDecibels
        self.itdMicroseconds = itdMicroseconds
        self.levelDBFS = levelDBFS
        self.active = active
        self.hemisphere = hemisphere
        self.itdConfidence = itdConfidence
        self.ildConfidence = ildConfidence
        self.bands = bands
    }

    /// The level reported for digital silence, dBFS.
    public static let silenceDBFS = -160.0

    /// ``rawAzimuth`` resolved front/back like ``azimuth``: behind the pair (`±180 − rawAzimuth`,
    /// on (−180, 180]) when ``hemisphere`` is `.back`, as measured otherwise. Summaries and traces
    /// read this, so that a frame's own bearing and the tracked one are on the same side.
    package var resolvedRawAzimuth: Double {
        hemisphere == .back ? Hemisphere.behind(rawAzimuth) : rawAzimuth
    }
}
