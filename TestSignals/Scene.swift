#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Two channels of audio with their sample rate.
public struct StereoSignal: Sendable, Equatable {
    public var left: [Float]
    public var right: [Float]
    /// Hz.
    public var sampleRate: Double

    public init(left: [Float], right: [Float], sampleRate: Double) {
        precondition(left.count == right.count)
        self.left = left
        self.right = right
        self.sampleRate = sampleRate
    }

    /// Samples per channel.
    public var count: Int { left.count }
    /// Seconds.
    public var duration: Double { Double(count) / sampleRate }
}

/// An azimuth over time: straight lines between keyframes, held before the first and after
/// the last.
public struct AzimuthPath: Sendable, Equatable {
    /// (seconds, degrees), sorted by time.
    public var keyframes: [(time: Double, azimuth: Double)]

    public static func == (a: AzimuthPath, b: AzimuthPath) -> Bool {
        a.keyframes.elementsEqual(b.keyframes) { $0.time == $1.time && $0.azimuth == $1.azimuth }
    }

    /// - Parameter keyframes: (seconds, degrees); sorted by time here.
    public init(_ keyframes: [(time: Double, azimuth: Double)]) {
        precondition(!keyframes.isEmpty)
        self.keyframes = keyframes.sorted { $0.time < $1.time }
    }

    /// A source that stays at `azimuth` degrees.
    public static func fixed(_ azimuth: Double) -> AzimuthPath { AzimuthPath([(0, azimuth)]) }

    /// A source moving from `start` to `end` degrees between `from` and `to` seconds.
    public static func sweep(from start: Double, to end: Double, between from: Double, and to: Double) -> AzimuthPath {
        AzimuthPath([(from, start), (to, end)])
    }

    /// True when the azimuth never changes.
    public var isFixed: Bool { keyframes.allSatisfy { $0.azimuth == keyframes[0].azimuth } }

    /// Azimuth in degrees at `time` seconds.
    public func azimuth(at time: Double) -> Double {
        if time <= keyframes[0].time { return keyframes[0].azimuth }
        if time > keyframes[keyframes.count - 1].time { return keyframes[keyframes.count - 1].azimuth }
        // The first keyframe at or after `time` (bisection: dense paths have thousands).
        var low = 0, high = keyframes.count - 1  // keyframes[low].time < time <= keyframes[high].time
        while high - low > 1 {
            let mid = (low + high) / 2
            if keyframes[mid].time < time { low = mid } else { high = mid }
        }
        let a = keyframes[high - 1], b = keyframes[high]
        let span = b.time - a.time
        return span > 0 ? a.azimuth + (b.azimuth - a.azimuth) * (time - a.time) / span : b.azimuth
    }
}

/// What a source plays.
public enum SourceSignal: Sendable, Equatable {
    case whiteNoise
    case pinkNoise
    /// Flat noise between two frequencies, Hz.
    case bandNoise(low: Double, high: Double)
    /// Sine, Hz.
    case tone(Double)
    /// Logarithmic sweep, Hz.
    case chirp(from: Double, to: Double)
    /// ``Generators/speechLike(count:sampleRate:rms:seed:pauses:)``.
    case speech

    /// Renders `count` samples at RMS `rms`.
    public func render(count: Int, sampleRate: Double, rms: Double, seed: UInt64) -> [Double] {
        switch self {
        case .whiteNoise: Generators.whiteNoise(count: count, rms: rms, seed: seed)
        case .pinkNoise: Generators.pinkNoise(count: count, sampleRate: sampleRate, rms: rms, seed: seed)
        case .bandNoise(let low, let high):
            Generators.bandNoise(count: count, sampleRate: sampleRate, low: low, high: high, rms: rms, seed: seed)
        case .tone(let f): Generators.tone(frequency: f, sampleRate: sampleRate, count: count, amplitude: rms * 2.squareRoot())
        case .chirp(let a, let b):
            Generators.chirp(from: a, to: b, sampleRate: sampleRate, count: count, amplitude: rms * 2.squareRoot())
        case .speech: Generators.speechLike(count: count, sampleRate: sampleRate, rms: rms, seed: seed)
        }
    }

