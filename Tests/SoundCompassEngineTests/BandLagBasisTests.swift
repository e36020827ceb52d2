import Foundation
import Testing
import SoundCompassEngine
import TestSignals

/// A band's correlation at the searched lags from its cosine/sine table (``BandLagBasis``)
/// against the inverse FFT of the band's bins it replaces.
struct BandLagBasisTests {
    /// Random complex bins (each part uniform in ±1, seeded) for `bins`, zero elsewhere,
    /// interleaved over `n/2 + 1` bins.
    static func spectrum(n: Int, bins: ClosedRange<Int>, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        var x = [Float](repeating: 0, count: 2 * (n / 2 + 1))
        for k in bins {
            x[2 * k] = Float(2 * random.uniform() - 1)
            x[2 * k + 1] = Float(2 * random.uniform() - 1)
        }
        return x
    }

    @Test("table and inverse FFT agree at every lag of the window within 1e-4 of the largest value (random spectra, four sizes of band)",
          arguments: [(2048, 5...21, 24), (2048, 22...128, 24), (2048, 342...682, 36), (1024, 1...511, 10), (512, 100...100, 3)])
    func matchesInverseFFT(n: Int, bins: ClosedRange<Int>, largestLag: Int) throws {
        let fft = RealFFT(size: n)
        let basis = try #require(BandLagBasis(firstBin: bins.lowerBound, lastBin: bins.upperBound, fftSize: n, largestLag: largestLag))
        #expect(basis.paddedCount % 8 == 0 && basis.paddedCount >= bins.count)
        for seed in UInt64(1)...5 {
            let x = Self.spectrum(n: n, bins: bins, seed: seed)
            // The reference: FFTW's unnormalised c2r of the whole spectrum.
            let reference = fft.inverse((0...(n / 2)).map { (x[2 * $0], x[2 * $0 + 1]) })
            for k in bins {
                basis.real[k - bins.lowerBound] = x[2 * k]
                basis.imaginary[k - bins.lowerBound] = x[2 * k + 1]
            }
            let scale: Float = 0.25
            let c = AlignedFloats(count: n)
            basis.correlate(into: c.baseAddress, fftSize: n, scale: scale)
            let largest = reference.map { abs($0) }.max()! * scale
            var worst: Float = 0
            for lag in -largestLag...largestLag {
                let i = (lag + n) % n
                worst = max(worst, abs(c[i] - reference[i] * scale))
            }
            // Measured when written: at most 2.1e-7 of the largest value.
            #expect(worst <= 1e-4 * largest, "n \(n), bins \(bins), seed \(seed): error \(worst) of \(largest)")
        }
    }

    @Test("a band too wide for its lag window keeps the inverse FFT (no table); an empty band has none")
    func declinesExpensiveBands() {
        // 344 padded bins × 101 lags > 12 × 2048.
        #expect(BandLagBasis(firstBin: 342, lastBin: 682, fftSize: 2048, largestLag: 100) == nil)
        #expect(BandLagBasis(firstBin: 342, lastBin: 682, fftSize: 2048, largestLag: 40) != nil)
        #expect(BandLagBasis(firstBin: 1100, lastBin: 1200, fftSize: 2048, largestLag: 10) == nil)
    }

    @Test("estimateBand through the table gives the FFT path's estimate (lag within 1e-4 sample, coherence, prominence and confidence within 1e-4)",
          arguments: [(100.0, 500.0), (500, 3000), (3000, 8000), (8000, 16000)])
    func bandEstimatesAgree(low: Double, high: Double) throws {
        let fs = 48000.0, n = 2048
        let gcc = GCCPHAT(frameLength: n, maxLagSamples: 21, diffuseCoherenceDelaySamples: 20)
        let bins = FrameSpectra.bins(from: low, to: high, fftSize: n, sampleRate: fs)
        let basis = try #require(BandLagBasis(
            firstBin: bins.lowerBound, lastBin: bins.upperBound, fftSize: n, largestLag: gcc.searchLag + 1))
        // Pink noise delayed by 7.3 samples on the right, plus independent noise on each channel.
        let source = Generators.pinkNoise(count: 8 * n, sampleRate: fs, rms: 0.1, seed: 21)
        let delayed = FractionalDelay.exact(source, bySamples: 7.3)
        let noiseL = Generators.whiteNoise(count: 8 * n, rms: 0.02, seed: 22)
        let noiseR = Generators.whiteNoise(count: 8 * n, rms: 0.02, seed: 23)
        let left = zip(source, noiseL).map { Float($0 + $1) }, right = zip(delayed, noiseR).map { Float($0 + $1) }
        let scratch = BandCorrelationScratch(fftSize: gcc.fftSize)
        var frames = 0
        for start in stride(from: 0, through: 7 * n, by: n / 2) {
            let frame = left[start..<(start + n)].withUnsafeBufferPointer { l in
                right[start..<(start + n)].withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) }
            }
            for prior in [nil, 7.3] {
                let viaFFT = gcc.estimateBand(frame.spectra, firstBin: bins.lowerBound, lastBin: bins.upperBound, prior: prior, scratch: scratch)
                let viaTable = gcc.estimateBand(frame.spectra, basis: basis, prior: prior, scratch: scratch)
                #expect(abs(viaFFT.lagSamples - viaTable.lagSamples) <= 1e-4, "\(low)–\(high) Hz at \(start): \(viaFFT) vs \(viaTable)")
                #expect(abs(viaFFT.confidence - viaTable.confidence) <= 1e-4)
                #expect(abs(viaFFT.prominence - viaTable.prominence) <= 1e-4)
                #expect(viaFFT.coherence == viaTable.coherence && viaFFT.resolvedByPrior == viaTable.resolvedByPrior)
            }
            frames += 1
        }
        #expect(frames == 15)
    }
}
