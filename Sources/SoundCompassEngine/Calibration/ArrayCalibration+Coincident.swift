#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The coincident model's level cue fitted to frames of known direction: the pair's pattern
/// coefficient `a` and included angle α (``CoincidentPair``) and the hardware gain offset g₀.
///
/// Each frame's covariance gives a principal angle ψ (``CoincidentPair/principalAxis(leftPower:rightPower:crossPower:)``,
/// after removing g₀); the pair predicts `ψ(θ)` at the true azimuth θ. The cost is the weighted
/// sum of `1 − cos(2·(ψ_measured − ψ_predicted))` (the doubled angle, because an axis has no
/// sign), minimised over a grid of `a` (0…1, step 0.02) and α (30…180°, step 2°), refined on a
/// grid ten times finer around the best cell; with g₀ fitted too, the pair and g₀ are fitted in
/// turn (g₀ by golden section within ±12 dB), three rounds.
struct CoincidentPairFit {
    var pair: CoincidentPair
    var offset: Double
    /// Standard errors: pattern coefficient, included angle (degrees), gain offset (dB).
    var patternError: Double
    var angleError: Double
    var offsetError: Double
    /// Weighted RMS residual of ψ, radians.
    var residual: Double

    /// One frame: its second moments, the true azimuth's cosine and sine, its weight.
    struct Frame {
        var leftPower, rightPower, crossPower, cosine, sine, weight: Double
    }

    /// The measured doubled principal angle of `frame` with the gain offset `offset` removed, as a unit vector.
    private static func measured(_ frame: Frame, offset: Double) -> (x: Double, y: Double) {
        let k2 = pow(10, offset / 20)
        let x = frame.leftPower * k2 - frame.rightPower / k2, y = 2 * frame.crossPower
        let norm = (x * x + y * y).squareRoot()
        return norm > 0 ? (x / norm, y / norm) : (0, 0)
    }

    /// The doubled principal angle the pair `(a, half-angle cos/sin)` predicts for `frame`, as a unit vector.
    @inline(__always)
    private static func predicted(_ frame: Frame, a: Double, cosH: Double, sinH: Double) -> (x: Double, y: Double) {
        let b = 1 - a
        let gl = a + b * (frame.cosine * cosH - frame.sine * sinH)
        let gr = a + b * (frame.cosine * cosH + frame.sine * sinH)
        let x = gl * gl - gr * gr, y = 2 * gl * gr
        let norm = (x * x + y * y).squareRoot()
        return norm > 0 ? (x / norm, y / norm) : (0, 0)
    }

    private static func cost(_ frames: [Frame], _ measured: [(x: Double, y: Double)], a: Double, angle: Double) -> Double {
        let h = angle * .pi / 360, cosH = cos(h), sinH = sin(h)
        var sum = 0.0
        for i in frames.indices {
            let p = predicted(frames[i], a: a, cosH: cosH, sinH: sinH)
            sum += frames[i].weight * (1 - (p.x * measured[i].x + p.y * measured[i].y))
        }
        return sum
    }

    /// The best `(a, angle)` for fixed measured angles, by the coarse then the fine grid.
    private static func bestPair(_ frames: [Frame], _ measured: [(x: Double, y: Double)]) -> (a: Double, angle: Double) {
        var best = (cost: Double.infinity, a: 0.5, angle: 90.0)
        for i in 0...50 {
            for j in 0...75 {
                let a = Double(i) * 0.02, angle = 30 + Double(j) * 2
                let c = cost(frames, measured, a: a, angle: angle)
                if c < best.cost { best = (c, a, angle) }
            }
        }
        let centre = best
        for i in -10...10 {
            for j in -10...10 {
                let a = centre.a + Double(i) * 0.002, angle = centre.angle + Double(j) * 0.2
                guard a >= 0, a <= 1, angle > 0, angle <= 180 else { continue }
                let c = cost(frames, measured, a: a, angle: angle)
                if c < best.cost { best = (c, a, angle) }
            }
        }
        return (best.a, best.angle)
    }

    /// Fits the pair (unless `fixedPair`) and the gain offset (unless `fixedOffset`).
    static func fit(_ frames: [Frame], pair fixedPair: CoincidentPair?, offset fixedOffset: Double?) -> CoincidentPairFit {
        var offset = fixedOffset ?? 0
        var pair = fixedPair ?? .xyCardioids
        let rounds = fixedPair == nil && fixedOffset == nil ? 3 : 1
        for _ in 0..<rounds {
            if fixedPair == nil {
                let measured = frames.map { Self.measured($0, offset: offset) }
                let best = bestPair(frames, measured)
                pair = CoincidentPair(pattern: best.a, includedAngleDegrees: best.angle)
            }
            if fixedOffset == nil {
                let current = pair
                offset = CoincidentLevelSearch.golden(offset - 12, offset + 12) { g in
                    cost(frames, frames.map { Self.measured($0, offset: g) }, a: current.pattern, angle: current.includedAngleDegrees)
                }
            }
        }
        return withErrors(frames, pair: pair, offset: offset, fitsPair: fixedPair == nil, fitsOffset: fixedOffset == nil)
    }

