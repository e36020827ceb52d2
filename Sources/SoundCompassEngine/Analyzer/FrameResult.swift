/// What the analyzer's stages found in one frame, stage by stage: the values that
/// ``StreamingAnalyzer`` hands from one stage to the next, and from which it writes the frame's
/// ``AnalysisRecord`` once, at the end.
///
/// One frame's path (see Docs/Pipeline.md): the broadband estimate (levels, GCC-PHAT, the two
/// cues and their fusion) → activity and the tail weight → the head turn's shift → the
/// broadband tracker → front/back → the bands → the multi-source candidates and tracker →
/// the record. Each stage reads the values of the stages before it from here, never from the
/// record, and the record is not read back.
///
/// The bands' and the sources' results are kept by the analyzer in arrays of their own
/// (reused frame after frame, so the per-frame path does not allocate); they are in the
/// array's frame, before front/back, and the record gets them as the resolved ``hemisphere``
/// puts them.
package struct FrameResult: Sendable {
    /// Index of the frame from the start of the stream (after the last reset).
    package var frame = 0
    /// Time of the frame's centre, seconds, on the analysis's clock.
    package var time = 0.0
    /// The broadband estimate (levels, delay, cues, fusion).
    package var estimate: FrameEstimate
    /// Whether the activity detector marks the frame active.
    package var active = false
    /// The tail weight of the frame (``TailWeighting``), 0…1.
    package var tailWeight = 1.0
    /// The frame's confidence: the fused confidence times the tail weight, 0 when inactive.
    package var confidence = 0.0
    /// The activity detector's noise floor after this frame, dBFS.
    package var noiseFloorDBFS = AnalysisRecord.silenceDBFS
    /// The device's unwrapped yaw at the frame, degrees (nil without an IMU or where it says nothing).
    package var yaw: Double?
    /// The listener's own turning since the last frame as it moves a source across the pair,
    /// degrees (``HeadTurn``), given to both trackers.
    package var shift = 0.0
    /// The tracked azimuth in the array's frame, degrees in [−90, 90] (the raw azimuth while
    /// the tracker has not started).
    package var trackedAzimuth = 0.0
    /// `sin` of the tracked azimuth (the fused lateral value while the tracker has not started).
    package var lateral = 0.0
    /// Front/back: the frame's hemisphere and its azimuth on (−180, 180] (the tracked azimuth
    /// while the hemisphere is unknown).
    package var frontBack: FrontBackResolver.Resolution

    package init(estimate: FrameEstimate) {
        self.estimate = estimate
        self.frontBack = FrontBackResolver.Resolution(hemisphere: .unknown, azimuth: 0)
    }

    /// An azimuth of the array's frame, [−90, 90], as the frame's hemisphere puts it: behind the
    /// pair when the hemisphere is `.back` (the bands hear the same scene as the broadband
    /// estimate; each source has a hemisphere of its own: ``resolved(_:hemisphere:)``).
    package func resolved(_ azimuth: Double) -> Double {
        resolved(azimuth, hemisphere: frontBack.hemisphere)
    }

    /// An azimuth of the array's frame, [−90, 90], as `hemisphere` puts it (a tracked source's
    /// own, ``SourceFrontBack``): behind the pair when it is `.back`.
    package func resolved(_ azimuth: Double, hemisphere: Hemisphere) -> Double {
        hemisphere == .back ? Hemisphere.behind(azimuth) : azimuth
    }

    /// A resolved azimuth turned into the world's frame by the frame's yaw (nil while the
    /// hemisphere is unknown or without a yaw).
    package func worldAzimuth(_ resolvedAzimuth: Double) -> Double? {
        worldAzimuth(resolvedAzimuth, hemisphere: frontBack.hemisphere)
    }

    /// The same for an azimuth resolved by `hemisphere` (a source's own).
    package func worldAzimuth(_ resolvedAzimuth: Double, hemisphere: Hemisphere) -> Double? {
        hemisphere != .unknown ? yaw.map { YawTimeline.wrap(resolvedAzimuth + $0) } : nil
    }
}