    /// Samples `range` of a source of `count` samples. A tone or a chirp gives exactly those
    /// samples of ``render(count:sampleRate:rms:seed:)``; the random kinds (noise, speech) give a
    /// new piece of `range.count` samples from `seed`, unless `range` is the whole source.
    func render(range: Range<Int>, of count: Int, sampleRate: Double, rms: Double, seed: UInt64) -> [Double] {
        if range == 0..<count { return render(count: count, sampleRate: sampleRate, rms: rms, seed: seed) }
        switch self {
        case .tone(let f):
            let cycles = f * Double(range.lowerBound) / sampleRate
            let phase = 2 * Double.pi * (cycles - cycles.rounded(.down))
            return Generators.tone(
                frequency: f, sampleRate: sampleRate, count: range.count, amplitude: rms * 2.squareRoot(), phase: phase)
        case .chirp(let a, let b):
            return Generators.chirp(
                from: a, to: b, sampleRate: sampleRate, count: count, range: range, amplitude: rms * 2.squareRoot())
        case .whiteNoise, .pinkNoise, .bandNoise, .speech:
            return render(count: range.count, sampleRate: sampleRate, rms: rms, seed: seed)
        }
    }

    /// True for the kinds whose samples are a function of time (tone, chirp), so that two
    /// renders of the same time are equal; false for the random kinds.
    var isDeterministic: Bool {
        switch self {
        case .tone, .chirp: true
        case .whiteNoise, .pinkNoise, .bandNoise, .speech: false
        }
    }
}

/// One sound source in a ``Scene``.
public struct Source: Sendable, Equatable {
    public var signal: SourceSignal
    public var path: AzimuthPath
    /// Seconds from the start of the scene.
    public var start: Double
    /// Seconds; `nil` plays to the end of the scene.
    public var end: Double?
    /// RMS level of the dry signal, dBFS (re full-scale square; 0 dBFS = RMS 1).
    public var levelDBFS: Double
    public var seed: UInt64

    public init(
        _ signal: SourceSignal, path: AzimuthPath, start: Double = 0, end: Double? = nil, levelDBFS: Double = -20,
        seed: UInt64 = 1
    ) {
        self.signal = signal
        self.path = path
        self.start = start
        self.end = end
        self.levelDBFS = levelDBFS
        self.seed = seed
    }

    /// A source at a fixed azimuth (degrees).
    public init(_ signal: SourceSignal, azimuth: Double, start: Double = 0, end: Double? = nil,
                levelDBFS: Double = -20, seed: UInt64 = 1) {
        self.init(signal, path: .fixed(azimuth), start: start, end: end, levelDBFS: levelDBFS, seed: seed)
    }
}

/// Uncorrelated noise added to each channel.
public struct SensorNoise: Sendable, Equatable {
    /// Signal-to-noise ratio in dB, per channel: mean signal power over the samples where a
    /// source plays, over the noise power.
    public var snrDecibels: Double
    /// Noise colour.
    public var pink: Bool
    public var seed: UInt64

    public init(snrDecibels: Double, pink: Bool = false, seed: UInt64 = 99) {
        self.snrDecibels = snrDecibels
        self.pink = pink
        self.seed = seed
    }
}

/// A free-field scene: far sources at azimuths over time, a microphone pair, sensor noise.
/// Rendering is deterministic. Fixed sources get exact fractional delays (frequency domain);
/// moving sources a time-varying windowed-sinc delay.
public struct Scene: Sendable, Equatable {
    /// Hz.
    public var sampleRate: Double
    /// Seconds.
    public var duration: Double
    public var microphones: Microphones
    /// m/s.
    public var speedOfSound: Double
    public var sources: [Source]
    public var noise: SensorNoise?
    /// Raised-cosine fade at each source's start and end, seconds.
    public var fade: Double
    /// Taps on each side of the windowed-sinc interpolator that delays moving sources
    /// (48: well under 0.01 sample of error; 16 renders three times faster, still within about
    /// 0.02 sample below 0.8·Nyquist).
    public var interpolationHalfLength: Int = 48

    public init(
        sampleRate: Double = 48000, duration: Double, microphones: Microphones = .spaced(spacing: 0.15),
        speedOfSound: Double = 343, sources: [Source], noise: SensorNoise? = nil, fade: Double = 0.005
    ) {
        self.sampleRate = sampleRate
        self.duration = duration
        self.microphones = microphones
        self.speedOfSound = speedOfSound
        self.sources = sources
        self.noise = noise
        self.fade = fade
    }

    /// Samples per channel (at most ``maximumSampleCount``; 0 for a duration that is not
    /// positive and finite).
    public var sampleCount: Int { sampleIndex(duration, limit: Self.maximumSampleCount) }

