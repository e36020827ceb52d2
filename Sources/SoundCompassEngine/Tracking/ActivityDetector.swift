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
    /// ``speechBandHighHertz``) stands this far above that band's own noise floor, dB
    /// (`.infinity` turns the test off). Default 4: in the room evaluation it takes the recall
    /// on reverberant speech at 10–30 dB SNR from 89.0 % to 96.0 % (5–30 dB: 79.9 % to 92.8 %),
    /// with 99.3 % of the active frames on the reverberant source (99.4–99.5 % without it);
    /// 3, 5 and 6 dB give 94.0, 91.4 and 90.0 % at 5–30 dB (Docs/Accuracy.md, "Activity").
    public var speechBandMarginDecibels: Double
    /// Lower edge of the speech band, Hz (default 100: below the lowest voice pitch).
    public var speechBandLowHertz: Double
    /// Upper edge of the speech band, Hz (default 1000: the first formant and the strong
    /// harmonics of voiced speech); clipped to the Nyquist frequency.
    public var speechBandHighHertz: Double
    /// Share of its confidence that a frame active by the speech band's test alone keeps, 0…1
    /// (the frame is active, but level and phase consistency alone would not have marked it,
    /// hangover included). Default 0: such a frame is speech mostly below 1 kHz under noise
    /// that rules the rest of the spectrum, so its broadband bearing is mostly the noise's (in
    /// the room evaluation at 0 dB SNR, a median error of 37–39° and 13–16 % within 10° for
    /// talkers at ±60°); it is marked active but does not move the trackers. At 1, the rows of
    /// Docs/Accuracy.md move by −6.5° to +0.5° (RT60 0.4 s, 0 dB: 9.3° → 9.8°).
    public var speechBandOnlyWeight: Double

    public init(
        marginDecibels: Double = 6, consistencyThreshold: Double = 0.5, hangoverFrames: Int = 2,
        hangoverFactor: Double = 0.8,
        floorWindow: Double = 1.6, floorRiseRate: Double = 3,
        speechBandMarginDecibels: Double = 4, speechBandLowHertz: Double = 100, speechBandHighHertz: Double = 1000,
        speechBandOnlyWeight: Double = 0
    ) {
        self.speechBandOnlyWeight = speechBandOnlyWeight
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
///
/// The same decision is also kept without the speech band (its own hangover): a frame active
/// only thanks to the band is flagged (``activeByBandOnly``), and its confidence for the
/// trackers is scaled by `speechBandOnlyWeight`.
package struct ActivityDetector: Sendable {
    /// The settings.
    package let configuration: ActivityConfiguration
    /// The current noise floor estimate of the frame level, dBFS.
    package var floorDBFS: Double { floor.floorDBFS }
    /// The current noise floor estimate of the speech-band level (same scale as the level given).
    package var speechBandFloorDBFS: Double { speechBandFloor.floorDBFS }
    /// Whether the last frame was active by the speech band's test alone: the decision without
    /// the band (level and phase consistency, with their own hangover) left it inactive. False
    /// for an inactive frame.
    package private(set) var activeByBandOnly = false
    private let hopDuration: Double
    private var floor: NoiseFloorTracker
    private var speechBandFloor: NoiseFloorTracker
    private var hangover = 0
    private var hangoverWithoutBand = 0

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
        let floorDBFS = floor.floorDBFS, bandFloorDBFS = speechBandFloor.floorDBFS
        let byBand = Self.decide(
            hangover: &hangover, frames: c.hangoverFrames, factor: c.hangoverFactor,
            evidence: { factor in
                aboveGate
                    && (level >= floorDBFS + c.marginDecibels * factor
                        || consistency >= c.consistencyThreshold * factor
                        || band >= bandFloorDBFS + c.speechBandMarginDecibels * factor)
            })
        // The same decision without the speech band (its own hangover): what level and phase
        // consistency alone would say.
        let withoutBand = Self.decide(
            hangover: &hangoverWithoutBand, frames: c.hangoverFrames, factor: c.hangoverFactor,
            evidence: { factor in
                aboveGate
                    && (level >= floorDBFS + c.marginDecibels * factor
                        || consistency >= c.consistencyThreshold * factor)
            })
        // Every frame the second decision marks the first marks too (its evidence is a subset,
        // so its hangover never outlasts the first's).
        activeByBandOnly = byBand && !withoutBand
        return byBand
    }

    /// One activity decision with hangover and hysteresis: active when `evidence(1)` holds;
    /// right after a detection, for up to `frames` frames, while `evidence(factor)` holds.
    private static func decide(
        hangover: inout Int, frames: Int, factor: Double, evidence: (Double) -> Bool
    ) -> Bool {
        if evidence(1) {
            hangover = frames
            return true
        }
        if hangover > 0 && evidence(factor) {
            hangover -= 1
            return true
        }
        hangover = 0
        return false
    }
}
