#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A synthetic room for a pair of microphones: a source's direct sound plus `reflections` plane
/// waves from seeded random azimuths (uniform over ±90°), arriving after the direct sound with a
/// density that grows as t² (as a room's image sources do) from `firstReflection` to 1.1·RT60,
/// each 60 dB weaker per RT60 of delay, the reverberant part scaled to the asked
/// direct-to-reverberant ratio.
///
/// Not a physical room (no walls, no frequency-dependent absorption, no diffuse late tail): what
/// it reproduces is what matters to a time-frequency mask, that a steady tone's inter-channel
/// phase is set by the sum of many paths from many directions, not by the direct one, while an
/// onset's first milliseconds carry the direct path. A talker at 1.5 m in a 6 × 5 × 3 m room of
/// RT60 0.3 s has a direct-to-reverberant ratio near −4 dB (pyroomacoustics' image-source model
/// of that room: −3.2 to −3.6 dB).
///
/// The reflections all arrive in the horizontal plane (a real room's floor and ceiling send
/// theirs from above and below, with smaller delays between the microphones), and there are few
/// of them (400 by default, against thousands of image sources). Results in it need not match
/// a simulated shoebox's of the same RT60 and ratio: a two-tone siren's per-source label is right
/// far less often here (`SourceLabelTests`) than in `Benchmarks/accuracy/classify.py`'s
/// pyroomacoustics room (Docs/Classification.md).
public enum Reverberation {
    /// Samples each delayed copy's windowed-sinc kernel reaches on either side.
    static let kernelHalfWidth = 16
    /// Samples of latency before the direct sound, so that its kernel fits.
    public static let latency = 64

    /// The room's impulse responses at the two microphones for a source at `azimuth`.
    /// - Parameters:
    ///   - azimuth: the direct sound's bearing, degrees.
    ///   - microphones: the pair (its ``Microphones/arrivalTimes(azimuth:speedOfSound:)``).
    ///   - sampleRate: Hz.
    ///   - rt60: seconds for the reflections to fall 60 dB (> 0).
    ///   - directToReverberantDecibels: the direct sound's energy over the reflections', dB.
    ///   - reflections: how many (≥ 1).
    ///   - firstReflection: seconds from the direct sound to the earliest time a reflection can
    ///     arrive (≥ 0).
    ///   - seed: the seed of the reflections' times and azimuths (``SeededRandom``): the same seed
    ///     gives the same room.
    /// - Returns: both responses, the direct sound at ``latency`` samples (plus its arrival time).
    public static func impulseResponses(
        azimuth: Double, microphones: Microphones, sampleRate: Double, rt60: Double,
        directToReverberantDecibels: Double, reflections: Int = 400, firstReflection: Double = 0.002, seed: UInt64
    ) -> (left: [Double], right: [Double]) {
        precondition(rt60 > 0 && reflections >= 1 && firstReflection >= 0, "Reverberation: bad room")
        let length = Int(1.2 * rt60 * sampleRate) + 2 * latency
        var direct = ([Double](repeating: 0, count: length), [Double](repeating: 0, count: length))
        var reverberant = direct
        let origin = Double(latency)
        let arrival = microphones.arrivalTimes(azimuth: azimuth)
        add(&direct.0, at: origin + arrival.left * sampleRate, gain: 1)
        add(&direct.1, at: origin + arrival.right * sampleRate, gain: 1)
        var random = SeededRandom(seed: seed)
        let last = 1.1 * rt60
        for _ in 0..<reflections {
            // Density ∝ t² on [first, last]: t = first + (last − first)·u^(1/3).
            let t = firstReflection + (last - firstReflection) * cbrt(random.uniform())
            let from = microphones.arrivalTimes(azimuth: -90 + 180 * random.uniform())
            let gain = pow(10, -3 * t / rt60)
            add(&reverberant.0, at: origin + (t + from.left) * sampleRate, gain: gain)
            add(&reverberant.1, at: origin + (t + from.right) * sampleRate, gain: gain)
        }
        let directEnergy = (direct.0 + direct.1).reduce(0) { $0 + $1 * $1 }
        let reverberantEnergy = (reverberant.0 + reverberant.1).reduce(0) { $0 + $1 * $1 }
        let scale = (directEnergy / reverberantEnergy * pow(10, -directToReverberantDecibels / 10)).squareRoot()
        let left = (0..<length).map { direct.0[$0] + scale * reverberant.0[$0] }
        let right = (0..<length).map { direct.1[$0] + scale * reverberant.1[$0] }
        return (left, right)
    }

