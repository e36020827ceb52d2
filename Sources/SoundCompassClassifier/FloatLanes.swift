/// Eight floats at a time, for the per-bin loops of ``SourceLabeler``'s parts: unaligned loads
/// and stores, and min and max as compare-and-blend (the generic `pointwiseMin` is not inlined).
enum FloatLanes {
    typealias V = SIMD8<Float>

    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> V {
        UnsafeRawPointer(p).loadUnaligned(as: V.self)
    }

    @inline(__always) static func store(_ v: V, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
    }

    @inline(__always) static func min(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .< x) }

    @inline(__always) static func max(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .> x) }
}
