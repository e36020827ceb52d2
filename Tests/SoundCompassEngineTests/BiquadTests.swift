import Foundation
import Testing
import SoundCompassEngine
import TestSignals

/// Biquads against a double-precision reference and the analytic response.
struct BiquadTests {
    /// The oracle: the same difference equation in double precision, direct form I.
    static func reference(_ c: BiquadCoefficients, _ x: [Double]) -> [Double] {
        var y = [Double](repeating: 0, count: x.count)
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
        for n in 0..<x.count {
            y[n] = c.b0 * x[n] + c.b1 * x1 + c.b2 * x2 - c.a1 * y1 - c.a2 * y2
            x2 = x1; x1 = x[n]; y2 = y1; y1 = y[n]
        }
        return y
    }

    static func filtered(_ c: BiquadCoefficients, _ x: [Double], block: Int = 333) -> [Float] {
        var biquad = Biquad(c)
        var data = x.map { Float($0) }
        data.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = min(buffer.count, start + block)
                biquad.process(UnsafeMutableBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
        return data
    }

    static let designs: [(String, BiquadCoefficients)] = [
        ("low-pass 1 kHz", .lowPass(cutoff: 1000, sampleRate: 48000)),
        ("high-pass 200 Hz", .highPass(cutoff: 200, sampleRate: 48000)),
        ("band-pass 100–500 Hz", BiquadCoefficients.bandPass(low: 100, high: 500, sampleRate: 48000).coefficients),
        ("band-pass 8–16 kHz", BiquadCoefficients.bandPass(low: 8000, high: 16000, sampleRate: 48000).coefficients),
        ("band-pass 3–8 kHz at 22.05 kHz", BiquadCoefficients.bandPass(low: 3000, high: 8000, sampleRate: 22050).coefficients),
    ]

    @Test("streaming TDF-II in Float matches the double-precision reference", arguments: 0..<designs.count)
    func matchesReference(index: Int) {
        let (name, c) = Self.designs[index]
        let x = Generators.whiteNoise(count: 20000, rms: 0.3, seed: UInt64(index))
        let expected = Self.reference(c, x)
        let actual = Self.filtered(c, x)
        var worst = 0.0
        for n in 0..<x.count { worst = max(worst, abs(Double(actual[n]) - expected[n])) }
        #expect(worst < 1e-4, "\(name): worst difference \(worst)")
    }

    @Test("band-pass: |H| = 1 at the centre, −3 dB at the edges (analytic and measured)", arguments: [
        (100.0, 500.0, 48000.0), (500, 3000, 48000), (3000, 8000, 48000), (8000, 16000, 48000), (300, 3400, 8000),
    ])
    func bandPassResponse(low: Double, high: Double, rate: Double) {
        let (c, centre) = BiquadCoefficients.bandPass(low: low, high: high, sampleRate: rate)
        #expect(abs(c.magnitude(at: centre, sampleRate: rate) - 1) < 1e-9)
        let halfPower = 0.5.squareRoot()
        #expect(abs(c.magnitude(at: low, sampleRate: rate) - halfPower) < 1e-9)
        #expect(abs(c.magnitude(at: high, sampleRate: rate) - halfPower) < 1e-9)
        // The pre-warped centre lies inside the band, at the geometric mean well below Nyquist.
        #expect(centre > low && centre < high)
        if high < 0.05 * rate { #expect(abs(centre / (low * high).squareRoot() - 1) < 0.005) }
        // Measured: a sine through the Float filter, after the transient.
        for (frequency, expected) in [(centre, 1.0), (low, halfPower), (high, halfPower)] {
            let count = Int(rate)
            let sine = Generators.tone(frequency: frequency, sampleRate: rate, count: count, amplitude: 1)
            let out = Self.filtered(c, sine)
            let tail = out[(count / 2)...].map { Double($0) }
            let gain = Generators.rms(tail) / 0.5.squareRoot()
            #expect(abs(20 * log10(gain / expected)) < 0.05, "\(frequency) Hz: gain \(gain), expected \(expected)")
        }
    }

    @Test("low- and high-pass: −3 dB at the corner with Q = 1/√2, unity in the pass band")
    func shelvesResponse() {
        let lp = BiquadCoefficients.lowPass(cutoff: 2000, sampleRate: 48000)
        let hp = BiquadCoefficients.highPass(cutoff: 2000, sampleRate: 48000)
        #expect(abs(lp.magnitude(at: 2000, sampleRate: 48000) - 0.5.squareRoot()) < 1e-9)
        #expect(abs(hp.magnitude(at: 2000, sampleRate: 48000) - 0.5.squareRoot()) < 1e-9)
        #expect(abs(lp.magnitude(at: 1e-3, sampleRate: 48000) - 1) < 1e-9)
        #expect(abs(hp.magnitude(at: 23999.999, sampleRate: 48000) - 1) < 1e-6)
        #expect(lp.magnitude(at: 20000, sampleRate: 48000) < 0.02)
    }

    @Test("reset clears the state; processing into another buffer equals in place")
    func resetAndOutOfPlace() {
        let c = BiquadCoefficients.bandPass(low: 500, high: 3000, sampleRate: 48000).coefficients
        let x = Generators.whiteNoise(count: 4096, rms: 0.3, seed: 9).map { Float($0) }
        var a = Biquad(c), b = Biquad(c)
        var inPlace = x, outOfPlace = [Float](repeating: 0, count: x.count)
        inPlace.withUnsafeMutableBufferPointer { a.process($0) }
        x.withUnsafeBufferPointer { input in outOfPlace.withUnsafeMutableBufferPointer { b.process(input, into: $0) } }
        #expect(inPlace == outOfPlace)
        a.reset()
        var again = x
        again.withUnsafeMutableBufferPointer { a.process($0) }
        #expect(again == inPlace)
    }
}