    /// Renders the scene. Call ``validate()`` first on a scene built from user input: a scene
    /// that fails it renders without trapping, but not necessarily as meant (times are
    /// clamped to the scene). The whole signal is held in memory (about 70 bytes per sample while
    /// rendering): ``render(mismatch:_:)`` renders a long scene in bounded memory.
    public func render() -> StereoSignal {
        let total = sampleCount
        let span = renderSpan(0..<total, total: total, segment: 0, separatingDeterministic: false)
        return StereoSignal(left: span.left.map { Float($0) }, right: span.right.map { Float($0) }, sampleRate: sampleRate)
    }

    /// Samples `span` of the scene, each channel the sum of the sources playing there (clipped to
    /// `span`, with their fades where they truly start and end, their paths at absolute time) and
    /// the sensor noise. The whole scene (`span` = `0..<total`, `segment` 0) is ``render()``.
    /// Another `segment` draws the random sources and the noise from seeds derived from theirs
    /// and the segment, and the noise's level is set by the signal power within `span` (when no
    /// source plays there, `previousSignalRMS`).
    /// - Parameter separatingDeterministic: put tones and chirps in `coherentLeft`/`coherentRight`
    ///   (empty otherwise), so that segment joins can fade them in amplitude and the rest in power.
    func renderSpan(
        _ span: Range<Int>, total: Int, segment: Int, separatingDeterministic: Bool, previousSignalRMS: Double? = nil
    ) -> RenderedSpan {
        let count = span.count
        var left = [Double](repeating: 0, count: count), right = [Double](repeating: 0, count: count)
        var coherentLeft = [Double](repeating: 0, count: separatingDeterministic ? count : 0)
        var coherentRight = coherentLeft
        var active = [Bool](repeating: false, count: count)
        for source in sources {
            let first = sampleIndex(source.start, limit: total)
            let last = sampleIndex(source.end ?? duration, limit: total)
            let low = max(first, span.lowerBound), high = min(last, span.upperBound)
            guard high > low else { continue }
            var dry = source.signal.render(
                range: (low - first)..<(high - first), of: last - first, sampleRate: sampleRate,
                rms: pow(10, source.levelDBFS / 20), seed: Self.seed(source.seed, segment: segment))
            applyFades(&dry, from: low - first, of: last - first)
            let (l, r) = spatialise(dry, path: source.path, offset: low)
            let offset = low - span.lowerBound
            if separatingDeterministic && source.signal.isDeterministic {
                for i in 0..<(high - low) {
                    coherentLeft[offset + i] += l[i]
                    coherentRight[offset + i] += r[i]
                    active[offset + i] = true
                }
            } else {
                for i in 0..<(high - low) {
                    left[offset + i] += l[i]
                    right[offset + i] += r[i]
                    active[offset + i] = true
                }
            }
        }
        var signalRMS: Double?
        if let noise {
            var power = 0.0, n = 0
            for i in 0..<count where active[i] {
                let l = separatingDeterministic ? left[i] + coherentLeft[i] : left[i]
                let r = separatingDeterministic ? right[i] + coherentRight[i] : right[i]
                power += (l * l + r * r) / 2; n += 1
            }
            if n > 0 { signalRMS = (power / Double(n)).squareRoot() }
            let noiseRMS = (signalRMS ?? previousSignalRMS ?? 0.01) / pow(10, noise.snrDecibels / 20)
            let leftSeed = Self.seed(noise.seed, segment: segment), rightSeed = Self.seed(noise.seed &+ 1, segment: segment)
            let nl = noise.pink
                ? Generators.pinkNoise(count: count, sampleRate: sampleRate, rms: noiseRMS, seed: leftSeed)
                : Generators.whiteNoise(count: count, rms: noiseRMS, seed: leftSeed)
            let nr = noise.pink
                ? Generators.pinkNoise(count: count, sampleRate: sampleRate, rms: noiseRMS, seed: rightSeed)
                : Generators.whiteNoise(count: count, rms: noiseRMS, seed: rightSeed)
            for i in 0..<count { left[i] += nl[i]; right[i] += nr[i] }
        }
        return RenderedSpan(
            left: left, right: right, coherentLeft: coherentLeft, coherentRight: coherentRight, signalRMS: signalRMS)
    }

    /// The seed of a random source or of the noise in segment `segment` of a long render: `seed`
    /// itself in segment 0 (so a scene rendered in one segment is ``render()``), else a mix of both.
    static func seed(_ seed: UInt64, segment: Int) -> UInt64 {
        guard segment != 0 else { return seed }
        var random = SeededRandom(seed: seed ^ (UInt64(segment) &* 0x9E37_79B9_7F4A_7C15))
        return random.next()
    }

