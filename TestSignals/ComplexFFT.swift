#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A plain radix-2 complex FFT in double precision. It is deliberately independent of the
/// engine's FFTW wrapper so that signals made here are an outside oracle for the engine.
enum ComplexFFT {
    /// In-place transform of `re`/`im` (length a power of two). `inverse` uses `e^(+i…)` and
    /// divides by N, so `inverse(forward(x)) == x`.
    static func transform(re: inout [Double], im: inout [Double], inverse: Bool) {
        let n = re.count
        precondition(n == im.count && n > 0 && n & (n - 1) == 0, "length must be a power of two")
        // Bit reversal.
        var j = 0
        for i in 1..<max(n, 2) where i < n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        let sign: Double = inverse ? 1 : -1
        while length <= n {
            let angle = sign * 2 * Double.pi / Double(length)
            let half = length / 2
            // Twiddles computed directly per butterfly index (accurate for long transforms).
            var twiddleRe = [Double](repeating: 0, count: half)
            var twiddleIm = [Double](repeating: 0, count: half)
            for k in 0..<half { twiddleRe[k] = cos(angle * Double(k)); twiddleIm[k] = sin(angle * Double(k)) }
            var start = 0
            while start < n {
                for k in 0..<half {
                    let a = start + k, b = a + half
                    let tr = re[b] * twiddleRe[k] - im[b] * twiddleIm[k]
                    let ti = re[b] * twiddleIm[k] + im[b] * twiddleRe[k]
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
                start += length
            }
            length <<= 1
        }
        if inverse {
            let scale = 1 / Double(n)
            for i in 0..<n { re[i] *= scale; im[i] *= scale }
        }
    }

    /// The power of two at least `n`.
    static func size(atLeast n: Int) -> Int {
        var size = 1
        while size < n { size <<= 1 }
        return size
    }
}
