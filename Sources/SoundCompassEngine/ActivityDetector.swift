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

    public init(
        marginDecibels: Double = 6, consistencyThreshold: Double = 0.5, hangoverFrames: Int = 2,
        hangoverFactor: Double = 0.8,
        floorWindow: Double = 1.6, floorRiseRate: Double = 3
    ) {
        self.marginDecibels = marginDecibels
        self.consistencyThreshold = consistencyThreshold
        self.hangoverFrames = hangoverFrames
        self.hangoverFactor = hangoverFactor
        self.floorWindow = floorWindow
        self.floorRiseRate = floorRiseRate
    }
}

/// Decides whether a frame holds sound worth a bearing, against a noise floor learned from
/// the signal.
///
/// **Noise floor** by minimum statistics, as in hearing-aid noise reduction: the minimum frame
/// level over the last `floorWindow` seconds (kept as eight sub-window minima), plus 1.5 dB
/// for the minimum's downward bias on noise. The floor follows that minimum down at once and up
/// at most `floorRiseRate` dB/s, so it adapts slowly. It is trained from the first frame on:
/// until the window has filled, the minimum so far is used. A source that starts at once
/// therefore does not become the floor for long: its first pause (or a frame of lower level)
/// pulls the floor down, and a directional source is active meanwhile through its phase
/// consistency.
///
/// **Decision**: active when the frame is above the silence gate and either its level is
/// `marginDecibels` above the floor or its phase consistency (``TimeDelayEstimate/consistency``)
/// is at least `consistencyThreshold`. Unrelated sensor noise in the two channels scores near 0;
/// a sound from one direction, steady or not, near 1. The threshold 0.5 is the point where
/// the directional sound carries half the frame's power: 0 dB local SNR. A hangover of up to
/// `hangoverFrames` frames, with hysteresis, bridges short dips.
package struct ActivityDetector: Sendable {
    /// The settings.
    package let configuration: ActivityConfiguration
    /// The current noise floor estimate, dBFS.
    package private(set) var floorDBFS: Double = AnalysisRecord.silenceDBFS
    private let framesPerBlock: Int
    private let hopDuration: Double
    private var blockMinima = [Double](repeating: .infinity, count: 8)
    private var blockIndex = 0
    private var currentMinimum = Double.infinity
    private var framesInBlock = 0
    private var started = false
    private var hangover = 0

    /// Bias of a minimum over noise frames below their mean level, dB.
    static let minimumBias = 1.5

    /// - Parameters:
    ///   - configuration: the settings.
    ///   - hopDuration: seconds between frames.
    package init(configuration: ActivityConfiguration = ActivityConfiguration(), hopDuration: Double) {
        self.configuration = configuration
        self.hopDuration = hopDuration
        self.framesPerBlock = max(1, Int((configuration.floorWindow / 8 / hopDuration).rounded()))
    }

    /// Forgets the floor and the hangover.
    package mutating func reset() {
        self = ActivityDetector(configuration: configuration, hopDuration: hopDuration)
    }

    /// Updates the floor with one frame and decides whether it is active.
    /// - Parameters:
    ///   - levelDBFS: the frame's level.
    ///   - consistency: the frame's phase consistency, about −0.1…1.
    ///   - aboveGate: whether the frame is above the silence gate.
    /// - Returns: true when the frame is active.
    package mutating func update(levelDBFS level: Double, consistency: Double, aboveGate: Bool) -> Bool {
        // Minimum statistics over eight sub-windows.
        currentMinimum = min(currentMinimum, level)
        framesInBlock += 1
        if framesInBlock == framesPerBlock {
            blockMinima[blockIndex] = currentMinimum
            blockIndex = (blockIndex + 1) % blockMinima.count
            currentMinimum = .infinity
            framesInBlock = 0
        }
        var minimum = currentMinimum
        for value in blockMinima { minimum = min(minimum, value) }
        let target = minimum + Self.minimumBias
        if !started || target < floorDBFS {
            floorDBFS = target
            started = true
        } else {
            floorDBFS = min(target, floorDBFS + configuration.floorRiseRate * hopDuration)
        }

        let detected = aboveGate
            && (level >= floorDBFS + configuration.marginDecibels || consistency >= configuration.consistencyThreshold)
        if detected {
            hangover = configuration.hangoverFrames
            return true
        }
        // Hangover with hysteresis: right after a detection, somewhat weaker evidence keeps the
        // frame active, for a few frames at most.
        let factor = configuration.hangoverFactor
        let weak = aboveGate
            && (level >= floorDBFS + configuration.marginDecibels * factor
                || consistency >= configuration.consistencyThreshold * factor)
        if weak && hangover > 0 {
            hangover -= 1
            return true
        }
        hangover = 0
        return false
    }
}
