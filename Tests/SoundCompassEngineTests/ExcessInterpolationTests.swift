import Foundation
import Testing
@testable import SoundCompassEngine

/// The onset average read between its lags (``ExcessAverage/onsetAverage(atStep:)``): a
/// windowed-sinc interpolation of a band-limited correlation, which the finder uses beside a
/// steady source (`SourceCandidates+BesideSteady.swift`).
struct ExcessInterpolationTests {
    /// The excess average of a 512-point frame at 16 kHz with a lag window of ±9 samples (a 15 cm
    /// pair): transformed at `M` = 256, so its correlation is periodic in 256 lags.
    static func average() -> ExcessAverage {
        ExcessAverage(fftSize: 512, searchLag: 9, sampleRate: 16000, hopDuration: 0.016, windowSeconds: 0.3, historyRows: 16)
    }

    /// The correlation of a whitened spectrum on bins `1 ..< M/2` (every bin equal up to the
    /// Nyquist frequency: the hardest case for a truncated kernel) of a source at lag `x0`, at
    /// lag `x`, peak 1.
    static func correlation(_ x: Double, source x0: Double, size m: Int) -> Double {
        var sum = 0.0
        for k in 1..<(m / 2) { sum += cos(2 * Double.pi * Double(k) * (x - x0) / Double(m)) }
        return sum / Double(m / 2 - 1)
    }

    /// Writes the correlation of a source at `x0` into the average's lags and flanks.
    static func fill(_ average: ExcessAverage, source x0: Double) {
        let K = average.searchLag, P = ExcessAverage.interpolationTaps, m = 256
        for lag in -K...K { average.onsetAverage[lag + K] = Float(correlation(Double(lag), source: x0, size: m)) }
        for i in 0..<P {
            average.onsetFlanks[i] = Float(correlation(Double(-K - P + i), source: x0, size: m))
            average.onsetFlanks[P + i] = Float(correlation(Double(K + 1 + i), source: x0, size: m))
        }
    }

    // Measured when written (NumPy, the same kernel): the largest error over the grid 0.046–0.070
    // of the peak for these sources; the grid's highest point within 0.07 samples of the source.
    @Test("between the lags the interpolation follows the band-limited correlation within 0.08 of its peak, and its highest point is the source's lag",
          arguments: [6.37, 6.997, -4.52, 0.25])
    func followsTheCorrelation(source x0: Double) {
        let average = Self.average()
        Self.fill(average, source: x0)
        let steps = ExcessAverage.interpolationSteps, K = average.searchLag
        var worst = 0.0, bestStep = 0, bestValue = -Float.infinity
        for step in (-K * steps)...(K * steps) {
            let value = average.onsetAverage(atStep: step)
            worst = max(worst, abs(Double(value) - Self.correlation(Double(step) / Double(steps), source: x0, size: 256)))
            if value > bestValue { bestValue = value; bestStep = step }
        }
        #expect(worst <= 0.08, "largest error \(worst)")
        #expect(abs(Double(bestStep) / Double(steps) - x0) <= 0.1, "highest at \(Double(bestStep) / Double(steps))")
        // At the whole lags the interpolation is the average itself.
        for lag in [-K, -3, 0, 5, K] {
            #expect(abs(average.onsetAverage(atStep: lag * steps) - average.onsetAverage(atWholeLag: lag)) <= 1e-5)
        }
    }

    @Test("two sources 1.6 samples apart: one peak once smoothed by [1 2 1]/4, two between the lags")
    func resolvesWhatTheSmoothingMerges() {
        let average = Self.average()
        let K = average.searchLag, P = ExcessAverage.interpolationTaps
        // A noise's leak at 5.36 (half height) and a talker at 6.997: a talker at +90° and a
        // noise at +50° for a 15 cm pair at 16 kHz.
        func both(_ x: Double) -> Double {
            0.5 * Self.correlation(x, source: 5.36, size: 256) + Self.correlation(x, source: 6.997, size: 256)
        }
        for lag in -K...K { average.onsetAverage[lag + K] = Float(both(Double(lag))) }
        for i in 0..<P {
            average.onsetFlanks[i] = Float(both(Double(-K - P + i)))
            average.onsetFlanks[P + i] = Float(both(Double(K + 1 + i)))
        }
        // Smoothed at the whole lags (as the finder searches): one local maximum between 3 and 9.
        let smoothed = (3...8).map { lag in
            0.25 * average.onsetAverage(atWholeLag: lag - 1) + 0.5 * average.onsetAverage(atWholeLag: lag)
                + 0.25 * average.onsetAverage(atWholeLag: lag + 1)
        }
        let smoothedPeaks = (1..<(smoothed.count - 1)).filter { smoothed[$0] > smoothed[$0 - 1] && smoothed[$0] >= smoothed[$0 + 1] }
        #expect(smoothedPeaks.count <= 1, "smoothed \(smoothed)")
        // Between the lags, unsmoothed: a local maximum within 0.15 samples of the talker and
        // another on the noise's side (the two main lobes push each other apart: 5.0 and 7.1,
        // computed when written).
        let steps = ExcessAverage.interpolationSteps
        let grid = (40...(K * steps)).map { (Double($0) / Double(steps), average.onsetAverage(atStep: $0)) }
        let peaks = (1..<(grid.count - 1)).filter { grid[$0].1 > grid[$0 - 1].1 && grid[$0].1 >= grid[$0 + 1].1 }.map { grid[$0].0 }
        #expect(peaks.contains { abs($0 - 6.997) <= 0.15 }, "peaks \(peaks)")
        #expect(peaks.contains { $0 < 6 }, "peaks \(peaks)")
    }
}
