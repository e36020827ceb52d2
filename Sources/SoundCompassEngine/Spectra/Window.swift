/// Analysis windows.
package enum Window {
    /// A periodic Hann window of `length` samples: `w[n] = 0.5 − 0.5·cos(2πn/length)`.
    ///
    /// Periodic (not symmetric) so that 50 % overlapped windows sum to a constant.
    package static func hann(length: Int) -> [Float] {
        precondition(length > 0)
        return (0..<length).map { n in
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(length)))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
