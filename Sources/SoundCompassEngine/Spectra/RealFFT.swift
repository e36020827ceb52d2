#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import CFFTW

/// A real-input FFT of one size over FFTW single precision.
///
/// **Scaling convention** (the same as FFTW's, written down here once):
/// - ``forward(_:_:)`` computes `X[k] = Σₙ x[n]·e^(−2πi·k·n/N)` for `k = 0…N/2`, unnormalised.
/// - ``inverse(_:_:)`` computes `x[n] = Σₖ X[k]·e^(+2πi·k·n/N)` over the full Hermitian spectrum,
///   unnormalised, so `inverse(forward(x)) == N·x`.
///
/// Complex spectra are stored interleaved (`re₀, im₀, re₁, im₁, …`), `N/2 + 1` bins.
///
/// Plans are made once per size for the whole process (see `FFTPlanCache`) with `FFTW_ESTIMATE`
/// and reused by every instance of that size through FFTW's new-array execute functions, so
/// creating a second `RealFFT` of a size already seen costs nothing and the per-frame path never
/// plans. The buffers passed in must come from ``AlignedFloats`` (FFTW's own allocator) so that
/// their alignment matches the planning arrays.
package final class RealFFT: @unchecked Sendable {
    // @unchecked: the plans are immutable after creation and FFTW's execute functions are
    // thread-safe; the instance holds no other mutable state.

    /// Transform length N in samples (even, ≥ 2).
    package let size: Int
    /// Number of complex bins of a real spectrum: `N/2 + 1`.
    package var binCount: Int { size / 2 + 1 }

    private let plans: FFTPlanCache.Plans

    /// Creates (or fetches from the process-wide cache) the forward and inverse plans for `size`.
    /// - Parameter size: transform length in samples, even and at least 2.
    package init(size: Int) {
        precondition(size >= 2 && size % 2 == 0, "RealFFT size must be even and ≥ 2, got \(size)")
        self.size = size
        self.plans = FFTPlanCache.plans(forSize: size)
    }

    /// Forward real-to-complex transform, unnormalised.
    /// - Parameters:
    ///   - input: `size` real samples (FFTW-aligned; left untouched).
    ///   - output: `2·binCount` floats, interleaved complex (FFTW-aligned).
    /// The corresponding C function is `fftwf_execute_dft_r2c`.
    @inlinable
    package func forward(_ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        executeForward(input, output)
    }

    /// Inverse complex-to-real transform, unnormalised (the result is `N` times the signal).
    /// - Parameters:
    ///   - input: `2·binCount` floats, interleaved complex (FFTW-aligned; **overwritten**: FFTW's
    ///     c2r transforms destroy their input unless asked not to, and preserving it makes FFTW
    ///     allocate scratch memory on every call).
    ///   - output: `size` real samples (FFTW-aligned).
    /// The corresponding C function is `fftwf_execute_dft_c2r`.
    @inlinable
    package func inverse(_ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        executeInverse(input, output)
    }

    @usableFromInline
    func executeForward(_ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        output.withMemoryRebound(to: fftwf_complex.self, capacity: binCount) { complex in
            fftwf_execute_dft_r2c(plans.forward, input, complex)
        }
    }

    @usableFromInline
    func executeInverse(_ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        input.withMemoryRebound(to: fftwf_complex.self, capacity: binCount) { complex in
            fftwf_execute_dft_c2r(plans.inverse, complex, output)
        }
    }

    // MARK: - Conveniences (allocate; not for the per-frame path)

    /// Forward transform of an array; returns `binCount` bins as `(re, im)` pairs.
    package func forward(_ signal: [Float]) -> [(re: Float, im: Float)] {
        precondition(signal.count == size, "expected \(size) samples, got \(signal.count)")
        let input = AlignedFloats(count: size)
        let output = AlignedFloats(count: 2 * binCount)
        for i in 0..<size { input[i] = signal[i] }
        forward(input.baseAddress, output.baseAddress)
        return (0..<binCount).map { (output[2 * $0], output[2 * $0 + 1]) }
    }

    /// Inverse transform of `binCount` bins; returns `size` samples (unnormalised: N times the signal).
    package func inverse(_ spectrum: [(re: Float, im: Float)]) -> [Float] {
        precondition(spectrum.count == binCount, "expected \(binCount) bins, got \(spectrum.count)")
        let input = AlignedFloats(count: 2 * binCount)
        let output = AlignedFloats(count: size)
        for (k, bin) in spectrum.enumerated() { input[2 * k] = bin.re; input[2 * k + 1] = bin.im }
        inverse(input.baseAddress, output.baseAddress)
        return (0..<size).map { output[$0] }
    }
}

/// Process-wide FFTW plans, one pair per size, made under a lock (FFTW's planner is not
/// thread-safe; only its execute functions are). Plans live for the whole process.
enum FFTPlanCache {
    struct Plans: @unchecked Sendable {
        // @unchecked: FFTW plans are immutable once made and safe to execute from any thread.
        let forward: OpaquePointer
        let inverse: OpaquePointer
    }

    private static let cache = Locked<[Int: Plans]>([:])

    static func plans(forSize size: Int) -> Plans {
        cache.withLock { cache in
            if let plans = cache[size] { return plans }
            let real = AlignedFloats(count: size)
            let complex = AlignedFloats(count: 2 * (size / 2 + 1))
            let flags = UInt32(FFTW_ESTIMATE)
            let plans = complex.baseAddress.withMemoryRebound(to: fftwf_complex.self, capacity: size / 2 + 1) { c in
                Plans(
                    forward: fftwf_plan_dft_r2c_1d(Int32(size), real.baseAddress, c, flags),
                    inverse: fftwf_plan_dft_c2r_1d(Int32(size), c, real.baseAddress, flags)
                )
            }
            cache[size] = plans
            return plans
        }
    }
}
