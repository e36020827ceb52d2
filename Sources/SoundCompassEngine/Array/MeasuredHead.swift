#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One direction of a measured head: the two ears' impulse responses for a far source at an
/// azimuth in the horizontal plane.
public struct HeadImpulseResponse: Sendable, Equatable {
    /// Degrees, −90…90 (0 ahead, negative left).
    public var azimuthDegrees: Double
    /// Left ear's impulse response, at the analysis sample rate.
    public var left: [Float]
    /// Right ear's impulse response, at the analysis sample rate.
    public var right: [Float]

    public init(azimuthDegrees: Double, left: [Float], right: [Float]) {
        self.azimuthDegrees = azimuthDegrees
        self.left = left
        self.right = right
    }
}

/// A measured head's own interaural delay and level against azimuth, as the engine's own
/// estimators read them, for one analysis configuration (its sample rate, framing and bands):
/// the binaural model's tables when `--hrtf` gives a head (``ArrayModel/measuredHead``).
///
/// **Building** (``measure(name:impulseResponses:configuration:)``): seeded noise is rendered
/// through each direction's impulse responses (circular convolution over a 16384-sample period)
/// and analysed by the engine itself (``StreamingAnalyzer`` with the binaural model); the median
/// over the frames of each estimate's delay, low-frequency share and level difference goes in
/// the table. Each estimate is the broadband one (``estimates``[0]) or one band's (``estimates``[1…]).
/// Two noises are rendered, each over an uncorrelated sensor floor 30 dB down (a usual
/// recording's): white, and speech-shaped (the long-term speech spectrum's outline,
/// ``speechShapeGain(frequencyHz:)``), whose bins above a few kHz the floor leaves with little
/// coherence, as it does speech's, so that its delays lean towards the low and middle
/// frequencies. A real head's delay depends on frequency (larger at low frequencies, and not in
/// the same proportion at every azimuth), so a sound's broadband delay depends on its spectrum;
/// the two renders give each direction's delay at two low-frequency shares (the engine's own
/// measure of that lean, ``FrameSpectra/lowFrequencyShare(shares:bins:lagSamples:)``), and a
/// measurement is read at its own share by linear interpolation between them, clamped to the
/// two. (Until issue 31's second round the second render was pink noise, whose share is within
/// a few thousandths of white's: speech, whose share and delays lie well beyond both, read
/// 1–2° too far out at 25–55° and up to 7.5° off at the sides. `soundcompass head` prints both
/// renders.)
///
/// **Reading the delays together**
/// (``lateral(broadband:levelDBFS:bands:delayOffsetSeconds:outlierSpanSeconds:gateDBFS:)``, what
/// the tracked azimuth uses when there are bands): the azimuth at which the broadband delay and
/// every band's, each read against its own table at its own low-frequency share, are likeliest,
/// each peak the source's with its time confidence and then spread about its table by its
/// spread at that azimuth (``Estimate/delaySpreads``), and otherwise anywhere in the lag range;
/// the likely peaks are then fitted in weighted least squares. A head's delay depends on frequency,
/// and not alike at every azimuth (near the side KEMAR's 500–3000 Hz delay is 30 µs below its
/// 3–8 kHz one), so a broadband delay depends on the sound's spectrum in a way no single share
/// captures; a band's delay depends on it far less, and where one delay is flat or folds back
/// in azimuth (every head's near ±90°, a listener's broadband delay at 60–65°) the others
/// still rise. In a room the bands' peaks are less sure than the broadband one, which pools
/// every bin, and now and then a reflection's or an aliased one: each counts by its own
/// confidence, and one far from every azimuth the others agree on is set aside.
///
/// **Reading one estimate** (``lateral(delay:lowFrequencyShare:estimate:)``): each render's delay path `−τ`
/// is made monotonic in azimuth (pool-adjacent-violators) when built; a measured delay is
/// inverted by a linear search and linear interpolation between the two bracketing azimuths
/// (the middle of a flat stretch, such as KEMAR's from 85° to 90°, where the delay cannot tell
/// the azimuths apart). Levels are
/// inverted on the rising part around the front (``lateral(levelDifference:estimate:)``). The
/// reads never allocate.
public struct MeasuredHead: Sendable, Equatable {
    /// Where the head came from (a path), for messages.
    public var name: String
    /// The measured azimuths, degrees, ascending, within −90…90.
    public var azimuths: [Double]
    /// The tables of each estimate: the broadband one first, then one per band, in the order
    /// of ``AnalysisConfiguration/usableBands``.
    public var estimates: [Estimate]

