/// Settings of the activity detector.
public struct ActivityConfiguration: Sendable, Equatable {
    /// A frame is active when its level stands this far above the noise floor, dB.
    public var marginDecibels: Double
    /// …or when the frame's phase consistency (``TimeDelayEstimate/consistency``) is at least
    /// this: a sound from one direction, steady or not. Unrelated noise gives about 0.
    public var consistencyThreshold: Double
    /// Frames kept active after the last detection (hangover), while the evidence stays above
    /// `hangoverFactor` times the thresholds.
    public var hangoverFrames: Int
    /// Share of the margin and of the consistency threshold that keeps a frame active during the
    /// hangover (hysteresis), 0…1.
    public var hangoverFactor: Double
    /// Length of the minimum-statistics window of the noise floor, seconds.
    public var floorWindow: Double
    /// Fastest rise of the noise floor, dB per second (it falls at once).
    public var floorRiseRate: Double
    /// …or when the frame's level in the speech band (``speechBandLowHertz`` to
    /// ``speechBandHighHertz``) stands this far above that band's own noise floor, dB.
    /// Default `.infinity`: the test is off. 4 dB takes the room evaluation's recall on
    /// reverberant speech at 10–30 dB SNR from 89.0 % to 96.0 %, with 99.2 % of the active
    /// frames on the reverberant source (99.4 % without it), and bearing accuracy scored on the
    /// truth-active frames holds; but in free field (`ActivityTests`, whose truth is a local
    /// full-band SNR ≥ 0 dB) its precision falls to 0.75–0.90, so it stays off (see
    /// Docs/Accuracy.md and Docs/Pipeline.md, "Speech band").
    public var speechBandMarginDecibels: Double
    /// Lower edge of the speech band, Hz (default 100: below the lowest voice pitch).
    public var speechBandLowHertz: Double
    /// Upper edge of the speech band, Hz (default 1000: the first formant and the strong
    /// harmonics of voiced speech); clipped to the Nyquist frequency.
    public var speechBandHighHertz: Double

    public init(
        marginDecibels: Double = 6, consistencyThreshold: Double = 0.5, hangoverFrames: Int = 2,
        hangoverFactor: Double = 0.8,
        floorWindow: Double = 1.6, floorRiseRate: Double = 3,
        speechBandMarginDecibels: Double = .infinity, speechBandLowHertz: Double = 100, speechBandHighHertz: Double = 1000
    ) {
        self.speechBandMarginDecibels = speechBandMarginDecibels
        self.speechBandLowHertz = speechBandLowHertz
        self.speechBandHighHertz = speechBandHighHertz
        self.marginDecibels = marginDecibels
        self.consistencyThreshold = consistencyThreshold
        self.hangoverFrames = hangoverFrames
        self.hangoverFactor = hangoverFactor
        self.floorWindow = floorWindow
        self.floorRiseRate = floorRiseRate
    }
}

/// Decides whether a frame holds sound worth a bearing, against noise floors learned from
/// the signal.
///
/// **Noise floors** by minimum statistics (see ``NoiseFloorTracker``): one of the frame level,
/// one of the level in the speech band (100–1000 Hz by default). A source that starts at once
/// does not become the floor for long: its first pause (or a frame of lower level) pulls the
/// floor down, and a directional source is active meanwhile through its phase consistency.
///
/// **Decision**: active when the frame is above the silence gate and any of these holds:
/// - its level is `marginDecibels` above the floor;
/// - its level in the speech band is `speechBandMarginDecibels` above that band's floor. Voiced
///   speech puts most of its power below 1 kHz, broadband sensor or room noise only a small
///   part: at 16 kHz, white noise has a tenth of its power (−10 dB) in 100–1000 Hz, so the band
///   sees speech about 8 dB further above the noise than the full-band level does;
/// - its phase consistency (``TimeDelayEstimate/consistency``) is at least
///   `consistencyThreshold`. Unrelated sensor noise in the two channels scores near 0; a sound
///   from one direction, steady or not, near 1. The threshold 0.5 is the point where the
///   directional sound carries half the frame's power: 0 dB local SNR.
///
/// A hangover of up to `hangoverFrames` frames, with hysteresis, bridges short dips.
package struct ActivityDetector: Sendable {
    /// The settings.
    package let configuration: ActivityConfiguration
    /// The current noise floor estimate of the frame level, dBFS.
    package var floorDBFS: Double { floor.floorDBFS }
    /// The current noise floor estimate of the speech-band level (same scale as the level given).
    package var speechBandFloorDBFS: Double { speechBandFloor.floorDBFS }
    private let hopDuration: Double
    private var floor: NoiseFloorTracker
    private var speechBandFloor: NoiseFloorTracker
    private var hangover = 0

    /// - Parameters:
    ///   - configuration: the settings.
    ///   - hopDuration: seconds between frames.
    package init(configuration: ActivityConfiguration = ActivityConfiguration(), hopDuration: Double) {
        self.configuration = configuration
        self.hopDuration = hopDuration
        // Two trackers of their own (not a copy sharing its minima until the first write).
        floor = NoiseFloorTracker(window: configuration.floorWindow, riseRate: configuration.floorRiseRate, hopDuration: hopDuration)
        speechBandFloor = NoiseFloorTracker(
            window: configuration.floorWindow, riseRate: configuration.floorRiseRate, hopDuration: hopDuration)
    }

    /// Forgets the floors and the hangover.
    package mutating func reset() {
        self = ActivityDetector(configuration: configuration, hopDuration: hopDuration)
    }

    /// Updates the floors with one frame and decides whether it is active. Never allocates.
    /// - Parameters:
    ///   - levelDBFS: the frame's level.
    ///   - speechBandLevelDBFS: the frame's level in the speech band (any fixed dB scale).
    ///   - consistency: the frame's phase consistency, about −0.1…1.
    ///   - aboveGate: whether the frame is above the silence gate.
    /// - Returns: true when the frame is active.
    package mutating func update(
        levelDBFS level: Double, speechBandLevelDBFS band: Double, consistency: Double, aboveGate: Bool
    ) -> Bool {
        floor.update(levelDBFS: level)
        speechBandFloor.update(levelDBFS: band)
        let c = configuration
        func evidence(_ factor: Double) -> Bool {
            aboveGate
                && (level >= floor.floorDBFS + c.marginDecibels * factor
                    || band >= speechBandFloor.floorDBFS + c.speechBandMarginDecibels * factor
                    || consistency >= c.consistencyThreshold * factor)
        }
        if evidence(1) {
            hangover = c.hangoverFrames
            return true
        }
        // Hangover with hysteresis: right after a detection, somewhat weaker evidence keeps the
        // frame active, for a few frames at most.
        if hangover > 0 && evidence(c.hangoverFactor) {
            hangover -= 1
            return true
        }
        hangover = 0
        return false
    }
}
