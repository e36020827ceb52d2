/// One stretch of activity in a recording, summarised: where the sound was and how sure the
/// engine was.
public struct ActivitySegment: Sendable, Equatable {
    /// First active frame's time, seconds (frame centre).
    public var start: Double
    /// Last active frame's time, seconds (frame centre).
    public var end: Double
    /// Active frames in the segment.
    public var frames: Int
    /// Median azimuth of the confident frames, degrees (the tracked azimuth when none is
    /// confident). Frames placed behind by front/back resolution count behind.
    public var medianAzimuth: Double
    /// Spread of the confident frames' azimuths: the interquartile range, degrees (0 with
    /// fewer than two confident frames).
    public var spread: Double
    /// Mean fused confidence of the active frames, 0…1.
    public var meanConfidence: Double
    /// Confident frames (confidence ≥ ``SegmentSummarizer/minimumConfidence``).
    public var confidentFrames: Int
    /// The band that was loudest in most frames, or `nil` without bands.
    public var dominantBand: String?
}

/// Cuts a stream of records into ``ActivitySegment``s: runs of active frames, with pauses
/// shorter than ``bridge`` (between words and short phrases) bridged — unless the sound after
/// the pause comes from elsewhere (more than ``jump`` from the last confident frames): then a
/// new segment starts. A source that moves without pausing stays one segment.
///
/// Memory is bounded: the current segment's azimuths (for the median and spread) are kept
/// exactly up to ``keptAzimuths`` frames (23 minutes at a 21 ms hop), then as an evenly
/// spaced subsample of them; the finished segments take about 100 bytes each.
public struct SegmentSummarizer: Sendable {
    /// Pauses up to this long, seconds, do not end a segment (default 0.5 s).
    public var bridge: Double
    /// Segments shorter than this, seconds, are dropped as clicks (default 0.1 s).
    public var minimumDuration: Double
    /// A confident frame after a pause that is further than this from the mean of the last few
    /// confident frames, degrees, starts a new segment (default 20°).
    public var jump: Double
    /// Frames at least this confident count for the median and spread (the engine's threshold
    /// for a confident frame, as for the tracker and calibration).
    public static let minimumConfidence = ConfidenceMapping.confident
    /// Azimuths of a segment kept exactly at most; a longer segment keeps every second, then
    /// every fourth, … (its median and spread then come from that subsample).
    public static let keptAzimuths = 1 << 16

    /// Start of the segment being built, seconds (`nil` between segments).
    public var openSegmentStart: Double? { start }

    private var start: Double?
    private var end = 0.0
    private var frames = 0
    private var confidenceSum = 0.0
    private var azimuths = Subsample(limit: keptAzimuths)
    private var tracked = Subsample(limit: keptAzimuths)
    private var loudestCounts: [String: Int] = [:]

    /// Segments finished so far.
    public private(set) var segments: [ActivitySegment] = []

    private var recent: [Double] = []
    private var pausedSinceConfident = false

    public init(bridge: Double = 0.5, minimumDuration: Double = 0.1, jump: Double = 20) {
        self.bridge = bridge
        self.jump = jump
        self.minimumDuration = minimumDuration
    }

    /// Takes the next record.
    public mutating func add(_ record: AnalysisRecord) {
        if start != nil, record.time - end > bridge { close() }
        guard record.active else { return }
        let azimuth = record.resolvedRawAzimuth
        let confident = record.confidence >= Self.minimumConfidence
        if start != nil, record.time - end > Self.pause { pausedSinceConfident = true }
        if confident && pausedSinceConfident && recent.count >= 3 {
            let mean = recent.reduce(0) { $0 + YawTimeline.wrap($1 - recent[0]) } / Double(recent.count) + recent[0]
            if abs(YawTimeline.wrap(azimuth - mean)) > jump { close() }
        }
        if confident {
            pausedSinceConfident = false
            recent.append(azimuth)
            if recent.count > 5 { recent.removeFirst() }
        }
        if start == nil { start = record.time }
        end = record.time
        frames += 1
        confidenceSum += record.confidence
        tracked.add(record.azimuth)
        if confident { azimuths.add(azimuth) }
        if let loudest = record.bands.first(where: \.loudest) { loudestCounts[loudest.name, default: 0] += 1 }
    }

    /// Ends the stream: closes the open segment and returns every segment.
    public mutating func finish() -> [ActivitySegment] {
        close()
        return segments
    }

    /// A gap between active frames longer than this, seconds, is a pause.
    static let pause = 0.06

    private mutating func close() {
        defer {
            start = nil
            recent.removeAll(keepingCapacity: true)
            pausedSinceConfident = false
            frames = 0
            confidenceSum = 0
            azimuths.removeAll()
            tracked.removeAll()
            loudestCounts.removeAll(keepingCapacity: true)
        }
        guard let start, end - start >= minimumDuration else { return }
        let values = azimuths.seen == 0 ? tracked.values : azimuths.values
        // Unwrap around the first value so a source behind (±180°) does not split in two.
        let reference = values[0]
        let unwrapped = values.map { reference + YawTimeline.wrap($0 - reference) }.sorted()
        func quantile(_ q: Double) -> Double { Quantile.interpolated(sorted: unwrapped, q) }
        let dominant = loudestCounts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        segments.append(ActivitySegment(
            start: start, end: end, frames: frames, medianAzimuth: YawTimeline.wrap(quantile(0.5)),
            spread: azimuths.seen >= 2 ? quantile(0.75) - quantile(0.25) : 0,
            meanConfidence: confidenceSum / Double(frames), confidentFrames: azimuths.seen,
            dominantBand: dominant))
    }
}

/// Every value up to `limit`, then an evenly spaced subsample: every second, every fourth, …
private struct Subsample: Sendable {
    let limit: Int
    private(set) var values: [Double] = []
    /// Values offered.
    private(set) var seen = 0
    private var stride = 1

    init(limit: Int) { self.limit = limit }

    mutating func add(_ value: Double) {
        defer { seen += 1 }
        guard seen % stride == 0 else { return }
        values.append(value)
        if values.count >= limit {
            var kept = 0
            for i in Swift.stride(from: 0, to: values.count, by: 2) { values[kept] = values[i]; kept += 1 }
            values.removeLast(values.count - kept)
            stride *= 2
        }
    }

    mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        seen = 0
        stride = 1
    }
}
