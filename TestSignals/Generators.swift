#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Deterministic mono signal generators. Every random generator takes a seed; equal seeds give
/// equal signals on every machine. Amplitudes are linear (full scale 1).
public enum Generators {
    /// Gaussian white noise with the given RMS.
    /// - Parameters:
    ///   - count: samples.
    ///   - rms: RMS value (linear).
    ///   - seed: random seed.
    public static func whiteNoise(count: Int, rms: Double = 0.1, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in random.gaussian() * rms }
    }

    /// Pink (1/f power) noise with the given RMS, shaped in the frequency domain (−3 dB per
    /// octave from 20 Hz up; flat below), so its spectrum is exact rather than approximate.
    /// - Parameters:
    ///   - count: samples.
    ///   - sampleRate: Hz (sets the 20 Hz corner).
    ///   - rms: RMS value (linear).
    ///   - seed: random seed.
    public static func pinkNoise(count: Int, sampleRate: Double, rms: Double = 0.1, seed: UInt64) -> [Double] {
        shapedNoise(count: count, sampleRate: sampleRate, rms: rms, seed: seed) { f in
            1 / max(f, 20).squareRoot()
        }
    }

    /// Noise limited to a band, with a flat spectrum inside `low…high` Hz and nothing outside.
    public static func bandNoise(count: Int, sampleRate: Double, low: Double, high: Double, rms: Double = 0.1, seed: UInt64)
        -> [Double]
    {
        precondition(0 <= low && low < high)
        return shapedNoise(count: count, sampleRate: sampleRate, rms: rms, seed: seed) { f in
            (f >= low && f <= high) ? 1 : 0
        }
    }

    /// Gaussian noise whose amplitude spectrum follows `shape(frequency in Hz)`, scaled to `rms`.
    public static func shapedNoise(
        count: Int, sampleRate: Double, rms: Double, seed: UInt64, shape: (Double) -> Double
    ) -> [Double] {
        guard count > 0 else { return [] }
        let n = ComplexFFT.size(atLeast: count)
        var random = SeededRandom(seed: seed)
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for k in 1..<(n / 2) {
            let gain = shape(Double(k) * sampleRate / Double(n))
            let a = random.gaussian() * gain, b = random.gaussian() * gain
            re[k] = a; im[k] = b
            re[n - k] = a; im[n - k] = -b
        }
        ComplexFFT.transform(re: &re, im: &im, inverse: true)
        return normalised(Array(re[0..<count]), rms: rms)
    }

    /// A sine tone.
    /// - Parameters:
    ///   - frequency: Hz.
    ///   - sampleRate: Hz.
    ///   - count: samples.
    ///   - amplitude: peak amplitude (linear).
    ///   - phase: starting phase, radians.
    public static func tone(frequency: Double, sampleRate: Double, count: Int, amplitude: Double = 0.5, phase: Double = 0)
        -> [Double]
    {
        (0..<count).map { amplitude * sin(2 * Double.pi * frequency * Double($0) / sampleRate + phase) }
    }

    /// A two-tone siren (the British "hi-lo"): a buzzy tone (harmonics 1…9 at 1/k, as a horn
    /// loudspeaker driven hard gives) alternating between `low` and `high` Hz every `halfPeriod`
    /// seconds, phase-continuous.
    /// - Parameters:
    ///   - low: lower tone, Hz (default 770).
    ///   - high: higher tone, Hz (default 960).
    ///   - halfPeriod: seconds per tone (default 0.6).
    ///   - sampleRate: Hz.
    ///   - count: samples.
    ///   - amplitude: peak of the fundamental (linear).
    public static func twoToneSiren(
        low: Double = 770, high: Double = 960, halfPeriod: Double = 0.6, sampleRate: Double, count: Int,
        amplitude: Double = 0.3
    ) -> [Double] {
        var phase = 0.0
        return (0..<count).map { i in
            let t = Double(i) / sampleRate
            let f = Int(t / halfPeriod) % 2 == 0 ? low : high
            phase += 2 * Double.pi * f / sampleRate
            var x = 0.0
            for k in 1...9 where Double(k) * f < sampleRate / 2 {
                x += sin(Double(k) * phase) / Double(k)
            }
            return amplitude * x
        }
    }

    /// Beeps: a sine of `frequency` Hz switched on for `on` seconds every `period` seconds (a
    /// smoke alarm: about 3 kHz, 0.5 s on, 1 s period), with 2 ms ramps.
    /// - Parameters:
    ///   - frequency: Hz.
    ///   - on: seconds each beep lasts.
    ///   - period: seconds from one beep's start to the next's.
    ///   - sampleRate: Hz.
    ///   - count: samples.
    ///   - amplitude: peak amplitude (linear).
    public static func beeps(
        frequency: Double = 3000, on: Double = 0.5, period: Double = 1, sampleRate: Double, count: Int,
        amplitude: Double = 0.3
    ) -> [Double] {
        let ramp = 0.002
        return (0..<count).map { i in
            let t = Double(i) / sampleRate
            let u = t.truncatingRemainder(dividingBy: period)
            guard u < on else { return 0 }
            let gain = min(1, u / ramp, (on - u) / ramp)
            return amplitude * gain * sin(2 * Double.pi * frequency * t)
        }
    }

    /// A sine sweep from `start` to `end` Hz over `count` samples, linear or logarithmic in frequency.
    public static func chirp(
        from start: Double, to end: Double, sampleRate: Double, count: Int, amplitude: Double = 0.5,
        logarithmic: Bool = true
    ) -> [Double] {
        chirp(from: start, to: end, sampleRate: sampleRate, count: count, range: 0..<count, amplitude: amplitude,
              logarithmic: logarithmic)
    }

    /// Samples `range` of ``chirp(from:to:sampleRate:count:amplitude:logarithmic:)``: a piece of
    /// the sweep of `count` samples, each sample as the whole sweep has it.
    static func chirp(
        from start: Double, to end: Double, sampleRate: Double, count: Int, range: Range<Int>, amplitude: Double,
        logarithmic: Bool = true
    ) -> [Double] {
        precondition(start > 0 && end > 0)
        let duration = Double(count) / sampleRate
        return range.map { i in
            let t = Double(i) / sampleRate
            let phase: Double
            if logarithmic && start != end {
                let k = log(end / start)
                phase = 2 * Double.pi * start * duration / k * (exp(k * t / duration) - 1)
            } else {
                phase = 2 * Double.pi * (start * t + (end - start) * t * t / (2 * duration))
            }
            return amplitude * sin(phase)
        }
    }

    /// A speech-like signal: voiced syllables (a glottal pulse train with a wandering 90–220 Hz
    /// pitch through three vowel formant resonators), some unvoiced fricatives (high-passed
    /// noise), grouped in words of 2–4 syllables separated by pauses of 0.15–0.6 s. Not speech,
    /// but it has speech's spectrum, modulation and pauses.
    /// - Parameters:
    ///   - count: samples.
    ///   - sampleRate: Hz (≥ 8000).
    ///   - rms: RMS over the voiced parts (linear).
    ///   - seed: random seed.
    ///   - pauses: false gives continuous babble without pauses between words.
    public static func speechLike(count: Int, sampleRate fs: Double, rms: Double = 0.1, seed: UInt64, pauses: Bool = true)
        -> [Double]
    {
        var random = SeededRandom(seed: seed)
        var output = [Double](repeating: 0, count: count)
        let vowels: [(Double, Double, Double)] = [
            (730, 1090, 2440), (270, 2290, 3010), (530, 1840, 2480), (570, 840, 2410), (300, 870, 2240),
            (660, 1720, 2410), (490, 1350, 1690),
        ]
        var position = Int(0.05 * fs)
        var pitch = 110 + 80 * random.uniform()
        while position < count {
            let syllables = 2 + Int(random.uniform() * 3)
            for _ in 0..<syllables where position < count {
                // Optional fricative onset.
                if random.uniform() < 0.35 {
                    let length = Int((0.04 + 0.06 * random.uniform()) * fs)
                    var previous = 0.0
                    for i in 0..<length where position + i < count {
                        let white = random.gaussian()
                        let highPassed = white - previous
                        previous = white
                        let envelope = sin(Double.pi * Double(i) / Double(length))
                        output[position + i] += 0.25 * highPassed * envelope
                    }
                    position += length
                }
                // Voiced nucleus.
                let length = Int((0.12 + 0.14 * random.uniform()) * fs)
                let formants = vowels[Int(random.uniform() * Double(vowels.count)) % vowels.count]
                var resonators = [formants.0, formants.1, formants.2].enumerated().map { index, f in
                    Resonator(frequency: min(f, 0.45 * fs), bandwidth: 60 + 40 * Double(index), sampleRate: fs)
                }
                let gains = [1.0, 0.5, 0.25]
                var phase = 0.0
                pitch = max(90, min(220, pitch + 20 * (random.uniform() - 0.5)))
                let glide = (random.uniform() - 0.5) * 0.3
                for i in 0..<length where position + i < count {
                    let progress = Double(i) / Double(length)
                    let f0 = pitch * (1 + glide * progress)
                    phase += f0 / fs
                    var excitation = 0.0
                    if phase >= 1 { phase -= 1; excitation = 1 }
                    excitation += 0.02 * random.gaussian()  // breathiness
                    var voiced = 0.0
                    for r in 0..<3 { voiced += gains[r] * resonators[r].process(excitation) }
                    let envelope = sin(Double.pi * progress)
                    output[position + i] += voiced * envelope * envelope.squareRoot()
                }
                position += length + Int(0.02 * fs * random.uniform())
            }
            if pauses { position += Int((0.15 + 0.45 * random.uniform()) * fs) }
        }
        // Scale so the voiced parts (above 1 % of the peak envelope) have the requested RMS.
        let peak = output.reduce(0) { max($0, abs($1)) }
        guard peak > 0 else { return output }
        var sum = 0.0, n = 0
        for x in output where abs(x) > 0.01 * peak { sum += x * x; n += 1 }
        let current = (sum / Double(max(n, 1))).squareRoot()
        return output.map { $0 * rms / current }
    }

    /// Scales `signal` to the given RMS (all-zero signals are returned unchanged).
    public static func normalised(_ signal: [Double], rms: Double) -> [Double] {
        let current = Self.rms(signal)
        guard current > 0 else { return signal }
        return signal.map { $0 * rms / current }
    }

    /// RMS of a signal.
    public static func rms(_ signal: [Double]) -> Double {
        guard !signal.isEmpty else { return 0 }
        return (signal.reduce(0) { $0 + $1 * $1 } / Double(signal.count)).squareRoot()
    }
}

/// A two-pole resonator (formant filter) with unity peak gain.
struct Resonator {
    private let a1: Double, a2: Double, gain: Double
    private var y1 = 0.0, y2 = 0.0

    init(frequency: Double, bandwidth: Double, sampleRate: Double) {
        let r = exp(-Double.pi * bandwidth / sampleRate)
        a1 = 2 * r * cos(2 * Double.pi * frequency / sampleRate)
        a2 = -r * r
        gain = 1 - r
    }

    mutating func process(_ x: Double) -> Double {
        let y = gain * x + a1 * y1 + a2 * y2
        y2 = y1
        y1 = y
        return y
    }
}
