#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Delays by any real number of samples.
public enum FractionalDelay {
    /// Exact delays in the frequency domain: the signal is zero-padded to a power of two `P`,
    /// and each copy is `IFFT(X[k]·e^(−2πik·d/P))` — an exact band-limited delay of the padded,
    /// periodic signal (the Nyquist bin is dropped so every copy stays real). Returns one
    /// delayed copy per entry of `delays` (in samples, any sign), each as long as `signal`.
    public static func exact(_ signal: [Double], delays: [Double]) -> [[Double]] {
        guard !signal.isEmpty else { return delays.map { _ in [] } }
        let margin = Int(delays.map { abs($0) }.max() ?? 0) + 64
        let n = ComplexFFT.size(atLeast: signal.count + margin)
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for i in 0..<signal.count { re[i] = signal[i] }
        ComplexFFT.transform(re: &re, im: &im, inverse: false)
        return delays.map { delay in delayed(re: re, im: im, count: signal.count) { _ in delay } }
    }

    /// One delayed copy from the transform `re`, `im` (size `P`) of a zero-padded signal: bin `k`
    /// turned by `e^(−2πik·d/P)` with `d = delay(k/P)` samples, its mirror conjugated and the
    /// Nyquist bin dropped so the copy is real; the first `count` samples of the inverse.
    static func delayed(re: [Double], im: [Double], count: Int, delay: (Double) -> Double) -> [Double] {
        let n = re.count
        var dr = [Double](repeating: 0, count: n), di = [Double](repeating: 0, count: n)
        dr[0] = re[0]
        for k in 1..<(n / 2) {
            let d = delay(Double(k) / Double(n))
            let angle = -2 * Double.pi * Double(k) * d / Double(n)
            let c = cos(angle), s = sin(angle)
            let xr = re[k] * c - im[k] * s
            let xi = re[k] * s + im[k] * c
            dr[k] = xr; di[k] = xi
            dr[n - k] = xr; di[n - k] = -xi
        }
        ComplexFFT.transform(re: &dr, im: &di, inverse: true)
        return Array(dr[0..<count])
    }

    /// One exact delayed copy (see ``exact(_:delays:)``).
    public static func exact(_ signal: [Double], bySamples delay: Double) -> [Double] {
        exact(signal, delays: [delay])[0]
    }

    /// A time-varying delay by windowed-sinc interpolation:
    /// `y[n] = Σⱼ x[m + j]·sinc(j − f)·w((j − f)/L)` with `n − delay(n) = m + f`, a
    /// Blackman–Harris window `w` and half-length `L` taps. Accurate to well under 0.01 sample
    /// for content below 0.85·Nyquist.
    /// - Parameters:
    ///   - signal: input samples.
    ///   - delay: delay in samples at output sample `n`.
    ///   - halfLength: taps on each side (default 48).
    public static func timeVarying(_ signal: [Double], halfLength: Int = 48, delay: (Int) -> Double) -> [Double] {
        let table = WindowTable(halfLength: halfLength)
        var output = [Double](repeating: 0, count: signal.count)
        for n in 0..<signal.count {
            let position = Double(n) - delay(n)
            let m = Int(position.rounded(.down))
            let f = position - Double(m)
            let sinPiF = sin(Double.pi * f)
            var sum = 0.0
            for j in (-halfLength + 1)...halfLength {
                let index = m + j
                guard index >= 0 && index < signal.count else { continue }
                let x = Double(j) - f
                let sinc: Double
                if abs(x) < 1e-12 {
                    sinc = 1
                } else {
                    // sin(π(j − f)) = −(−1)^j·sin(πf)
                    let numerator = (j & 1 == 0 ? -sinPiF : sinPiF)
                    sinc = numerator / (Double.pi * x)
                }
                sum += signal[index] * sinc * table.value(x)
            }
            output[n] = sum
        }
        return output
    }
}

/// A Blackman–Harris window over [−L, L], tabulated finely and read with linear interpolation.
struct WindowTable {
    let halfLength: Int
    private let values: [Double]
    private let resolution = 512

    init(halfLength: Int) {
        self.halfLength = halfLength
        let count = 2 * halfLength * resolution + 1
        values = (0..<count).map { i in
            let t = Double(i) / Double(count - 1)  // 0…1 across [−L, L]
            let a = 2 * Double.pi * t
            return 0.35875 - 0.48829 * cos(a) + 0.14128 * cos(2 * a) - 0.01168 * cos(3 * a)
        }
    }

    /// Window value at `x` in [−L, L] (0 outside).
    func value(_ x: Double) -> Double {
        let position = (x + Double(halfLength)) * Double(resolution)
        guard position >= 0 else { return 0 }
        let i = Int(position)
        guard i + 1 < values.count else { return i < values.count ? values[i] : 0 }
        let frac = position - Double(i)
        return values[i] + (values[i + 1] - values[i]) * frac
    }
}
