/// What a whole signal's records say at a glance: how much of it was active, where the active
/// frames point and how sure the engine was. Made for tests and quick checks; for segments of
/// a long recording see ``SegmentSummarizer``.
public struct AnalysisSummary: Sendable, Equatable {
    /// Frames summarised.
    public var frameCount: Int
    /// Frames marked active (sound above the learned noise floor).
    public var activeFrameCount: Int
    /// Median tracked azimuth of the active frames, degrees (0 ahead, negative left); `nil`
    /// when no frame was active. Behind-resolved azimuths (beyond ±90°) are unwrapped around
    /// their first value before the median is taken, so a source at 180° does not average
    /// to 0°.
    public var medianAzimuth: Double?
    /// Mean confidence of the active frames, 0…1 (0 when none was active).
    public var meanConfidence: Double

    /// Share of the frames that were active, 0…1.
    public var activeShare: Double { frameCount > 0 ? Double(activeFrameCount) / Double(frameCount) : 0 }

    /// Summarises records, in any order.
    /// - Parameter records: the records of one analysis.
    public init(_ records: some Sequence<AnalysisRecord>) {
        var frames = 0
        var azimuths: [Double] = []
        var confidenceSum = 0.0
        for record in records {
            frames += 1
            guard record.active else { continue }
            let reference = azimuths.first ?? record.azimuth
            azimuths.append(reference + YawTimeline.wrap(record.azimuth - reference))
            confidenceSum += record.confidence
        }
        frameCount = frames
        activeFrameCount = azimuths.count
        medianAzimuth = azimuths.isEmpty ? nil : YawTimeline.wrap(Quantile.interpolated(sorted: azimuths.sorted(), 0.5))
        meanConfidence = azimuths.isEmpty ? 0 : confidenceSum / Double(azimuths.count)
    }
}

extension StreamingAnalyzer {
    /// Analyses a whole two-channel signal with a fresh analyzer and summarises it: one call
    /// for tests of the form "a source at +30° reads +30°".
    /// - Parameters:
    ///   - left: left-channel samples, linear full scale.
    ///   - right: right-channel samples, as many as `left`.
    ///   - configuration: analysis settings (sample rate in Hz first of all).
    /// - Returns: the summary of every record.
    /// - Throws: ``ConfigurationError`` when the configuration is invalid.
    public static func summarize(
        left: [Float], right: [Float], configuration: AnalysisConfiguration
    ) throws(ConfigurationError) -> AnalysisSummary {
        AnalysisSummary(try StreamingAnalyzer(configuration: configuration).process(left: left, right: right))
    }
}
