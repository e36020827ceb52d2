#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The averaged correlation's point-spread function: the correlation one source alone would
/// leave, from the bins' averaged weights. A component of ``SourceCandidateFinder`` that owns
/// its buffers: it averages each frame's bin weights (``average(_:counts:weight:smoothing:)``),
/// groups them when a frame's candidates are searched (``groupBinWeights()``), and gives the
/// sidelobe a candidate leaves at a lag (``sidelobe(at:)``), which the finder takes off the
/// weaker candidates (its sidelobe removal, the plain and the excess candidates alike) and
/// which tells two candidates on each other's main lobe (``mainLobeShare(_:)``).
package final class PointSpread {
    /// Recursive average (like the finder's correlation average) of each bin's share
    /// `|G[k]|/Σ|G|` of the frames' weighted cross-spectra: the average correlation's
    /// point-spread function is its cosine transform (see ``sidelobe(at:)``).
    private let binWeights: AlignedFloats
    /// Scratch: the frame's `|G[k]|` (the excess averages read it too: ``magnitudes``).
    private let frameMagnitudes: AlignedFloats
    /// `(1 + cos ωₖ)/2` per bin: the [1 2 1]/4 smoothing in the frequency domain.
    private let smoothingFactors: AlignedFloats
    /// Bins per group in ``sidelobe(at:)``: few enough that a group's phase spread stays below
    /// half a radian at the largest lag difference (2·searchLag + 1 samples).
    private let groupSize: Int
    private let groupCount: Int
    /// The grouped bin weights (``groupBinWeights()``).
    private let groupWeights: AlignedFloats
    private let fftSize: Int
    /// `sidelobe(at: 0)` of the current search (set by ``measurePeak()``; 0 when not measured).
    package private(set) var peak = 0.0

    /// - Parameters:
    ///   - fftSize: the broadband estimator's FFT size `n`.
    ///   - searchLag: the lag window, whole samples each side.
    package init(fftSize n: Int, searchLag: Int) {
        fftSize = n
        binWeights = AlignedFloats(count: n / 2 + 1)
        frameMagnitudes = AlignedFloats(count: n / 2 + 1)
        smoothingFactors = AlignedFloats(count: n / 2 + 1)
        for k in 0...(n / 2) {
            smoothingFactors.baseAddress[k] = Float(0.5 * (1 + cos(2 * Double.pi * Double(k) / Double(n))))
        }
        groupSize = max(1, Int(0.5 * Double(n) / (2 * Double.pi * Double(2 * searchLag + 1))))
        groupCount = (n / 2 - 1 + groupSize - 1) / groupSize
        groupWeights = AlignedFloats(count: groupCount)
    }

    /// Forgets the averaged weights.
    package func reset() { binWeights.zero() }

    /// The last frame's `|G[k]|` (written by ``average(_:counts:weight:smoothing:)`` when the
    /// frame counts), `n/2 + 1` values.
    package var magnitudes: UnsafeMutablePointer<Float> { frameMagnitudes.baseAddress }

    /// Groups the weights and measures the point-spread function's peak, ``peak``.
    /// - Returns: the peak.
    @discardableResult
    package func measurePeak() -> Double {
        groupBinWeights()
        peak = sidelobe(at: 0)
        return peak
    }

    /// `binWeights += smoothing·(weight·|G[k]|/Σ|G| − binWeights)` for bins 1 ..< fftSize/2, with
    /// `|G[k]|` from the frame's weighted cross-spectrum `g`; decay only when the frame does not
    /// count. Eight bins at a time.
    /// - Returns: `Σ|G[k]|` of the frame (0 when it does not count).
    @discardableResult
    package func average(_ g: UnsafePointer<Float>, counts: Bool, weight: Float, smoothing a: Float) -> Float {
        typealias V = SIMD8<Float>
        let bins = fftSize / 2
        let m = binWeights.baseAddress, magnitude = frameMagnitudes.baseAddress
        let raw = UnsafeRawPointer(g)
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> V {
            UnsafeRawPointer(p).loadUnaligned(as: V.self)
        }
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
        }
        var sum: Float = 0
        if counts {
            var total = V()
            var k = 1
            while k + 8 <= bins {
                let gg = raw.loadUnaligned(fromByteOffset: 2 * k * MemoryLayout<Float>.stride, as: SIMD16<Float>.self)
                let re = gg.evenHalf, im = gg.oddHalf
                let v = (re * re + im * im).squareRoot()
                store(v, magnitude + k)
                total += v
                k += 8
            }
            sum = total.sum()
            while k < bins {
                magnitude[k] = (g[2 * k] * g[2 * k] + g[2 * k + 1] * g[2 * k + 1]).squareRoot()
                sum += magnitude[k]
                k += 1
            }
        }
        let scale: Float = counts && sum > 0 && sum.isFinite ? weight / sum : 0
        let vs = V(repeating: scale), va = V(repeating: a)
        var k = 1
        while k + 8 <= bins {
            let old = load(m + k)
            let x = scale > 0 ? vs * load(magnitude + k) : V()
            store(old + va * (x - old), m + k)
            k += 8
        }
        while k < bins {
            let x = scale > 0 ? scale * magnitude[k] : 0
            m[k] += a * (x - m[k])
            k += 1
        }
        return counts && sum.isFinite ? sum : 0
    }

    /// The point-spread function at `delta` samples as a share of its peak (0 without one).
    package func mainLobeShare(_ delta: Int) -> Double {
        peak > 0 ? abs(sidelobe(at: Double(delta))) / peak : 0
    }

    /// The smoothed average correlation of one source at lag 0, at lag `delta` samples:
    /// `Σₖ Mₖ·(1 + cos ωₖ)/2·cos(ωₖ·delta)` with `Mₖ` the averaged bin weights (the [1 2 1]/4
    /// smoothing is the factor `(1 + cos ωₖ)/2`), summed over groups of `groupSize` bins at
    /// their centre frequency (`groupWeights`, filled by `groupBinWeights()`).
    package func sidelobe(at delta: Double) -> Double {
        let w = groupWeights.baseAddress, width = Double(groupSize)
        let step = 2 * Double.pi / Double(fftSize) * width
        // The first group's centre is bin 1 + (width − 1)/2; phasors walked group by group.
        let first = 2 * Double.pi / Double(fftSize) * (1 + (width - 1) / 2) * delta
        let (sd, cd) = (sin(step * delta), cos(step * delta))
        var c = cos(first), sn = sin(first)
        var total = 0.0
        for g in 0..<groupCount {
            total += Double(w[g]) * c
            (c, sn) = (c * cd - sn * sd, sn * cd + c * sd)
        }
        return total
    }

    /// Sums the averaged bin weights, times the smoothing's factor `(1 + cos ωₖ)/2`, into
    /// groups of `groupSize` bins (bins 1 ..< fftSize/2).
    package func groupBinWeights() {
        let m = binWeights.baseAddress, f = smoothingFactors.baseAddress, w = groupWeights.baseAddress
        let bins = fftSize / 2
        for g in 0..<groupCount {
            var sum: Float = 0
            let low = 1 + g * groupSize
            for k in low..<min(bins, low + groupSize) { sum += m[k] * f[k] }
            w[g] = sum
        }
    }
}
