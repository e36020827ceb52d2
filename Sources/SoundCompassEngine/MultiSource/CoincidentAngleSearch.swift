#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Candidates of a coincident pair: the peaks of a histogram of the bins' principal angles. A
/// component of ``SourceCandidateFinder`` (which holds one for a coincident pair only), owning
/// its histograms.
///
/// A coincident pair has no time difference; each direction is a ratio of the capsules' gains,
/// the principal angle `ψ = atan2(g_R, g_L)` (``CoincidentPair/principalAngle(azimuthDegrees:)``).
/// In a bin that one source dominates (speech is sparse: W-disjoint orthogonality, as for the
/// spaced pair), `L = g_L·S` and `R = g_R·S`, so `(|L|² − |R|², 2·Re(L·R̄))` points at `2ψ`.
/// Each frame adds its bins (200 Hz … 8 kHz) to a histogram of `2ψ`, weighted by their
/// magnitude `(|L|² + |R|²)^½`; the histogram is averaged like the correlation of the spaced
/// pair (over ``SourceCandidateFinder/Configuration/sourceWindowSeconds``, times the frame's tail weight), and
/// its peaks, mapped through the pair's patterns (``CoincidentPair/azimuth(principalAngle:)``),
/// are the candidates. A candidate's strength is the share of the weight within ±3 bins of its
/// peak.
///
/// The angle is binned by its "diamond" pseudo-angle (monotone in the angle, no
/// trigonometry per bin): ``angleBins`` bins over the full turn of `2ψ`.
package final class CoincidentAngleSearch {
    /// Bins of the principal-angle histogram over the turn of `2ψ` (about 1° of `2ψ` each).
    package static let angleBins = 360
    /// Half-width of a candidate's share of the histogram, bins.
    static let angleMassHalfWidth = 3
    /// Lowest and highest frequency of the bins that vote, Hz.
    static let angleBand: (low: Double, high: Double) = (200, 8000)

    /// The averaged and the frame's histograms of the bins' principal angles (``angleBins`` each).
    private let average: AlignedFloats
    private let frame: AlignedFloats
    /// The bins that vote.
    private let binRange: Range<Int>
    /// The pair's directivity (its principal angle for each azimuth).
    private let pair: CoincidentPair
    /// The calibrated gain offset, right minus left, as a linear power ratio's square root.
    private let gainOffset: Float

    /// - Parameters:
    ///   - array: the coincident pair (its pattern and calibrated gain offset).
    ///   - sampleRate: Hz.
    ///   - fftSize: the broadband estimator's FFT size.
    package init(array: ArrayModel, sampleRate: Double, fftSize: Int) {
        average = AlignedFloats(count: Self.angleBins)
        frame = AlignedFloats(count: Self.angleBins)
        let binHz = sampleRate / Double(fftSize)
        let lowBin = max(1, Int((Self.angleBand.low / binHz).rounded()))
        let highBin = min(fftSize / 2 - 1, Int((min(Self.angleBand.high, 0.45 * sampleRate) / binHz).rounded()))
        binRange = lowBin..<max(lowBin, highBin + 1)
        pair = array.coincidentPair
        gainOffset = Float(pow(10, array.gainOffsetDecibels / 20))
    }

    /// Forgets the average.
    package func reset() { average.zero() }

    /// The pseudo-angle of `(x, y)` in [0, 4): 0 along +x, 1 along +y, 2 along −x, 3 along −y,
    /// monotone in the angle in between.
    @inline(__always)
    static func diamondAngle(x: Float, y: Float) -> Float {
        if y >= 0 {
            return x >= 0 ? y / max(x + y, .leastNormalMagnitude) : 1 - x / (y - x)
        }
        return x < 0 ? 2 - y / (-x - y) : 3 + x / max(x - y, .leastNormalMagnitude)
    }

    /// The angle (radians, in (−π, π]) of the pseudo-angle `p` (taken modulo 4).
    static func angle(diamond p: Double) -> Double {
        var q = p.truncatingRemainder(dividingBy: 4)
        if q < 0 { q += 4 }
        let (x, y): (Double, Double)
        switch q {
        case ..<1: (x, y) = (1 - q, q)
        case ..<2: (x, y) = (1 - q, 2 - q)
        case ..<3: (x, y) = (q - 3, 2 - q)
        default: (x, y) = (q - 3, q - 4)
        }
        return atan2(y, x)
    }

    /// Adds the frame's principal angles to the histogram average.
    package func update(spectra: FrameSpectra, counts: Bool, weight: Float, smoothing a: Float) {
        let bins = Self.angleBins
        let h = frame.baseAddress, avg = average.baseAddress
        frame.zero()
        var total: Float = 0
        if counts {
            let l = spectra.left, r = spectra.right
            // The calibrated gain offset (right minus left, dB), as in the level cue.
            let k2 = gainOffset
            let scale = Float(bins) / 4
            for k in binRange {
                let lp = (l[2 * k] * l[2 * k] + l[2 * k + 1] * l[2 * k + 1]) * k2
                let rp = (r[2 * k] * r[2 * k] + r[2 * k + 1] * r[2 * k + 1]) / k2
                let cross = l[2 * k] * r[2 * k] + l[2 * k + 1] * r[2 * k + 1]
                let magnitude = (lp + rp).squareRoot()
                guard magnitude > 0, magnitude.isFinite else { continue }
                let p = Self.diamondAngle(x: lp - rp, y: 2 * cross)
                let index = min(bins - 1, max(0, Int(p * scale)))
                h[index] += magnitude
                total += magnitude
            }
        }
        let gain: Float = total > 0 && total.isFinite ? weight / total : 0
        for i in 0..<bins { avg[i] += a * (gain * h[i] - avg[i]) }
    }

    /// Finds the candidates in the histogram average, strongest first.
    /// - Parameters:
    ///   - candidates: filled from index 0, at most `candidates.count` (azimuth, strength, share).
    ///   - peakIndices: each candidate's histogram bin.
    /// - Returns: how many candidates were found.
    package func find(into candidates: inout [SourceCandidate], peakIndices lagIndices: inout [Int]) -> Int {
        var count = 0
        let bins = Self.angleBins
        let avg = average.baseAddress, y = frame.baseAddress
        // Circular [1 2 1]/4 (into the frame scratch, which the next update clears).
        @inline(__always) func wrap(_ i: Int) -> Int { (i + bins) % bins }
        for i in 0..<bins { y[i] = 0.25 * (avg[wrap(i - 1)] + avg[wrap(i + 1)]) + 0.5 * avg[i] }
        // Mass within ±angleMassHalfWidth of each bin, and the highest.
        let w = Self.angleMassHalfWidth
        @inline(__always) func mass(_ i: Int) -> Double {
            var sum: Float = 0
            for j in -w...w { sum += avg[wrap(i + j)] }
            return Double(sum)
        }
        var highest = 0.0
        for i in 0..<bins where y[i] >= y[wrap(i - 1)] && y[i] > y[wrap(i + 1)] { highest = max(highest, mass(i)) }
        let floor = max(SourceCandidateFinder.absoluteFloor, SourceCandidateFinder.relativeFloor * highest)
        var total = 0.0
        while count < candidates.count {
            var best = -1
            var bestMass = floor
            for i in 0..<bins where y[i] >= y[wrap(i - 1)] && y[i] > y[wrap(i + 1)] {
                let m = mass(i)
                guard m >= bestMass else { continue }
                var clear = true
                for j in 0..<count {
                    let d = abs(lagIndices[j] - i)
                    if min(d, bins - d) <= 2 * w { clear = false; break }
                }
                if clear { best = i; bestMass = m }
            }
            guard best >= 0 else { break }
            let y0 = Double(y[wrap(best - 1)]), y1 = Double(y[best]), y2 = Double(y[wrap(best + 1)])
            let d = y0 - 2 * y1 + y2
            let offset = d < 0 ? max(-0.5, min(0.5, 0.5 * (y0 - y2) / d)) : 0
            let twicePsi = Self.angle(diamond: (Double(best) + 0.5 + offset) * 4 / Double(bins))
            let azimuth = pair.azimuth(principalAngle: twicePsi / 2)
            candidates[count] = SourceCandidate(azimuth: azimuth, strength: bestMass, share: 0)
            lagIndices[count] = best
            total += bestMass
            count += 1
        }
        for j in 0..<count { candidates[j].share = total > 0 ? candidates[j].strength / total : 0 }
        return count
    }
}
