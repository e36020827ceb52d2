import SoundCompassEngine

/// Follows an analysis record by record for a trace: the plot's data, the active segments
/// and the errors against a truth; then writes the plot. Make one with
/// ``AnalysisSession/makeTrace(truth:plotting:)``.
public final class TraceSession {
    /// The recording, for titles and messages.
    public let name: String
    /// The ground truth, when known.
    public let truth: TruthTrack?
    private let recorder: TraceRecorder?
    private var summarizer = SegmentSummarizer()
    /// Active frames with a truth, in time order: signed error and true azimuth.
    private var compared: [(time: Double, error: Double, truth: Double)] = []

    /// - Parameters:
    ///   - name: the recording, for titles and messages.
    ///   - truth: where the sound really was, when known.
    ///   - bandNames: the bands the records carry, in order.
    ///   - plotting: whether to keep every frame for a plot.
    public init(name: String, truth: TruthTrack?, bandNames: [String], plotting: Bool) {
        self.name = name
        self.truth = truth
        recorder = plotting ? TraceRecorder(bandNames: bandNames) : nil
    }

    /// Follows one record.
    public func add(_ record: AnalysisRecord) {
        recorder?.add(record)
        summarizer.add(record)
        if record.active, let truth, let value = truth.azimuth(at: record.time) {
            compared.append((record.time, TruthTrack.error(
                azimuth: record.azimuth, truth: value, hemisphereKnown: record.hemisphere != .unknown), value))
        }
    }

    /// Ends the analysis: the segments, each with its truth and error when known.
    public func finish() -> [SegmentReport] {
        // Segments and frames are both in time order: one pass over the frames.
        var next = 0
        return summarizer.finish().map { segment in
            while next < compared.count && compared[next].time < segment.start { next += 1 }
            var end = next
            while end < compared.count && compared[end].time <= segment.end { end += 1 }
            let inside = compared[next..<end]
            next = end
            return SegmentReport(
                segment: segment, truthAzimuth: Self.median(inside.map(\.truth)),
                medianError: Self.median(inside.map { abs($0.error) }))
        }
    }

    /// Renders the plot (nothing when the session was not plotting).
    /// - Returns: the SVG document, UTF-8, and the seconds rendering took.
    public func renderPlot(options: TracePlot.Options) -> (svg: [UInt8], seconds: Double)? {
        guard let recorder else { return nil }
        let started = MonotonicClock.now()
        let svg = TracePlot.render(recorder, options: options)
        return (svg, Double(MonotonicClock.now() &- started) * 1e-9)
    }

    private static func median(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : interpolatedQuantile(values.sorted(), 0.5)
    }
}

/// One active segment of a trace's summary, with the truth when one was given.
public struct SegmentReport: Sendable {
    /// The segment: its span, median azimuth, spread, confidence and dominant band.
    public var segment: ActivitySegment
    /// Median true azimuth over the segment's active frames, degrees.
    public var truthAzimuth: Double?
    /// Median absolute error of the tracked azimuth, degrees.
    public var medianError: Double?

    public init(segment: ActivitySegment, truthAzimuth: Double? = nil, medianError: Double? = nil) {
        self.segment = segment
        self.truthAzimuth = truthAzimuth
        self.medianError = medianError
    }
}
