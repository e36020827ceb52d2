import CFFTW

/// A zero-initialised float buffer from FFTW's allocator (SIMD-aligned), freed on deinit.
package final class AlignedFloats {
    // Not Sendable: a mutable buffer belongs to the one object (and thread) that owns it.

    /// Start of the buffer.
    package let baseAddress: UnsafeMutablePointer<Float>
    /// Number of floats.
    package let count: Int

    /// Allocates `count` floats, all zero.
    package init(count: Int) {
        precondition(count > 0)
        guard let pointer = fftwf_alloc_real(count) else {
            fatalError("fftwf_alloc_real(\(count)) failed: out of memory")
        }
        pointer.initialize(repeating: 0, count: count)
        self.baseAddress = pointer
        self.count = count
    }

    deinit { fftwf_free(baseAddress) }

    /// The buffer as a buffer pointer.
    package var buffer: UnsafeMutableBufferPointer<Float> { .init(start: baseAddress, count: count) }

    /// Element access (bounds-checked in debug builds).
    package subscript(index: Int) -> Float {
        get { assert(index >= 0 && index < count); return baseAddress[index] }
        set { assert(index >= 0 && index < count); baseAddress[index] = newValue }
    }

    /// Sets every element to zero.
    package func zero() { baseAddress.update(repeating: 0, count: count) }
}
