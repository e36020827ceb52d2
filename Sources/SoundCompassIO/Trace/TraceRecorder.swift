import SoundCompassEngine
/// Keeps what a trace plot draws of every analysis frame, compactly (single-precision
/// columns, about 70 bytes a frame with four bands: 12 MB for an hour at a 21 ms hop).
public final class TraceRecorder {
    /// Band names, in record order.
    public let bandNames: [String]

    var time: [Float] = []
    var azimuth: [Float] = []
    var rawAzimuth: [Float] = []
    var confidence: [Float] = []
    var ild: [Float] = []
    var itd: [Float] = []
    var level: [Float] = []
    var noiseFloor: [Float] = []
    var active: [Bool] = []
    var hemisphere: [Hemisphere] = []
    /// NaN where no yaw is known.
    var yaw: [Float] = []
    /// Per band: azimuth, NaN where the band is not confident.
    var bandAzimuth: [[Float]]
    /// True once any frame had an IMU yaw.
    public private(set) var hasOrientation = false
    /// True once any frame's hemisphere was resolved.
    public private(set) var hasResolvedHemisphere = false

    /// A band's azimuth is drawn where its confidence is at least this.
    public static let bandConfidence: Float = 0.3

    /// - Parameter bandNames: the bands the records carry, in order.
    public init(bandNames: [String]) {
        self.bandNames = bandNames
        bandAzimuth = bandNames.map { _ in [] }
    }

    /// Frames recorded.
    public var count: Int { time.count }
    /// Time of the last frame, seconds (0 with none).
    public var duration: Double { Double(time.last ?? 0) }

    /// Keeps `record`.
    public func add(_ record: AnalysisRecord) {
        time.append(Float(record.time))
        azimuth.append(Float(record.azimuth))
        rawAzimuth.append(Float(record.resolvedRawAzimuth))
        confidence.append(Float(record.confidence))
        ild.append(Float(record.ildDecibels))
        itd.append(Float(record.itdMicroseconds))
        level.append(Float(record.levelDBFS))
        noiseFloor.append(Float(record.noiseFloorDBFS))
        active.append(record.active)
        hemisphere.append(record.hemisphere)
        yaw.append(record.yaw.map(Float.init) ?? .nan)
        if record.yaw != nil { hasOrientation = true }
        if record.hemisphere != .unknown { hasResolvedHemisphere = true }
        for i in bandAzimuth.indices {
            let band = i < record.bands.count ? record.bands[i] : nil
            let shown = band.map { record.active && Float($0.confidence) >= Self.bandConfidence } ?? false
            bandAzimuth[i].append(shown ? Float(band!.azimuth) : .nan)
        }
    }
}
