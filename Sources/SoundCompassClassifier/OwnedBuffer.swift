/// A fixed-size buffer that its owner allocates once, zeroed (or filled), and that is freed
/// with it: the parts of ``SourceLabeler`` keep their per-bin and per-frame arrays in these, so
/// that no `deinit` frees dozens of pointers by hand and the hot loops still use raw pointers.
final class OwnedBuffer<Element> {
    // Not Sendable: a mutable buffer belongs to the one object (and thread) that owns it.

    /// Start of the buffer.
    let pointer: UnsafeMutablePointer<Element>
    /// Number of elements.
    let count: Int

    /// Allocates `count` elements, each `value`.
    init(count: Int, value: Element) {
        precondition(count > 0, "an empty buffer")
        pointer = .allocate(capacity: count)
        pointer.initialize(repeating: value, count: count)
        self.count = count
    }

    deinit {
        pointer.deinitialize(count: count)
        pointer.deallocate()
    }
}

extension OwnedBuffer where Element: Numeric {
    /// Allocates `count` zeros.
    convenience init(zeros count: Int) { self.init(count: count, value: 0) }
}
