import Foundation
import Testing
@testable import TestSignals

/// `Reverberation`: the synthetic room asked for, and its rendering through the frequency
/// domain checked against a plain convolution.
struct ReverberationTests {
    static let rate = 44100.0
    static let pair = Microphones.spaced(spacing: 0.15)

    static func energy(_ x: ArraySlice<Double>) -> Double { x.reduce(0) { $0 + $1 * $1 } }

    @Test("the direct-to-reverberant ratio is the one asked for, within 0.2 dB", arguments: [-4.0, 0.0, 6.0])
    func directToReverberant(decibels: Double) {
        let h = Reverberation.impulseResponses(
            azimuth: 30, microphones: Self.pair, sampleRate: Self.rate, rt60: 0.3,
            directToReverberantDecibels: decibels, seed: 7)
        // The direct sound's kernels end within 16 samples of latency ± 10 (0.22 ms); the first
        // reflection comes 2 ms (88 samples) later.
        let split = Reverberation.latency + 48
        let direct = Self.energy(h.left[..<split]) + Self.energy(h.right[..<split])
        let reverberant = Self.energy(h.left[split...]) + Self.energy(h.right[split...])
        let measured = 10 * log10(direct / reverberant)
        #expect(abs(measured - decibels) < 0.2, "measured \(measured) dB")
    }

    @Test("the reflections fall 60 dB per RT60: the energy of 225 ms against 125 ms within 2 dB of the model")
    func decay() {
        let rt60 = 0.3
        let h = Reverberation.impulseResponses(
            azimuth: -40, microphones: Self.pair, sampleRate: Self.rate, rt60: rt60,
            directToReverberantDecibels: 0, reflections: 2000, seed: 8)
        func window(_ centre: Double) -> Double {
            let a = Reverberation.latency + Int((centre - 0.025) * Self.rate)
            let b = Reverberation.latency + Int((centre + 0.025) * Self.rate)
            return Self.energy(h.left[a..<b]) + Self.energy(h.right[a..<b])
        }
        // Energy ∝ t² (density) · 10^(−6t/RT60) (gain²).
        let model = 10 * log10(pow(0.225 / 0.125, 2)) - 60 * 0.1 / rt60
        let measured = 10 * log10(window(0.225) / window(0.125))
        #expect(abs(measured - model) < 2, "measured \(measured) dB, model \(model) dB")
    }

    @Test("render is the convolution of the signal with each impulse response, within 1e-9")
    func renderIsConvolution() {
        var random = SeededRandom(seed: 9)
        let signal = (0..<3000).map { _ in random.uniform() - 0.5 }
        let parameters = (azimuth: 20.0, rt60: 0.02, decibels: -2.0, reflections: 40, seed: UInt64(10))
        let h = Reverberation.impulseResponses(
            azimuth: parameters.azimuth, microphones: Self.pair, sampleRate: Self.rate, rt60: parameters.rt60,
            directToReverberantDecibels: parameters.decibels, reflections: parameters.reflections, seed: parameters.seed)
        let y = Reverberation.render(
            signal, azimuth: parameters.azimuth, microphones: Self.pair, sampleRate: Self.rate, rt60: parameters.rt60,
            directToReverberantDecibels: parameters.decibels, reflections: parameters.reflections, seed: parameters.seed)
        var worst = 0.0
        for (response, output) in [(h.left, y.left), (h.right, y.right)] {
            #expect(output.count == signal.count)
            for n in 0..<signal.count {
                var sum = 0.0
                for j in 0...min(n, response.count - 1) { sum += response[j] * signal[n - j] }
                worst = max(worst, abs(sum - output[n]))
            }
        }
        #expect(worst < 1e-9, "largest difference \(worst)")
    }
}
