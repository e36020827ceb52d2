/// A new sound's lag beside a steady source, read from the onset average between its lags: a
/// component of ``SourceCandidateFinder``'s excess search that owns its scratch.
///
/// The excess candidates are searched in the onset average smoothed by [1 2 1]/4, which halves
/// its bandwidth (see `ExcessAverage+Interpolation.swift`): a new sound within about two samples
/// of a steady source merges with what is left of the steady source's peak there (its leak)
/// into one peak between them. A talker at ±90° beside a noise 40° nearer the front, 1.6
/// samples apart at 16 kHz for a 15 cm pair, was read 15–30° inward, or dropped as the noise's
/// leak (within ``ExcessCandidateSearch/steadySeparationSamples`` of it): on the steady-noise room sweep (RT60 0.3 s,
/// 0 dB) a candidate lay within 10° of that talker in 31–32 % of its frames.
///
/// So an excess peak within the candidates' separation of a steady source's lag is read again, unsmoothed:
/// the onset average interpolated on a grid of tenths of a sample within
/// ``besideSteadyReach`` of the peak, and of its local maxima at least
/// ``ExcessCandidateSearch/steadySeparationSamples`` from every steady source the highest, refined by a parabola
/// (the nearest to the smoothed peak gave the same sweep to the digit). That talker's
/// candidates within 10°: 55 %. Away from steady sources nothing changes: the smoothing's work,
/// keeping a peak's ringing from reading as peaks beside it, is still needed there (reading
/// every excess peak near the window's edge this way also read a ±70° talker at its side-wall
/// image, 84°: see Docs/Accuracy.md).
package final class BesideSteadySearch {
    /// Half-width of the unsmoothed search around an excess peak beside a steady source,
    /// samples: the smoothing moves a merged peak by up to the two sources' distance, which is
    /// below the candidates' separation; a NumPy prototype on the steady-noise room sweep found
    /// 1.2 enough.
    static let besideSteadyReach = 1.2
    /// ``besideSteadyReach`` in steps of the interpolation grid.
    static let besideSteadyReachSteps = Int((besideSteadyReach * Double(ExcessAverage.interpolationSteps)).rounded())

    /// The unsmoothed onset average on its grid around the peak being read.
    private let values = AlignedFloats(count: 2 * BesideSteadySearch.besideSteadyReachSteps + 1)

    package init() {}

    /// The lag of the new sound behind the excess peak at `lag` when a steady source lies
    /// within `separation` of it (see the type's notes), samples; nil when none does or the
    /// unsmoothed average has no local maximum clear of the steady sources there. Never
    /// allocates.
    /// - Parameters:
    ///   - lag: the excess peak's lag in the smoothed average, samples.
    ///   - lags: the candidates' lags, samples; the first `steadyCount` are the steady sources'.
    ///   - steadyCount: how many steady candidates.
    ///   - separation: the candidates' least separation, samples.
    ///   - limit: the largest |lag| searched, samples (at most the search's lag window).
    ///   - excess: the excess averages.
    package func lag(
        besideSteady lag: Double, lags: [Double], steadyCount: Int, separation: Double, limit: Double,
        excess: ExcessAverage
    ) -> Double? {
        guard Self.hasSteadyLag(within: separation, of: lag, lags: lags, steadyCount: steadyCount) else { return nil }
        let steps = Double(ExcessAverage.interpolationSteps)
        let centre = Int((lag * steps).rounded()), reach = Self.besideSteadyReachSteps
        let lowest = max(centre - reach, Int((-limit * steps).rounded(.up)))
        let highest = min(centre + reach, Int((limit * steps).rounded(.down)))
        guard highest - lowest >= 2 else { return nil }
        let u = values.baseAddress
        for g in lowest...highest { u[g - lowest] = excess.onsetAverage(atStep: g) }
        var best: Double?, bestValue: Float = 0
        for i in 1..<(highest - lowest) where u[i] > u[i - 1] && u[i] >= u[i + 1] {
            let offset = parabolicPeakOffset(Double(u[i - 1]), Double(u[i]), Double(u[i + 1]))
            let x = (Double(lowest + i) + offset) / steps
            guard !Self.hasSteadyLag(
                within: ExcessCandidateSearch.steadySeparationSamples, of: x, lags: lags, steadyCount: steadyCount)
            else { continue }
            if best == nil || u[i] > bestValue { best = x; bestValue = u[i] }
        }
        return best
    }

    /// Whether one of the first `steadyCount` of `lags` (the steady candidates') lies closer than
    /// `distance` samples to `lag`.
    static func hasSteadyLag(within distance: Double, of lag: Double, lags: [Double], steadyCount: Int) -> Bool {
        for j in 0..<steadyCount where abs(lags[j] - lag) < distance { return true }
        return false
    }
}
