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

    /// The lateral value `sin θ` (−1…1) of a delay measured by estimate `index` at low-frequency
    /// share `share`.
    /// - Parameters:
    ///   - delay: right minus left, seconds, with the hardware offset already removed.
    ///   - share: the measurement's low-frequency share, 0…1.
    ///   - index: 0 broadband, `1 + i` band `i`.
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

    /// The lateral value `sin θ` (−1…1) at which the frame's delays, the broadband one and each
    /// band's, agree best with the head's tables (see the type's notes). Each estimate `e` is a
    /// peak that is the source's with probability `p_e`, its time confidence (0 below the
    /// gate), its delay then spread normally about its table's with its spread `σ_e`
    /// (``Estimate/delaySpreads``, the mean of the stretch's two ends), and otherwise anywhere
    /// in the searched lag range (`outlierSpanSeconds`) alike. The azimuth of least
    /// `Σ_e −log(p_e·N(τ_e; path_e(θ), σ_e) + (1 − p_e)/span)` is searched on the measured
    /// azimuths and three points between each two; then the estimates more likely the source's
    /// than not there are fitted in least squares (closed form over each stretch, where every
    /// table is linear in the azimuth) on the stretches beside it. Never allocates.
    /// - Parameters:
    ///   - broadband: the frame's broadband delay (seconds, right minus left, as measured), its
    ///     low-frequency share (0…1) and its time confidence (0…1).
    ///   - levelDBFS: the frame's level, dBFS (the broadband estimate's gate).
    ///   - bands: what each band measured this frame, in the order of ``estimates``[1…].
    ///   - delayOffsetSeconds: the hardware's delay offset, removed from every delay.
    ///   - outlierSpanSeconds: the width of the lag range a wrong peak may fall in, seconds
    ///     (both sides of the window: ``ArrayModel/lagWindowSeconds`` × 2).
    ///   - gateDBFS: the silence gate, dBFS.
    /// - Returns: `sin θ`, or nil without bands or when nothing is heard (then the broadband
    ///   delay is read alone, ``lateral(delay:lowFrequencyShare:estimate:)``).
    package func lateral(
        broadband: (delaySeconds: Double, lowFrequencyShare: Double, confidence: Double), levelDBFS: Double,
        bands: [CueMeasurements], delayOffsetSeconds: Double, outlierSpanSeconds: Double, gateDBFS: Double
    ) -> Double? {
        let n = azimuths.count
        let count = min(bands.count, estimates.count - 1)
        guard n >= 2, count > 0, outlierSpanSeconds > 0 else { return nil }
        // Estimate `index`'s probability of being the source's peak, delay and share.
        @inline(__always) func measured(_ index: Int) -> (p: Double, delay: Double, share: Double) {
            if index == 0 {
                return (levelDBFS >= gateDBFS ? max(0, min(1, broadband.confidence)) : 0,
                        broadband.delaySeconds - delayOffsetSeconds, broadband.lowFrequencyShare)
            }
            let m = bands[index - 1]
            return (m.levelDBFS >= gateDBFS ? max(0, min(1, m.timeConfidence)) : 0,
                    m.delaySeconds - delayOffsetSeconds, m.lowFrequencyShare ?? 0)
        }
        var heard = false
        for index in 0...count where measured(index).p > 0 { heard = true }
        guard heard else { return nil }
        let outlier = 1 / outlierSpanSeconds
        let normal = 1 / (2 * Double.pi).squareRoot()
        // The density of estimate `e`'s measurement `m` as the source's peak, with the source at
        // point `t` (0…1) of stretch `j` (between azimuths `j − 1` and `j`), times `p`.
        @inline(__always) func sourceDensity(
            _ e: Estimate, _ m: (p: Double, delay: Double, share: Double), stretch j: Int, at t: Double
        ) -> Double {
            let start = Self.path(e, j - 1, share: m.share), end = Self.path(e, j, share: m.share)
            let sigma = 0.5 * (e.delaySpreads[j - 1] + e.delaySpreads[j])
            let z = (-m.delay - (start + t * (end - start))) / sigma
            return m.p * normal / sigma * exp(-0.5 * z * z)
        }
        // 1. The likeliest point of the search grid.
        var bestCost = Double.infinity, bestStretch = 1, bestT = 0.0
        for j in 1..<n {
            for step in 0...Self.searchSteps where step < Self.searchSteps || j == n - 1 {
                let t = Double(step) / Double(Self.searchSteps)
                var cost = 0.0
                for index in 0...count {
                    let m = measured(index)
                    guard m.p > 0 else { continue }
                    let density = sourceDensity(estimates[index], m, stretch: j, at: t)
                    cost -= log(density + (1 - m.p) * outlier + .leastNormalMagnitude)
                }
                if cost < bestCost {
                    (bestCost, bestStretch, bestT) = (cost, j, t)
                }
            }
        }
        // 2. The estimates more likely the source's than not there, fitted in least squares
        //    over the stretches beside it.
        var fitCost = Double.infinity, fitAzimuth = azimuths[bestStretch - 1] + bestT * (azimuths[bestStretch] - azimuths[bestStretch - 1])
        for j in max(1, bestStretch - 1)...min(n - 1, bestStretch + 1) {
            var rr = 0.0, rd = 0.0, dd = 0.0, inliers = 0
            for index in 0...count {
                let m = measured(index)
                guard m.p > 0 else { continue }
                let e = estimates[index]
                // Inlier or not at the grid's best point.
                guard sourceDensity(e, m, stretch: bestStretch, at: bestT) >= (1 - m.p) * outlier else { continue }
                inliers += 1
                let start = Self.path(e, j - 1, share: m.share), end = Self.path(e, j, share: m.share)
                let sigma = 0.5 * (e.delaySpreads[j - 1] + e.delaySpreads[j])
                let w = m.p / (sigma * sigma)
                let r = -m.delay - start
                let d = end - start
                rr += w * r * r
                rd += w * r * d
                dd += w * d * d
            }
            guard inliers > 0 else { continue }
            let t = dd > 0 ? max(0, min(1, rd / dd)) : 0.5
            let cost = rr - 2 * t * rd + t * t * dd
            if cost < fitCost {
                fitCost = cost
                fitAzimuth = azimuths[j - 1] + t * (azimuths[j] - azimuths[j - 1])
            }
        }
        return sin(fitAzimuth * Double.pi / 180)
    }

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

    // MARK: - Building

    /// Samples of one period of the rendered noise.
    static let period = 16384
    /// Periods analysed per direction and noise.
    static let periods = 3
    /// Frames skipped at the start of each render (filters and spectral averages settling).
    static let settlingFrames = 4

    /// Measures a head's tables by running the engine on noise rendered through its impulse
    /// responses (see the type's notes). Allocates; not for the per-frame path.
    /// - Parameters:
    ///   - name: for messages (a path).
    ///   - impulseResponses: at least two directions at `configuration`'s sample rate, any order.
    ///   - configuration: the analysis it is for (binaural; its ``ArrayModel/measuredHead`` is ignored).
    /// - Returns: the tables, for ``ArrayModel/measuredHead``.
    public static func measure(
        name: String, impulseResponses: [HeadImpulseResponse], configuration: AnalysisConfiguration
    ) -> MeasuredHead {
        precondition(impulseResponses.count >= 2, "a measured head needs at least two directions")
        var config = configuration
        config.array.kind = .binaural
        config.array.measuredHead = nil
        config.array.delayOffsetSeconds = 0
        config.array.gainOffsetDecibels = 0
        config.maxSources = 0
        let sorted = impulseResponses.sorted { $0.azimuthDegrees < $1.azimuthDegrees }
        let bandNames = config.usableBands.map(\.name)
        let count = bandNames.count + 1
        let fft = RealFFT(size: period)
        let white = noiseSpectrum(fft: fft, seed: 0x5EED_0001, speechShaped: false, sampleRate: config.sampleRate)
        let speech = noiseSpectrum(fft: fft, seed: 0x5EED_0002, speechShaped: true, sampleRate: config.sampleRate)
        var tables = (0..<count).map { i in
            Estimate(
                name: i == 0 ? "broadband" : bandNames[i - 1], delays: [], shares: [], lowDelays: [], lowShares: [],
                delaySpreads: [], levels: [], risingLevels: [], levelFirst: 0, levelLast: 0)
        }
        // The frames' spread of each estimate's delay, per azimuth: the larger of the two renders'.
        var frameSpreads = [[Double]](repeating: [], count: count)
        for response in sorted {
            let w = measureOne(response, noise: white, floorDecibels: -30, fft: fft, configuration: config)
            let l = measureOne(response, noise: speech, floorDecibels: -30, fft: fft, configuration: config)
            for i in 0..<count {
                tables[i].delays.append(w[i].delay)
                tables[i].shares.append(w[i].share)
                tables[i].levels.append(w[i].level)
                tables[i].lowDelays.append(l[i].delay)
                tables[i].lowShares.append(l[i].share)
                frameSpreads[i].append(max(w[i].spread, l[i].spread))
            }
        }
        let azimuths = sorted.map(\.azimuthDegrees)
        for i in 0..<count {
            // Monotonic in azimuth: −τ rises, so τ falls.
            let measuredDelays = tables[i].delays, measuredLowDelays = tables[i].lowDelays
            tables[i].delays = isotonic(tables[i].delays.map { -$0 }).map { -$0 }
            tables[i].lowDelays = isotonic(tables[i].lowDelays.map { -$0 }).map { -$0 }
            let floor = 0.1 / config.sampleRate
            tables[i].delaySpreads = azimuths.indices.map { j in
                let renders = tables[i].delays[j] - tables[i].lowDelays[j]
                let monotonic = max(abs(tables[i].delays[j] - measuredDelays[j]), abs(tables[i].lowDelays[j] - measuredLowDelays[j]))
                let frames = frameSpreads[i][j]
                return (floor * floor + frames * frames + renders * renders + monotonic * monotonic).squareRoot()
            }
            let rising = risingPart(tables[i].levels, azimuths: azimuths)
            tables[i].levelFirst = rising.first
            tables[i].levelLast = rising.last
            var levels = tables[i].levels
            if rising.last > rising.first {
                levels.replaceSubrange(rising.first...rising.last, with: isotonic(Array(levels[rising.first...rising.last])))
            }
            tables[i].risingLevels = levels
        }
        // The broadband delay mixes every band's: how far it moves with the sound's spectrum
        // is also how far apart the bands above the low-frequency regime lie (the standard
        // deviation of their white-noise delays; the low-frequency lean is what the share reads).
        let upper = (1..<count).filter { i in tables[i].shares.reduce(0, +) / Double(azimuths.count) < 0.5 }
        if upper.count >= 2 {
            for j in azimuths.indices {
                let values = upper.map { tables[$0].delays[j] }
                let mean = values.reduce(0, +) / Double(values.count)
                let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
                let spread = tables[0].delaySpreads[j]
                tables[0].delaySpreads[j] = (spread * spread + variance).squareRoot()
            }
        }
        return MeasuredHead(name: name, azimuths: azimuths, estimates: tables)
    }

    /// One period of seeded noise's spectrum: white, or speech-shaped (``speechShapeGain(frequencyHz:)``).
    private static func noiseSpectrum(fft: RealFFT, seed: UInt64, speechShaped: Bool, sampleRate: Double) -> [(re: Float, im: Float)] {
        var generator = SplitMix(seed: seed)
        var spectrum = fft.forward((0..<period).map { _ in Float(generator.uniform() * 2 - 1) })
        if speechShaped {
            for k in spectrum.indices {
                let gain = Float(speechShapeGain(frequencyHz: Double(k) * sampleRate / Double(period)))
                spectrum[k] = (spectrum[k].re * gain, spectrum[k].im * gain)
            }
        }
        return spectrum
    }

    /// The amplitude of the speech-shaped measuring noise at a frequency: the long-term average
    /// speech spectrum's outline (Byrne et al. 1994), flat from 100 to 500 Hz, falling 6 dB per
    /// octave above it (12 dB per octave above 4 kHz, where speech holds little but fricatives)
    /// and below 100 Hz. Over the 30 dB sensor floor it leaves the bins above a few kHz with
    /// little coherence, as speech does, so its delays lean towards the low and middle
    /// frequencies where speech's energy is.
    static func speechShapeGain(frequencyHz f: Double) -> Double {
        if f < 100 { return max(f, 1) / 100 }
        if f <= 500 { return 1 }
        if f <= 4000 { return 500 / f }
        return 500 / 4000 * (4000 / f) * (4000 / f)
    }

    /// The medians of each estimate's delay, share and level difference over the frames of
    /// `noise` rendered through `response` (circularly: the noise is periodic), and the spread
    /// of its delay over those frames (seconds).
    private static func measureOne(
        _ response: HeadImpulseResponse, noise: [(re: Float, im: Float)], floorDecibels: Double?, fft: RealFFT,
        configuration: AnalysisConfiguration
    ) -> [(delay: Double, share: Double, level: Double, spread: Double)] {
        func render(_ ir: [Float]) -> [Float] {
            var folded = [Float](repeating: 0, count: period)
            for (i, v) in ir.enumerated() { folded[i % period] += v }
            let h = fft.forward(folded)
            let product = zip(noise, h).map { (re: $0.re * $1.re - $0.im * $1.im, im: $0.re * $1.im + $0.im * $1.re) }
            return fft.inverse(product).map { $0 / Float(period) }
        }
        var left = render(response.left), right = render(response.right)
        // Scale to an RMS of about −26 dBFS (well above the silence gate).
        let power = (left.reduce(0) { $0 + Double($1 * $1) } + right.reduce(0) { $0 + Double($1 * $1) }) / Double(2 * period)
        let gain = power > 0 ? Float(0.05 / power.squareRoot()) : 1
        left = left.map { $0 * gain }
        right = right.map { $0 * gain }
        if let floor = floorDecibels {
            var generator = SplitMix(seed: 0x5EED_0003)
            let amplitude = Float(0.05 * pow(10, floor / 20) * 3.0.squareRoot())
            left = left.map { $0 + amplitude * Float(generator.uniform() * 2 - 1) }
            right = right.map { $0 + amplitude * Float(generator.uniform() * 2 - 1) }
        }
        let analyzer = try! StreamingAnalyzer(configuration: configuration)
        let count = configuration.usableBands.count + 1
        var delays = [[Double]](repeating: [], count: count)
        var shares = [[Double]](repeating: [], count: count)
        var levels = [[Double]](repeating: [], count: count)
        var frame = 0
        let fs = configuration.sampleRate
        for _ in 0..<periods {
            left.withUnsafeBufferPointer { l in
                right.withUnsafeBufferPointer { r in
                    analyzer.process(left: l, right: r) { (_, estimate: FrameEstimate) in
                        frame += 1
                        guard frame > settlingFrames else { return }
                        delays[0].append(estimate.delay.lagSamples / fs)
                        shares[0].append(estimate.lowFrequencyShare ?? 0)
                        levels[0].append(estimate.highFrequencyILD)
                        for (i, m) in analyzer.subbands.measurements.enumerated() {
                            delays[i + 1].append(m.delaySeconds)
                            shares[i + 1].append(m.lowFrequencyShare ?? 0)
                            levels[i + 1].append(m.levelDifferenceDecibels)
                        }
                    }
                }
            }
        }
        return (0..<count).map { i in
            let centre = median(delays[i])
            // 1.4826 × the median absolute deviation: the standard deviation of a normal spread.
            let spread = 1.4826 * median(delays[i].map { abs($0 - centre) })
            return (centre, median(shares[i]), median(levels[i]), spread)
        }
    }

    private static func median(_ values: [Double]) -> Double {
        let finite = values.filter(\.isFinite).sorted()
        guard !finite.isEmpty else { return 0 }
        let n = finite.count
        return n % 2 == 1 ? finite[n / 2] : (finite[n / 2 - 1] + finite[n / 2]) / 2
    }

    /// The non-decreasing sequence nearest to `values` in least squares (pool adjacent violators).
    static func isotonic(_ values: [Double]) -> [Double] {
        var blocks: [(sum: Double, count: Int)] = []
        for v in values {
            blocks.append((v, 1))
            while blocks.count > 1, blocks[blocks.count - 2].sum / Double(blocks[blocks.count - 2].count)
                > blocks[blocks.count - 1].sum / Double(blocks[blocks.count - 1].count) {
                let last = blocks.removeLast()
                blocks[blocks.count - 1].sum += last.sum
                blocks[blocks.count - 1].count += last.count
            }
        }
        return blocks.flatMap { [Double](repeating: $0.sum / Double($0.count), count: $0.count) }
    }

    /// The indices around the azimuth nearest 0° between which the level rises: to the left
    /// while it falls, to the right while it rises (a little slack for measurement noise).
    static func risingPart(_ levels: [Double], azimuths: [Double]) -> (first: Int, last: Int) {
        guard let centre = azimuths.indices.min(by: { abs(azimuths[$0]) < abs(azimuths[$1]) }) else { return (0, 0) }
        var first = centre, last = centre
        var lowest = levels[centre], highest = levels[centre]
        while first > 0, levels[first - 1] < lowest + 0.25 {
            first -= 1
            lowest = min(lowest, levels[first])
        }
        while last < levels.count - 1, levels[last + 1] > highest - 0.25 {
            last += 1
            highest = max(highest, levels[last])
        }
        // End each side at its extreme.
        if let low = (first...centre).min(by: { levels[$0] < levels[$1] }) { first = low }
        if let high = (centre...last).max(by: { levels[$0] < levels[$1] }) { last = high }
        return (first, last)
    }
}

/// SplitMix64: a small seeded generator for the measuring noise.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
