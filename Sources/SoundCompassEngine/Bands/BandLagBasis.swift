#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cosines and sines that give one band's correlation at the few lags a band estimate
/// reads, straight from the band's bins, instead of an inverse FFT of the whole spectrum.
///
/// The inverse real FFT (FFTW's unnormalised c2r, see ``RealFFT``) of a spectrum that is zero
/// outside bins `first…last` (all strictly between DC and Nyquist) is, at lag `τ`,
/// `x[τ] = 2·Σₖ Re(G[k]·e^(iωkτ)) = 2·(A(τ) − B(τ))`, `x[−τ] = 2·(A(τ) + B(τ))`, with
/// `A(τ) = Σₖ Re G[k]·cos(ωkτ)`, `B(τ) = Σₖ Im G[k]·sin(ωkτ)` and `ω = 2π/N`. So the lags
/// `−L…L` need only `A` and `B` at `τ = 0…L`: `(L + 1)·bins` multiply-adds each, against a
/// whole inverse FFT. The table holds `cos(ωkτ)` and `sin(ωkτ)` (computed in double precision
/// from the exact phase `(k·τ mod N)/N`, then rounded) for `τ = 0…L`, bins padded with zeros
/// to a multiple of eight so that eight bins load as one vector.
///
/// Worth it only while the lags times the bins stay small against an FFT:
/// ``init(firstBin:lastBin:fftSize:largestLag:)`` returns nil beyond `12·N` (then the band keeps
/// the inverse FFT). Life cycle: `init` allocates; ``correlate(into:fftSize:scale:)``
/// never allocates.
package final class BandLagBasis {
    /// First FFT bin of the band (≥ 1).
    package let firstBin: Int
    /// Last FFT bin of the band (≤ N/2 − 1, ≥ `firstBin`).
    package let lastBin: Int
    /// Largest lag evaluated, samples: the correlation is given at `−largestLag…largestLag`.
    package let largestLag: Int
    /// The band's bin count rounded up to a multiple of eight.
    package let paddedCount: Int
    /// `cos(ωkτ)`, row `τ` (`0…largestLag`) of `paddedCount` bins from `firstBin` (0 past `lastBin`).
    private let cosines: AlignedFloats
    /// `sin(ωkτ)`, laid out like `cosines`.
    private let sines: AlignedFloats
    /// Scratch for the band's bins, real parts then imaginary parts (`paddedCount` each, the
    /// padding 0), filled by the caller before ``correlate(into:fftSize:scale:)``.
    package let real: AlignedFloats
    package let imaginary: AlignedFloats

    /// The largest `(largestLag + 1) × paddedCount` table, in units of the FFT size, for which
    /// the lags are cheaper than an inverse FFT.
    static let largestCostPerFFTPoint = 12

    /// - Parameters:
    ///   - firstBin: the band's first bin (clipped to ≥ 1).
    ///   - lastBin: the band's last bin (clipped to ≤ N/2 − 1).
    ///   - fftSize: FFT size `N` (even).
    ///   - largestLag: largest lag needed, samples (≥ 0).
    /// - Returns: nil when the band holds no bin, or when its table would cost more than an
    ///   inverse FFT (see the type's notes).
    package init?(firstBin: Int, lastBin: Int, fftSize n: Int, largestLag: Int) {
        let first = max(1, firstBin), last = min(n / 2 - 1, lastBin)
        guard last >= first, largestLag >= 0 else { return nil }
        let padded = (last - first + 1 + 7) / 8 * 8
        guard padded * (largestLag + 1) <= Self.largestCostPerFFTPoint * n else { return nil }
        self.firstBin = first
        self.lastBin = last
        self.largestLag = largestLag
        self.paddedCount = padded
        cosines = AlignedFloats(count: padded * (largestLag + 1))
        sines = AlignedFloats(count: padded * (largestLag + 1))
        real = AlignedFloats(count: padded)
        imaginary = AlignedFloats(count: padded)
        for tau in 0...largestLag {
            for j in 0..<(last - first + 1) {
                let k = first + j
                let phase = 2 * Double.pi * Double((k * tau) % n) / Double(n)
                cosines[tau * padded + j] = Float(cos(phase))
                sines[tau * padded + j] = Float(sin(phase))
            }
        }
    }

    /// Writes the inverse real FFT of the band (`real` + i·`imaginary` at its bins, 0
    /// elsewhere), times `scale`, at the lags `−largestLag…largestLag` into `c`, each lag `τ` at
    /// `c[(τ + N) mod N]` as the FFT would place it. Other entries of `c` are left as they were.
    /// Never allocates.
    /// - Parameters:
    ///   - c: `fftSize` floats.
    ///   - fftSize: the FFT size `N` the table was made for.
    ///   - scale: factor applied to every value.
    package func correlate(into c: UnsafeMutablePointer<Float>, fftSize n: Int, scale: Float) {
        typealias V = SIMD8<Float>
        let re = UnsafeRawPointer(real.baseAddress), im = UnsafeRawPointer(imaginary.baseAddress)
        let end = paddedCount * MemoryLayout<Float>.stride
        @inline(__always) func load(_ p: UnsafeRawPointer, _ offset: Int) -> V {
            p.loadUnaligned(fromByteOffset: offset, as: V.self)
        }
        @inline(__always) func row(_ table: AlignedFloats, _ tau: Int) -> UnsafeRawPointer {
            UnsafeRawPointer(table.baseAddress + tau * paddedCount)
        }
        @inline(__always) func store(_ tau: Int, _ a: V, _ b: V) {
            let sumA = a.sum(), sumB = b.sum()
            c[tau] = 2 * (sumA - sumB) * scale
            if tau > 0 { c[n - tau] = 2 * (sumA + sumB) * scale }
        }
        // Two lags per pass over the bins, which then load once for both.
        var tau = 0
        while tau + 1 <= largestLag {
            let cos0 = row(cosines, tau), sin0 = row(sines, tau), cos1 = row(cosines, tau + 1), sin1 = row(sines, tau + 1)
            var a0 = V(), b0 = V(), a1 = V(), b1 = V()
            var offset = 0
            while offset < end {
                let x = load(re, offset), y = load(im, offset)
                a0 += x * load(cos0, offset)
                b0 += y * load(sin0, offset)
                a1 += x * load(cos1, offset)
                b1 += y * load(sin1, offset)
                offset += MemoryLayout<V>.stride
            }
            store(tau, a0, b0)
            store(tau + 1, a1, b1)
            tau += 2
        }
        if tau == largestLag {
            let cos0 = row(cosines, tau), sin0 = row(sines, tau)
            var a0 = V(), b0 = V()
            var offset = 0
            while offset < end {
                a0 += load(re, offset) * load(cos0, offset)
                b0 += load(im, offset) * load(sin0, offset)
                offset += MemoryLayout<V>.stride
            }
            store(tau, a0, b0)
        }
    }
}