    /// The azimuth (degrees) of the loudest source playing at `time` (at equal level the first
    /// listed), or `nil` when none plays. Where sources overlap this names one of them only:
    /// see ``firstOverlap()``.
    public func azimuth(at time: Double) -> Double? {
        var best: Source?
        for source in sources where time >= source.start && time < (source.end ?? duration) {
            if best == nil || source.levelDBFS > best!.levelDBFS { best = source }
        }
        return best?.path.azimuth(at: time)
    }

    /// Ground truth as CSV text (`time,azimuth` header, one row every `step` seconds where a
    /// source plays), as `soundcompass synth` writes it.
    public func truthCSV(step: Double = 0.01) -> String {
        var text = ""
        truthCSV(step: step) { text += $0 }
        return text
    }

    /// ``truthCSV(step:)`` in pieces of whole lines (about 64 kB each), passed to `write`
    /// in order, for a long scene.
    public func truthCSV(step: Double = 0.01, _ write: (String) throws -> Void) rethrows {
        try writeTimeGridCSV(header: "time,azimuth\n", duration: duration, step: step, write) { t, text in
            if let azimuth = azimuth(at: t) { text += "\(formatted(t, 3)),\(formatted(azimuth, 3))\n" }
        }
    }

    /// Fades samples `offset..<offset + signal.count` of a source of `count` samples: raised
    /// cosines at the source's true start and end, none where a segment cuts it.
    private func applyFades(_ signal: inout [Double], from offset: Int, of count: Int) {
        let length = min(Int(fade * sampleRate), count / 2)
        guard length > 0 else { return }
        let range = offset..<(offset + signal.count)
        for i in 0..<length {
            let g = 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(length))
            if range.contains(i) { signal[i - offset] *= g }
            if range.contains(count - 1 - i) { signal[count - 1 - i - offset] *= g }
        }
    }

    private func spatialise(_ dry: [Double], path: AzimuthPath, offset: Int) -> ([Double], [Double]) {
        let fs = sampleRate
        if path.isFixed {
            let azimuth = path.keyframes[0].azimuth
            let times = microphones.arrivalTimes(azimuth: azimuth, speedOfSound: speedOfSound)
            let gains = microphones.gains(azimuth: azimuth)
            let copies = FractionalDelay.exact(dry, delays: [times.left * fs, times.right * fs])
            return (copies[0].map { $0 * gains.left }, copies[1].map { $0 * gains.right })
        }
        func at(_ n: Int) -> Double { path.azimuth(at: Double(n + offset) / fs) }
        let microphones = self.microphones, c = speedOfSound
        let taps = interpolationHalfLength
        var l = FractionalDelay.timeVarying(dry, halfLength: taps) { microphones.arrivalTimes(azimuth: at($0), speedOfSound: c).left * fs }
        var r = FractionalDelay.timeVarying(dry, halfLength: taps) { microphones.arrivalTimes(azimuth: at($0), speedOfSound: c).right * fs }
        for n in 0..<dry.count {
            let g = microphones.gains(azimuth: at(n))
            l[n] *= g.left
            r[n] *= g.right
        }
        return (l, r)
    }
}

/// Samples of a span of a ``Scene``, see ``Scene/renderSpan(_:total:segment:separatingDeterministic:previousSignalRMS:)``.
struct RenderedSpan {
    /// The random sources and the noise (with everything when not separated).
    var left: [Double], right: [Double]
    /// Tones and chirps, when separated; else empty.
    var coherentLeft: [Double], coherentRight: [Double]
    /// RMS of the signal where a source plays, `nil` when none does (or without noise).
    var signalRMS: Double?
}

/// Bytes of CSV text gathered before it is passed on.
let csvPieceLength = 1 << 16

/// Writes `header`, then the lines `rows` appends for each time `0, step, 2·step, …` below
/// `duration` (none for a time it skips), to `write` in pieces of whole lines of about
/// ``csvPieceLength`` bytes: the time grid of the truth files.
func writeTimeGridCSV(
    header: String, duration: Double, step: Double, _ write: (String) throws -> Void,
    rows: (_ time: Double, _ text: inout String) -> Void
) rethrows {
    var text = header
    var i = 0
    while Double(i) * step < duration {
        rows(Double(i) * step, &text)
        i += 1
        if text.utf8.count >= csvPieceLength { try write(text); text = "" }
    }
    try write(text)
}

/// `value` with `decimals` places, for CSV text.
func formatted(_ value: Double, _ decimals: Int) -> String {
    let scale = pow(10, Double(decimals))
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if text.hasSuffix(".0") { text.removeLast(2) }
    if text == "-0" { text = "0" }
    return text
}
