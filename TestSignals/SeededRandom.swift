#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small, fast, seedable random number generator (xoshiro256**, seeded through SplitMix64),
/// so every signal in this library is the same on every machine and every run.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)
    private var spareGaussian: Double?

    /// - Parameter seed: any value; equal seeds give equal sequences.
    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    public mutating func next() -> UInt64 {
        let result = rotl(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotl(state.3, 45)
        return result
    }

    /// A uniform value in [0, 1).
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A standard normal value (mean 0, variance 1), by the Box–Muller transform.
    public mutating func gaussian() -> Double {
        if let spare = spareGaussian { spareGaussian = nil; return spare }
        var u = uniform()
        while u <= 0 { u = uniform() }
        let v = uniform()
        let radius = (-2 * log(u)).squareRoot()
        spareGaussian = radius * sin(2 * Double.pi * v)
        return radius * cos(2 * Double.pi * v)
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