    /// One estimate's tables, one value per azimuth.
    public struct Estimate: Sendable, Equatable {
        /// "broadband" or the band's name.
        public var name: String
        /// White noise: the delay (right minus left, seconds), made monotonic.
        public var delays: [Double]
        /// White noise: the low-frequency share the delay was read at.
        public var shares: [Double]
        /// Speech-shaped noise: the delay, seconds, made monotonic.
        public var lowDelays: [Double]
        /// Speech-shaped noise: its low-frequency share.
        public var lowShares: [Double]
        /// How far this estimate's delay strays from the tables at each azimuth, seconds: the
        /// spread a reading of it is given when the frame's delays are read together
        /// (``lateral(broadband:levelDBFS:bands:delayOffsetSeconds:outlierSpanSeconds:gateDBFS:)``). The root sum
        /// of squares of a floor of 0.1 sample (the sub-sample peak's resolution), the frames'
        /// own spread (1.4826 × their median absolute deviation, the larger of the two
        /// renders'), the two renders' difference (how far the delay moves with the sound's
        /// spectrum) and the table's departure from its measured value where it was made
        /// monotonic; for the broadband estimate also the standard deviation of the white-noise
        /// delays of the bands above the low-frequency regime (mean share below 0.5), which it mixes.
        public var delaySpreads: [Double]
        /// White noise: the level difference (right minus left), dB.
        public var levels: [Double]
        /// The rising part of ``levels`` around the front (made monotonic), from index
        /// ``levelFirst`` to ``levelLast``.
        public var risingLevels: [Double]
        public var levelFirst: Int
        public var levelLast: Int
    }

    public init(name: String, azimuths: [Double], estimates: [Estimate]) {
        self.name = name
        self.azimuths = azimuths
        self.estimates = estimates
    }

    // MARK: - Reading

    /// Estimate `e`'s delay path `−τ` (seconds) at azimuth index `j` for a measurement of
    /// low-frequency share `share`: between the white and the speech-shaped render's, by the
    /// share, clamped to the two.
    @inline(__always)
    static func path(_ e: Estimate, _ j: Int, share: Double) -> Double {
        let white = e.delays[j], speech = e.lowDelays[j]
        let span = e.lowShares[j] - e.shares[j]
        guard abs(span) > 1e-4 else { return -white }
        let t = max(0, min(1, (share - e.shares[j]) / span))
        return -(white + t * (speech - white))
    }

    /// Points searched in each stretch between two measured azimuths (its start and three
    /// more, a quarter apart).
    static let searchSteps = 4

    /// The lateral value `sin θ` (−1…1) of a delay measured by estimate `index` at low-frequency
    /// share `share`.
    /// - Parameters:
    ///   - delay: right minus left, seconds, with the hardware offset already removed.
    ///   - share: the measurement's low-frequency share, 0…1.
    ///   - index: 0 broadband, `1 + i` band `i`.
    @inline(__always)
    public func lateral(delay: Double, lowFrequencyShare share: Double, estimate index: Int) -> Double {
        let n = azimuths.count
        let e = estimates[index]
        // −τ at this share, rising with the azimuth.
        let target = -delay
        if target <= Self.path(e, 0, share: share) { return sin(azimuths[0] * Double.pi / 180) }
        if target >= Self.path(e, n - 1, share: share) { return sin(azimuths[n - 1] * Double.pi / 180) }
        var j = 1
        var next = Self.path(e, 1, share: share)
        while j < n - 1 && next < target {
            j += 1
            next = Self.path(e, j, share: share)
        }
        // A flat stretch at the target reads its middle.
        if next == target {
            var first = j, last = j
            while first > 0 && Self.path(e, first - 1, share: share) == target { first -= 1 }
            while last < n - 1 && Self.path(e, last + 1, share: share) == target { last += 1 }
            return sin((azimuths[first] + azimuths[last]) / 2 * Double.pi / 180)
        }
        let previous = Self.path(e, j - 1, share: share)
        let t = next > previous ? (target - previous) / (next - previous) : 0.5
        return sin((azimuths[j - 1] + t * (azimuths[j] - azimuths[j - 1])) * Double.pi / 180)
    }

    /// The lateral value `sin θ` (−1…1) of a level difference measured by estimate `index`, on
    /// the rising part of the head's level around the front; a difference at or past either end
    /// reads ±1 (90°), as the spherical model's does past its peak.
    /// - Parameters:
    ///   - decibels: right minus left, dB, with the hardware offset already removed.
    ///   - index: 0 broadband, `1 + i` band `i`.
    @inline(__always)
    public func lateral(levelDifference decibels: Double, estimate index: Int) -> Double {
        let e = estimates[index]
        let first = e.levelFirst, last = e.levelLast
        guard last > first else { return 0 }
        return e.risingLevels.withUnsafeBufferPointer { levels in
            azimuths.withUnsafeBufferPointer { az in
                if decibels <= levels[first] { return -1 }
                if decibels >= levels[last] { return 1 }
                for j in (first + 1)...last where levels[j] >= decibels {
                    let step = levels[j] - levels[j - 1]
                    let t = step > 0 ? (decibels - levels[j - 1]) / step : 0.5
                    return sin((az[j - 1] + t * (az[j] - az[j - 1])) * Double.pi / 180)
                }
                return 1
            }
        }
    }
}
