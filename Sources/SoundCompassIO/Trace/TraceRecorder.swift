import SoundCompassEngine
/// Keeps what a trace plot draws of the analysis frames, in memory that stops growing:
/// every frame exactly up to ``exactFrameLimit`` frames (single-precision columns, about
/// 70 bytes a frame with four bands: 18 MB at the limit, 93 minutes at a 21 ms hop), and for
/// any length the frames decimated into a few thousand time buckets (about 7 MB, 1 MB of it
/// the tracked sources). A longer
/// recording drops the exact frames and is drawn from the buckets.
public final class TraceRecorder {
    /// Band names, in record order.
    public let bandNames: [String]

    /// Frames kept exactly at most; past it the plot is drawn from the buckets (a recording
    /// of up to 93 minutes at a 21.3 ms hop plots exactly as it always has).
    public static let exactFrameLimit = 1 << 18

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
    /// True once any frame had a tracked source (``AnalysisRecord/sources``) heard.
    public var hasSources: Bool { decimation.sources.hasSources }

    /// Where a source's label changed (with `--classify`): drawn along its track. At most
    /// ``labelEventLimit`` are kept (a label changes at most once per 0.48 s patch).
    package private(set) var labelEvents: [(time: Float, id: Int32, azimuth: Float, name: String)] = []
    /// Most label changes kept for the plot.
    static let labelEventLimit = 4000
    /// The last label seen per source id (ids are small and increasing).
    private var lastLabels: [Int32: String] = [:]
    /// True once the frames outgrew ``frameLimit`` and only the buckets are kept.
    public private(set) var isDecimated = false

    /// Every frame, in buckets (what a long recording is drawn from).
    private(set) var decimation: TraceDecimation
    /// |ILD| of active frames, dB; level above −159 dBFS; |error| of active frames with a truth, degrees.
    private(set) var ildMagnitudes = BinnedQuantile(low: 0, high: 100, binWidth: 0.01)
    private(set) var levels = BinnedQuantile(low: -160, high: 20, binWidth: 0.01)
    private(set) var errorMagnitudes = BinnedQuantile(low: 0, high: 180, binWidth: 0.01)
    /// Whether any frame came with a true azimuth.
    private(set) var hasTruth = false
    /// Time of the first two frames (the hop), and of the last, seconds.
    private(set) var firstTimes: [Float] = []
    private(set) var lastTime: Float = 0

    /// A band's azimuth is drawn where its confidence is at least this.
    public static let bandConfidence: Float = 0.3

    /// Frames kept exactly at most, for this recorder (default ``exactFrameLimit``).
    public let frameLimit: Int

    /// - Parameters:
    ///   - bandNames: the bands the records carry, in order.
    ///   - frameLimit: frames kept exactly at most (default ``exactFrameLimit``).
    public init(bandNames: [String], frameLimit: Int = TraceRecorder.exactFrameLimit) {
        self.bandNames = bandNames
        self.frameLimit = frameLimit
        bandAzimuth = bandNames.map { _ in [] }
        decimation = TraceDecimation(bandCount: bandNames.count)
    }

    /// Frames recorded.
    public private(set) var count = 0
    /// Time of the last frame, seconds (0 with none).
    public var duration: Double { Double(lastTime) }
    /// Frames kept exactly (all of them, or none once decimated).
    var storedCount: Int { time.count }

    /// Keeps `record`.
    /// - Parameter truthAzimuth: where the sound really was at the record's time, degrees, when
    ///   known: a long recording's truth line and errors are kept from it (a short one's are
    ///   drawn from the plot's ``TracePlot/Options/truth``).
    public func add(_ record: AnalysisRecord, truthAzimuth: Double? = nil) {
        let t = Float(record.time)
        count += 1
        lastTime = t
        if firstTimes.count < 2 { firstTimes.append(t) }
        if record.yaw != nil { hasOrientation = true }
        if record.hemisphere != .unknown { hasResolvedHemisphere = true }
        let bands = bandAzimuth.indices.map { i -> Float in
            let band = i < record.bands.count ? record.bands[i] : nil
            let shown = band.map { record.active && Float($0.confidence) >= Self.bandConfidence } ?? false
            return shown ? Float(band!.azimuth) : .nan
        }
        addToBuckets(record, time: t, bands: bands, truthAzimuth: truthAzimuth)
        guard !isDecimated else { return }
        if count > frameLimit {
            dropExactFrames()
            return
        }
        time.append(t)
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
        for i in bandAzimuth.indices { bandAzimuth[i].append(bands[i]) }
    }

    private func addToBuckets(_ record: AnalysisRecord, time t: Float, bands: [Float], truthAzimuth: Double?) {
        let i = decimation.bucket(for: Double(t))
        let active = record.active
        let az = Float(record.azimuth)
        if !decimation.firstTime[i].isFinite { decimation.firstTime[i] = t }
        decimation.lastTime[i] = t
        decimation.azimuth.buckets[i].add(az)
        decimation.tracked.buckets[i].add(active ? az : .nan)
        decimation.ild.buckets[i].add(active ? Float(record.ildDecibels) : .nan)
        decimation.itd.buckets[i].add(active ? Float(record.itdMicroseconds) : .nan)
        decimation.level.buckets[i].add(Float(record.levelDBFS))
        decimation.noiseFloor.buckets[i].add(Float(record.noiseFloorDBFS))
        decimation.yaw.buckets[i].add(record.yaw.map(Float.init) ?? .nan)
        for b in bands.indices { decimation.bands[b].buckets[i].add(bands[b]) }
        for source in record.sources where source.active {
            decimation.sources.add(bucket: i, id: source.id, azimuth: source.azimuth)
            if let label = source.label, lastLabels[Int32(source.id)] != label.name, labelEvents.count < Self.labelEventLimit {
                lastLabels[Int32(source.id)] = label.name
                labelEvents.append((t, Int32(source.id), Float(source.azimuth), label.name))
            }
        }
        switch record.hemisphere {
        case .front: decimation.hemisphereCounts[i].front += 1
        case .back: decimation.hemisphereCounts[i].back += 1
        default: decimation.hemisphereCounts[i].unknown += 1
        }
        if Float(record.levelDBFS) > -159 { levels.add(Double(Float(record.levelDBFS))) }
        if let truthAzimuth {
            hasTruth = true
            decimation.truth.buckets[i].add(Float(truthAzimuth))
        } else {
            decimation.truth.buckets[i].add(.nan)
        }
        var error = Float.nan
        if active {
            if !decimation.firstActive[i].isFinite { decimation.firstActive[i] = t }
            decimation.lastActive[i] = t
            ildMagnitudes.add(abs(Double(Float(record.ildDecibels))))
            let raw = Double(Float(record.resolvedRawAzimuth))
            let bin = i * TraceDecimation.azimuthBins + Int((max(-180, min(180, raw)) + 180).rounded())
            let shade = UInt8(1 + 254 * max(0, min(1, Float(record.confidence))))
            decimation.dots[bin] = max(decimation.dots[bin], shade)
            if let truthAzimuth {
                error = Float(TruthTrack.error(
                    azimuth: Double(az), truth: truthAzimuth, hemisphereKnown: record.hemisphere != .unknown))
                errorMagnitudes.add(abs(Double(error)))
            }
        }
        decimation.error.buckets[i].add(error)
    }

    private func dropExactFrames() {
        isDecimated = true
        time = []; azimuth = []; rawAzimuth = []; confidence = []; ild = []; itd = []; level = []
        noiseFloor = []; active = []; hemisphere = []; yaw = []
        bandAzimuth = bandNames.map { _ in [] }
    }
}
