import SoundCompassEngine

/// Follows an analysis record by record for a trace: the plot's data, the active segments
/// and the errors against a truth; then writes the plot. Make one with
/// ``AnalysisSession/makeTrace(truth:plotting:)``.
package final class TraceSession {
    /// The recording, for titles and messages.
    package let name: String
    /// The ground truth, when known.
    package let truth: TruthTrack?
    private let recorder: TraceRecorder?
    private var summarizer = SegmentSummarizer()
    /// Active frames with a truth, in time order: signed error and true azimuth.
    /// Only those from `next` on can still fall in a segment.
    private var compared: [(time: Double, error: Double, truth: Double)] = []
    private var next = 0
    /// Reports of the segments closed so far.
    private var reports: [SegmentReport] = []
    /// The tracked sources scored against a per-source truth, when one is set.
    package var sourceScoring: SourceScoring?

    /// - Parameters:
    ///   - name: the recording, for titles and messages.
    ///   - truth: where the sound really was, when known.
    ///   - bandNames: the bands the records carry, in order.
    ///   - plotting: whether to keep the frames for a plot (decimated past an hour and a half).
    package init(name: String, truth: TruthTrack?, bandNames: [String], plotting: Bool) {
        self.name = name
        self.truth = truth
        recorder = plotting ? TraceRecorder(bandNames: bandNames) : nil
    }

    /// Follows one record.
    package func add(_ record: AnalysisRecord) {
        let truthAzimuth = truth?.azimuth(at: record.time)
        recorder?.add(record, truthAzimuth: truthAzimuth)
        summarizer.add(record)
        sourceScoring?.add(record)
        if record.active, let value = truthAzimuth {
            compared.append((record.time, TruthTrack.error(
                azimuth: record.azimuth, truth: value, hemisphereKnown: record.hemisphere != .unknown), value))
        }
        settle()
    }

    /// Ends the analysis: the segments, each with its truth and error when known.
    package func finish() -> [SegmentReport] {
        _ = summarizer.finish()
        settle()
        return reports
    }

    /// Reports the segments the summarizer has closed, and forgets the compared frames no
    /// segment can still take (those before the open segment), so memory follows the
    /// current segment, not the recording.
    private func settle() {
        // Segments and frames are both in time order: one pass over the frames.
        let segments = summarizer.segments
        while reports.count < segments.count {
            let segment = segments[reports.count]
            while next < compared.count && compared[next].time < segment.start { next += 1 }
            var end = next
            while end < compared.count && compared[end].time <= segment.end { end += 1 }
            let inside = compared[next..<end]
            next = end
            reports.append(SegmentReport(
                segment: segment, truthAzimuth: Self.median(inside.map(\.truth)),
                medianError: Self.median(inside.map { abs($0.error) })))
        }
        let keepFrom = summarizer.openSegmentStart ?? .infinity
        while next < compared.count && compared[next].time < keepFrom { next += 1 }
        if next >= 4096 && next * 2 >= compared.count {
            compared.removeFirst(next)
            next = 0
        }
    }

    /// Renders the plot (nothing when the session was not plotting).
    /// - Returns: the SVG document, UTF-8, and the seconds rendering took.
    package func renderPlot(options: TracePlot.Options) -> (svg: [UInt8], seconds: Double)? {
        guard let recorder else { return nil }
        let started = MonotonicClock.now()
        let svg = TracePlot.render(recorder, options: options)
        return (svg, Double(MonotonicClock.now() &- started) * 1e-9)
    }

    private static func median(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : Quantile.interpolated(sorted: values.sorted(), 0.5)
    }
}

/// One active segment of a trace's summary, with the truth when one was given.
package struct SegmentReport: Sendable {
    /// The segment: its span, median azimuth, spread, confidence and dominant band.
    package var segment: ActivitySegment
    /// Median true azimuth over the segment's active frames, degrees.
    package var truthAzimuth: Double?
    /// Median absolute error of the tracked azimuth, degrees.
    package var medianError: Double?

    package init(segment: ActivitySegment, truthAzimuth: Double? = nil, medianError: Double? = nil) {
        self.segment = segment
        self.truthAzimuth = truthAzimuth
        self.medianError = medianError
    }
}