    /// Standard errors from the Gauss–Newton normal matrix of the ψ residuals at the optimum.
    private static func withErrors(
        _ frames: [Frame], pair: CoincidentPair, offset: Double, fitsPair: Bool, fitsOffset: Bool
    ) -> CoincidentPairFit {
        func residuals(_ a: Double, _ angle: Double, _ g: Double) -> [Double] {
            let h = angle * .pi / 360, cosH = cos(h), sinH = sin(h)
            return frames.map { frame in
                let m = measured(frame, offset: g), p = predicted(frame, a: a, cosH: cosH, sinH: sinH)
                return 0.5 * atan2(m.y * p.x - m.x * p.y, m.x * p.x + m.y * p.y)
            }
        }
        let a = pair.pattern, angle = pair.includedAngleDegrees
        let r0 = residuals(a, angle, offset)
        let weights = frames.map(\.weight)
        let sw = weights.reduce(0, +)
        let effective = sw * sw / max(weights.reduce(0) { $0 + $1 * $1 }, 1e-300)
        let variance = zip(weights, r0).reduce(0) { $0 + $1.0 * $1.1 * $1.1 } / max(sw, 1e-300)
        // Columns: a, angle, offset (those fitted).
        var columns: [[Double]] = []
        let da = a < 0.99 ? 0.005 : -0.005
        if fitsPair {
            columns.append(zip(residuals(a + da, angle, offset), r0).map { ($0 - $1) / da })
            let dAngle = angle < 179 ? 0.5 : -0.5
            columns.append(zip(residuals(a, angle + dAngle, offset), r0).map { ($0 - $1) / dAngle })
        }
        if fitsOffset { columns.append(zip(residuals(a, angle, offset + 0.05), r0).map { ($0 - $1) / 0.05 }) }
        let n = columns.count
        var normal = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for p in 0..<n {
            for q in 0..<n {
                var sum = 0.0
                for i in frames.indices { sum += weights[i] * columns[p][i] * columns[q][i] }
                normal[p][q] = sum / max(sw, 1e-300)
            }
        }
        let inverse = invert(normal)
        func error(_ k: Int) -> Double {
            guard let inverse, inverse[k][k] > 0 else { return .infinity }
            return (variance * inverse[k][k] / effective).squareRoot()
        }
        return CoincidentPairFit(
            pair: pair, offset: offset,
            patternError: fitsPair ? error(0) : 0, angleError: fitsPair ? error(1) : 0,
            offsetError: fitsOffset ? error(fitsPair ? 2 : 0) : 0, residual: variance.squareRoot())
    }

    /// The inverse of a small symmetric matrix (Gauss–Jordan), or nil when it is singular.
    private static func invert(_ m: [[Double]]) -> [[Double]]? {
        let n = m.count
        var a = m, inv = (0..<n).map { i in (0..<n).map { $0 == i ? 1.0 : 0.0 } }
        for col in 0..<n {
            guard let pivot = (col..<n).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-300 else {
                return nil
            }
            a.swapAt(col, pivot)
            inv.swapAt(col, pivot)
            let scale = a[col][col]
            for k in 0..<n { a[col][k] /= scale; inv[col][k] /= scale }
            for row in 0..<n where row != col {
                let f = a[row][col]
                for k in 0..<n { a[row][k] -= f * a[col][k]; inv[row][k] -= f * inv[col][k] }
            }
        }
        return inv
    }
}

/// One-dimensional search used by the level fits.
enum CoincidentLevelSearch {
    /// Minimum of a unimodal `f` on `[a, b]` by golden-section search.
    static func golden(_ a: Double, _ b: Double, _ f: (Double) -> Double) -> Double {
        let ratio = (5.0.squareRoot() - 1) / 2
        var a = a, b = b
        var c = b - ratio * (b - a), d = a + ratio * (b - a)
        var fc = f(c), fd = f(d)
        for _ in 0..<40 {
            if fc < fd { b = d; d = c; fd = fc; c = b - ratio * (b - a); fc = f(c) }
            else { a = c; c = d; fc = fd; d = a + ratio * (b - a); fd = f(d) }
        }
        return (a + b) / 2
    }
}