    /// `signal` as heard at the two microphones in the room of
    /// ``impulseResponses(azimuth:microphones:sampleRate:rt60:directToReverberantDecibels:reflections:firstReflection:seed:)``,
    /// convolved through the frequency domain.
    /// - Parameters:
    ///   - signal: the dry source, samples at `sampleRate`.
    ///   - azimuth: the direct sound's bearing, degrees.
    ///   - microphones: the pair.
    ///   - sampleRate: Hz, of `signal` and of the result.
    ///   - rt60: seconds for the reflections to fall 60 dB (> 0).
    ///   - directToReverberantDecibels: the direct sound's energy over the reflections', dB.
    ///   - reflections: how many (≥ 1).
    ///   - firstReflection: seconds from the direct sound to the earliest time a reflection can
    ///     arrive (≥ 0).
    ///   - seed: the room's seed; the same seed gives the same room as
    ///     ``impulseResponses(azimuth:microphones:sampleRate:rt60:directToReverberantDecibels:reflections:firstReflection:seed:)``.
    /// - Returns: both channels, as long as `signal` (the tail past its end is cut), the direct
    ///   sound ``latency`` samples late (plus its arrival time).
    public static func render(
        _ signal: [Double], azimuth: Double, microphones: Microphones, sampleRate: Double, rt60: Double,
        directToReverberantDecibels: Double, reflections: Int = 400, firstReflection: Double = 0.002, seed: UInt64
    ) -> (left: [Double], right: [Double]) {
        let h = impulseResponses(
            azimuth: azimuth, microphones: microphones, sampleRate: sampleRate, rt60: rt60,
            directToReverberantDecibels: directToReverberantDecibels, reflections: reflections,
            firstReflection: firstReflection, seed: seed)
        let n = ComplexFFT.size(atLeast: signal.count + h.left.count)
        var xr = [Double](repeating: 0, count: n), xi = [Double](repeating: 0, count: n)
        for i in signal.indices { xr[i] = signal[i] }
        ComplexFFT.transform(re: &xr, im: &xi, inverse: false)
        // Both responses in one transform: H = FFT(hl + i·hr), then hl's and hr's spectra by symmetry.
        var hr = [Double](repeating: 0, count: n), hi = [Double](repeating: 0, count: n)
        for i in h.left.indices { hr[i] = h.left[i]; hi[i] = h.right[i] }
        ComplexFFT.transform(re: &hr, im: &hi, inverse: false)
        // Y = X·(Hl + i·Hr) = X·Hl + i·X·Hr, and both X·Hl and X·Hr are spectra of real signals:
        // the inverse's real part is the left output, its imaginary part the right.
        var yr = [Double](repeating: 0, count: n), yi = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let m = (n - k) & (n - 1)
            // Hl = (H[k] + conj(H[n−k]))/2, Hr = (H[k] − conj(H[n−k]))/(2i).
            let lr = (hr[k] + hr[m]) / 2, li = (hi[k] - hi[m]) / 2
            let rr = (hi[k] + hi[m]) / 2, ri = -(hr[k] - hr[m]) / 2
            let leftRe = xr[k] * lr - xi[k] * li, leftIm = xr[k] * li + xi[k] * lr
            let rightRe = xr[k] * rr - xi[k] * ri, rightIm = xr[k] * ri + xi[k] * rr
            yr[k] = leftRe - rightIm
            yi[k] = leftIm + rightRe
        }
        ComplexFFT.transform(re: &yr, im: &yi, inverse: true)
        return (Array(yr[0..<signal.count]), Array(yi[0..<signal.count]))
    }

    /// Adds `gain` times a Hann-windowed sinc centred at `position` (samples) to `response`.
    static func add(_ response: inout [Double], at position: Double, gain: Double) {
        let centre = Int(position.rounded(.down))
        for n in (centre - kernelHalfWidth + 1)...(centre + kernelHalfWidth) where n >= 0 && n < response.count {
            let x = Double(n) - position
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let window = 0.5 + 0.5 * cos(Double.pi * x / Double(kernelHalfWidth))
            response[n] += gain * sinc * window
        }
    }
}
