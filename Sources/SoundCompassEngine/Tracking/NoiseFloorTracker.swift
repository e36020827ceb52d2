/// A noise floor learned by minimum statistics from a stream of frame levels, as in hearing-aid
/// noise reduction: the minimum level over the last `window` seconds (kept as eight sub-window
/// minima), plus ``minimumBias`` for the minimum's downward bias on noise. The floor follows
/// that minimum down at once and up at most `riseRate` dB/s. It trains from the first frame:
/// until the window has filled, the minimum so far is used.
///
/// Life cycle: `init` allocates the eight minima; ``update(levelDBFS:)`` never allocates.
struct NoiseFloorTracker: Sendable {
    /// The current floor, dB (the unit of the levels it is given).
    private(set) var floorDBFS: Double = AnalysisRecord.silenceDBFS
    private let framesPerBlock: Int
    private let riseDecibelsPerFrame: Double
    private var blockMinima = [Double](repeating: .infinity, count: 8)
    private var blockIndex = 0
    private var currentMinimum = Double.infinity
    private var framesInBlock = 0
    private var started = false

    /// Bias of a minimum over noise frames below their mean level, dB.
    static let minimumBias = 1.5

    /// - Parameters:
    ///   - window: length of the minimum-statistics window, seconds (> 0).
    ///   - riseRate: fastest rise of the floor, dB per second.
    ///   - hopDuration: seconds between frames.
    init(window: Double, riseRate: Double, hopDuration: Double) {
        framesPerBlock = max(1, Int((window / 8 / hopDuration).rounded()))
        riseDecibelsPerFrame = riseRate * hopDuration
    }

    /// Takes in one frame's level and moves the floor. Never allocates.
    /// - Parameter level: the frame's level, dB.
    mutating func update(levelDBFS level: Double) {
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
            floorDBFS = min(target, floorDBFS + riseDecibelsPerFrame)
        }
    }
}
