#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FractionalDelay {
    /// An exact delay that depends on frequency, in the frequency domain like
    /// ``exact(_:delays:)``: bin `k` of the zero-padded transform (size `P`) is turned by
    /// `e^(−2πik·d(f)/P)` with `d(f)` the delay in samples at its frequency `f = k/P` (cycles per
    /// sample, 0…0.5).
    /// - Parameters:
    ///   - signal: input samples.
    ///   - maximumDelay: the largest |d(f)| in samples (sets the padding; ≥ 0).
    ///   - delay: the delay in samples at a frequency in cycles per sample.
    /// - Returns: the delayed signal, as long as `signal`.
    public static func exact(_ signal: [Double], maximumDelay: Double, delay: (Double) -> Double) -> [Double] {
        precondition(maximumDelay >= 0 && maximumDelay.isFinite, "maximumDelay must be finite and ≥ 0")
        guard !signal.isEmpty else { return [] }
        let n = ComplexFFT.size(atLeast: signal.count + Int(maximumDelay) + 64)
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for i in 0..<signal.count { re[i] = signal[i] }
        ComplexFFT.transform(re: &re, im: &im, inverse: false)
        return delayed(re: re, im: im, count: signal.count, delay: delay)
    }
}

extension Microphones {
    /// Renders `dry` from a fixed azimuth through a head whose interaural delay depends on
    /// frequency, with a sharp split between two regimes: below `crossoverHz`, Kuhn's (1977)
    /// low-frequency delay `3(r/c)·sin φ`; from `crossoverHz` up, Woodworth's `(r/c)·(φ + sin φ)`
    /// (φ the lateral angle). Near the front the low frequencies are delayed 1.5 times the high
    /// ones, at the sides 1.17 times. Each ear gets half the delay, as in ``arrivalTimes(azimuth:speedOfSound:)``;
    /// the channels' levels are ``binaural(headRadius:ildAt90:)``'s with `ildAt90` dB.
    ///
    /// The split is deliberately not the engine's smooth blend, so that a test of the engine
    /// against it is not the model checked against itself.
    /// - Parameters:
    ///   - dry: the source, samples.
    ///   - azimuth: degrees (0 ahead, negative left, ±180 behind).
    ///   - headRadius: metres (> 0, ≤ 1).
    ///   - ildAt90: broadband level difference at 90°, dB (default 0).
    ///   - crossoverHz: the split, Hz (0 < f < sampleRate/2).
    ///   - sampleRate: Hz (> 0).
    ///   - speedOfSound: m/s (> 0).
    public static func renderTwoRegimeHead(
        _ dry: [Double], azimuth: Double, headRadius: Double, ildAt90: Double = 0, crossoverHz: Double,
        sampleRate: Double, speedOfSound: Double = 343
    ) -> StereoSignal {
        precondition(azimuth.isFinite, "azimuth must be finite")
        precondition(headRadius > 0 && headRadius <= 1, "headRadius must be in (0, 1] m")
        precondition(sampleRate > 0 && sampleRate.isFinite, "sampleRate must be positive")
        precondition(crossoverHz > 0 && crossoverHz < sampleRate / 2, "crossoverHz must be between 0 and sampleRate/2")
        precondition(speedOfSound > 0 && speedOfSound.isFinite, "speedOfSound must be positive")
        precondition(ildAt90.isFinite, "ildAt90 must be finite")
        let lateral = asin(max(-1, min(1, sin(azimuth * Double.pi / 180))))
        let scale = headRadius / speedOfSound * sampleRate
        let lowITD = scale * 3 * sin(lateral)  // samples, > 0: right ear first
        let highITD = scale * (lateral + sin(lateral))
        let crossover = crossoverHz / sampleRate
        func itd(_ f: Double) -> Double { f < crossover ? lowITD : highITD }
        let largest = max(abs(lowITD), abs(highITD)) / 2
        let left = FractionalDelay.exact(dry, maximumDelay: largest) { itd($0) / 2 }
        let right = FractionalDelay.exact(dry, maximumDelay: largest) { -itd($0) / 2 }
        let gains = Microphones.binaural(headRadius: headRadius, ildAt90: ildAt90).gains(azimuth: azimuth)
        return StereoSignal(
            left: left.map { Float($0 * gains.left) }, right: right.map { Float($0 * gains.right) },
            sampleRate: sampleRate)
    }
}
