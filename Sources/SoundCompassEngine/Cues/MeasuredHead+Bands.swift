#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// A measured head read against every band's delay at once: this needs the cues' per-band
// measurements (CueMeasurements), so it lives in the Cues layer, above the head's tables.
extension MeasuredHead {
    /// The lateral value `sin θ` (−1…1) at which the frame's delays, the broadband one and each
    /// band's, agree best with the head's tables (see the type's notes). Each estimate `e` is a
    /// peak that is the source's with probability `p_e`, its time confidence (0 below the
    /// gate), its delay then spread normally about its table's with its spread `σ_e`
    /// (``Estimate/delaySpreads``, the mean of the stretch's two ends), and otherwise anywhere
    /// in the searched lag range (`outlierSpanSeconds`) alike. The azimuth of least
    /// `Σ_e −log(p_e·N(τ_e; path_e(θ), σ_e) + (1 − p_e)/span)` is searched on the measured
    /// azimuths and three points between each two; then the estimates more likely the source's
    /// than not there are fitted in least squares (closed form over each stretch, where every
    /// table is linear in the azimuth) on the stretches beside it. Never allocates.
    /// - Parameters:
    ///   - broadband: the frame's broadband delay (seconds, right minus left, as measured), its
    ///     low-frequency share (0…1) and its time confidence (0…1).
    ///   - levelDBFS: the frame's level, dBFS (the broadband estimate's gate).
    ///   - bands: what each band measured this frame, in the order of ``estimates``[1…].
    ///   - delayOffsetSeconds: the hardware's delay offset, removed from every delay.
    ///   - outlierSpanSeconds: the width of the lag range a wrong peak may fall in, seconds
    ///     (both sides of the window: ``ArrayModel/lagWindowSeconds`` × 2).
    ///   - gateDBFS: the silence gate, dBFS.
    /// - Returns: `sin θ`, or nil without bands or when nothing is heard (then the broadband
    ///   delay is read alone, ``lateral(delay:lowFrequencyShare:estimate:)``).
    package func lateral(
        broadband: (delaySeconds: Double, lowFrequencyShare: Double, confidence: Double), levelDBFS: Double,
        bands: [CueMeasurements], delayOffsetSeconds: Double, outlierSpanSeconds: Double, gateDBFS: Double
    ) -> Double? {
        let n = azimuths.count
        let count = min(bands.count, estimates.count - 1)
        guard n >= 2, count > 0, outlierSpanSeconds > 0 else { return nil }
        // Estimate `index`'s probability of being the source's peak, delay and share.
        @inline(__always) func measured(_ index: Int) -> (p: Double, delay: Double, share: Double) {
            if index == 0 {
                return (levelDBFS >= gateDBFS ? max(0, min(1, broadband.confidence)) : 0,
                        broadband.delaySeconds - delayOffsetSeconds, broadband.lowFrequencyShare)
            }
            let m = bands[index - 1]
            return (m.levelDBFS >= gateDBFS ? max(0, min(1, m.timeConfidence)) : 0,
                    m.delaySeconds - delayOffsetSeconds, m.lowFrequencyShare ?? 0)
        }
        var heard = false
        for index in 0...count where measured(index).p > 0 { heard = true }
        guard heard else { return nil }
        let outlier = 1 / outlierSpanSeconds
        let normal = 1 / (2 * Double.pi).squareRoot()
        // The density of estimate `e`'s measurement `m` as the source's peak, with the source at
        // point `t` (0…1) of stretch `j` (between azimuths `j − 1` and `j`), times `p`.
        @inline(__always) func sourceDensity(
            _ e: Estimate, _ m: (p: Double, delay: Double, share: Double), stretch j: Int, at t: Double
        ) -> Double {
            let start = Self.path(e, j - 1, share: m.share), end = Self.path(e, j, share: m.share)
            let sigma = 0.5 * (e.delaySpreads[j - 1] + e.delaySpreads[j])
            let z = (-m.delay - (start + t * (end - start))) / sigma
            return m.p * normal / sigma * exp(-0.5 * z * z)
        }
        // 1. The likeliest point of the search grid.
        var bestCost = Double.infinity, bestStretch = 1, bestT = 0.0
        for j in 1..<n {
            for step in 0...Self.searchSteps where step < Self.searchSteps || j == n - 1 {
                let t = Double(step) / Double(Self.searchSteps)
                var cost = 0.0
                for index in 0...count {
                    let m = measured(index)
                    guard m.p > 0 else { continue }
                    let density = sourceDensity(estimates[index], m, stretch: j, at: t)
                    cost -= log(density + (1 - m.p) * outlier + .leastNormalMagnitude)
                }
                if cost < bestCost {
                    (bestCost, bestStretch, bestT) = (cost, j, t)
                }
            }
        }
        // 2. The estimates more likely the source's than not there, fitted in least squares
        //    over the stretches beside it.
        var fitCost = Double.infinity, fitAzimuth = azimuths[bestStretch - 1] + bestT * (azimuths[bestStretch] - azimuths[bestStretch - 1])
        for j in max(1, bestStretch - 1)...min(n - 1, bestStretch + 1) {
            var rr = 0.0, rd = 0.0, dd = 0.0, inliers = 0
            for index in 0...count {
                let m = measured(index)
                guard m.p > 0 else { continue }
                let e = estimates[index]
                // Inlier or not at the grid's best point.
                guard sourceDensity(e, m, stretch: bestStretch, at: bestT) >= (1 - m.p) * outlier else { continue }
                inliers += 1
                let start = Self.path(e, j - 1, share: m.share), end = Self.path(e, j, share: m.share)
                let sigma = 0.5 * (e.delaySpreads[j - 1] + e.delaySpreads[j])
                let w = m.p / (sigma * sigma)
                let r = -m.delay - start
                let d = end - start
                rr += w * r * r
                rd += w * r * d
                dd += w * d * d
            }
            guard inliers > 0 else { continue }
            let t = dd > 0 ? max(0, min(1, rd / dd)) : 0.5
            let cost = rr - 2 * t * rd + t * t * dd
            if cost < fitCost {
                fitCost = cost
                fitAzimuth = azimuths[j - 1] + t * (azimuths[j] - azimuths[j - 1])
            }
        }
        return sin(fitAzimuth * Double.pi / 180)
    }
}
