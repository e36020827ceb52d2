/// Where the peak of the parabola through three equally spaced values lies, in steps from the
/// middle one: `0.5·(before − after)/(before − 2·centre + after)`, clamped to ±0.5 (the peak
/// stays nearer the middle value than its neighbours); 0 when the three do not bend down.
///
/// The one three-point peak interpolation of the engine: GCC-PHAT's start for its Newton
/// refinement (``GCCPHAT``), the multi-source candidates' lags (``SourceCandidateFinder``) and
/// the dominant frequency (``FrameSpectra/dominantFrequency(sampleRate:)``, on log powers).
/// - Parameters:
///   - before: the value one step before the middle.
///   - centre: the middle value (a local maximum, for a meaningful answer).
///   - after: the value one step after the middle.
/// - Returns: the offset of the peak from the middle, −0.5…0.5 steps.
@inline(__always)
package func parabolicPeakOffset(_ before: Double, _ centre: Double, _ after: Double) -> Double {
    let denominator = before - 2 * centre + after
    return denominator < 0 ? max(-0.5, min(0.5, 0.5 * (before - after) / denominator)) : 0
}
