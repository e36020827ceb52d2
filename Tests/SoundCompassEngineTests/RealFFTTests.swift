import Foundation
import Testing
@testable import SoundCompassEngine
import TestSignals

/// The FFTW wrapper against a naive double-precision DFT (the oracle).
struct RealFFTTests {
    static func naiveDFT(_ x: [Double]) -> [(re: Double, im: Double)] {
        let n = x.count
        return (0...(n / 2)).map { k in
            var re = 0.0, im = 0.0
            for (i, v) in x.enumerated() {
                let angle = -2 * Double.pi * Double(k * i % n) / Double(n)
                re += v * cos(angle)
                im += v * sin(angle)
            }
            return (re, im)
        }
    }

    @Test("forward transform matches a naive DFT", arguments: [16, 64, 250, 1024, 2048])
    func forwardMatchesNaiveDFT(size: Int) {
        let signal = Generators.whiteNoise(count: size, rms: 1, seed: UInt64(size))
        let expected = Self.naiveDFT(signal)
        let fft = RealFFT(size: size)
        let actual = fft.forward(signal.map { Float($0) })
        #expect(actual.count == size / 2 + 1)
        // Float precision: errors grow like √N·log N·ε relative to the spectrum scale √N.
        let scale = Double(size).squareRoot()
        var worst = 0.0
        for k in 0..<actual.count {
            worst = max(worst, abs(Double(actual[k].re) - expected[k].re), abs(Double(actual[k].im) - expected[k].im))
        }
        #expect(worst / scale < 1e-5, "worst bin error \(worst) at N=\(size)")
    }

    @Test("inverse(forward(x)) = N·x (unnormalised convention)", arguments: [32, 2048, 4096])
    func roundTripScalesByN(size: Int) {
        let signal = Generators.whiteNoise(count: size, rms: 1, seed: 3).map { Float($0) }
        let fft = RealFFT(size: size)
        let back = fft.inverse(fft.forward(signal))
        var worst: Float = 0
        for i in 0..<size { worst = max(worst, abs(back[i] / Float(size) - signal[i])) }
        #expect(worst < 1e-5)
    }

    @Test("a unit impulse at n0 has spectrum e^(-2πik·n0/N)")
    func impulseSpectrum() {
        let n = 64, n0 = 5
        var x = [Float](repeating: 0, count: n)
        x[n0] = 1
        let spectrum = RealFFT(size: n).forward(x)
        for k in 0...(n / 2) {
            let angle = -2 * Double.pi * Double(k * n0) / Double(n)
            #expect(abs(Double(spectrum[k].re) - cos(angle)) < 1e-6)
            #expect(abs(Double(spectrum[k].im) - sin(angle)) < 1e-6)
        }
    }

    @Test("plans are shared per size: a second instance reuses them")
    func plansAreCachedPerSize() {
        let a = RealFFT(size: 512), b = RealFFT(size: 512)
        #expect(FFTPlanCache.plans(forSize: 512).forward == FFTPlanCache.plans(forSize: 512).forward)
        #expect(a.size == b.size)
    }
}
