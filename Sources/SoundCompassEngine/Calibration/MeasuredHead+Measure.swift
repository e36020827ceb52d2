#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Measuring a head's tables from its impulse responses: noise rendered through each direction
// and analysed by the engine itself. It runs the whole pipeline (StreamingAnalyzer), so it lives
// in Calibration, above the analyzer; Array/ holds the tables and reads them.
extension MeasuredHead {
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
