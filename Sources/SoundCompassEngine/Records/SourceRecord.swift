/// One tracked source in one frame: an entry of ``AnalysisRecord/sources`` (filled by the
/// multi-source tracker, see ``AnalysisConfiguration/maxSources``).
public struct SourceRecord: Sendable, Equatable {
    /// The source's number: 1 for the first source of a run, then increasing. No two sources of
    /// a record share one. A source that falls silent for longer than the tracker's timeout
    /// (1.5 s) is dropped; a source that appears within 12° of where it was last heard, or of
    /// where its velocity would have carried it in up to 2 s, within 30 s, takes its id back: a
    /// talker who pauses between sentences keeps one id.
    public var id: Int
    /// Smoothed bearing, degrees, same convention as ``AnalysisRecord/azimuth``: [−90, 90]
    /// while the source's own ``hemisphere`` is `.unknown`, behind the pair when it is `.back`.
    public var azimuth: Double
    /// How sure the tracker is of the source, 0…1: its share of the recent direction evidence,
    /// falling while it is not heard.
    public var confidence: Double
    /// Estimated level of the source, dBFS: the frame level (averaged over the candidate window)
    /// times the source's share of the direction evidence.
    public var levelDBFS: Double
    /// True while the source is heard (its direction showed up in the last frames); a source
    /// that pauses stays in the list, inactive, until the tracker's timeout.
    public var active: Bool
    /// Bearing in the world, relative to yaw 0, degrees on (−180, 180]: ``azimuth`` plus the
    /// record's yaw; `nil` until the source's front/back is resolved.
    public var worldAzimuth: Double?
    /// What the source is, from its own sound (the bins of the mixture that point at it),
    /// with classification on; `nil` otherwise and until its first classified patch.
    public var label: SoundLabel?
    /// The source's own front/back, resolved from how its bearing moves as the listener turns
    /// (with an IMU log; `.unknown` without one, or until it is resolved). ``azimuth`` is
    /// behind the pair when it is `.back`.
    public var hemisphere: Hemisphere = .unknown

    public init(
        id: Int, azimuth: Double, confidence: Double, levelDBFS: Double, active: Bool, worldAzimuth: Double? = nil
    ) {
        self.id = id
        self.azimuth = azimuth
        self.confidence = confidence
        self.levelDBFS = levelDBFS
        self.active = active
        self.worldAzimuth = worldAzimuth
    }
}
