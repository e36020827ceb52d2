import Foundation
import Testing
import SoundCompassEngine
import TestSignals

/// The frame's spectra as an explicit value: the measures read the frame they are given, and a
/// view of another frame is refused.
struct FrameSpectraTests {
    /// One frame of a 1 kHz tone plus a little noise at 48 kHz, the right channel `gain` times
    /// the left.
    static func frame(gain: Float, count: Int = 2048) -> ([Float], [Float]) {
        let tone = Generators.tone(frequency: 1000, sampleRate: 48000, count: count, amplitude: 0.5)
        let noise = Generators.whiteNoise(count: count, rms: 0.001, seed: 3)
        let left = zip(tone, noise).map { Float($0 + $1) }
        return (left, left.map { $0 * gain })
    }

    @Test("dominant frequency and level difference come from the spectra passed in")
    func measures() {
        let gcc = GCCPHAT(frameLength: 2048, maxLagSamples: 21)
        let (l1, r1) = Self.frame(gain: 0.5)
        let first = l1.withUnsafeBufferPointer { l in r1.withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) } }
        #expect(abs(first.spectra.dominantFrequency(sampleRate: 48000) - 1000) < 2)
        // Right at half the amplitude: −6.02 dB in every bin.
        #expect(abs(first.spectra.levelDifferenceDecibels(fromBin: 1) - 20 * log10(0.5)) < 1e-3)
        #expect(first.spectra.fftSize == 2048 && first.spectra.frameLength == 2048)
    }

    @Test("a band estimate of the current frame works; the view of an earlier frame traps")
    func staleSpectraTrap() async {
        let gcc = GCCPHAT(frameLength: 1024, maxLagSamples: 21)
        let (l, r) = Self.frame(gain: 1, count: 1024)
        let current = l.withUnsafeBufferPointer { l in r.withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) } }
        let band = gcc.estimateBand(
            current.spectra, firstBin: 10, lastBin: 60, prior: nil, scratch: BandCorrelationScratch(fftSize: gcc.fftSize))
        #expect(abs(band.lagSamples) < 0.05)
        await #expect(processExitsWith: .failure) {
            let gcc = GCCPHAT(frameLength: 1024, maxLagSamples: 21)
            let (l, r) = FrameSpectraTests.frame(gain: 1, count: 1024)
            func estimate() -> CorrelatedFrame {
                l.withUnsafeBufferPointer { l in r.withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) } }
            }
            let earlier = estimate()
            _ = estimate()
            _ = gcc.estimateBand(
                earlier.spectra, firstBin: 10, lastBin: 60, prior: nil, scratch: BandCorrelationScratch(fftSize: gcc.fftSize))
        }
    }

    @Test("the correlation travels with its frame: nil after a silent frame, the current one after a correlated frame")
    func correlationInTheView() throws {
        let gcc = GCCPHAT(frameLength: 1024, maxLagSamples: 21)
        let (l, r) = Self.frame(gain: 1, count: 1024)
        let silence = [Float](repeating: 0, count: 1024)
        let heard = l.withUnsafeBufferPointer { l in r.withUnsafeBufferPointer { r in gcc.estimate(left: l, right: r) } }
        let c = try #require(heard.spectra.correlation)
        // Identical channels: the correlation peaks at lag 0 with height 1 (within rounding).
        #expect(abs(c[0] - 1) < 1e-3)
        #expect(heard.delay.peakHeight > 0.99)
        let quiet = silence.withUnsafeBufferPointer { s in gcc.estimate(left: s, right: s) }
        #expect(quiet.spectra.correlation == nil)
        #expect(quiet.delay == .none && quiet.delay.consistency == nil)
    }

    @Test("the source candidates take only the current frame's view: an earlier frame's traps")
    func candidatesCheckTheFrame() async {
        await #expect(processExitsWith: .failure) {
            let configuration = AnalysisConfiguration(sampleRate: 48000, frameLength: 1024)
            let estimator = DirectionEstimator(configuration: configuration)
            let finder = SourceCandidateFinder(configuration: configuration, broadband: estimator, capacity: 4)
            let (l, r) = FrameSpectraTests.frame(gain: 1, count: 1024)
            func estimate() -> (estimate: FrameEstimate, spectra: FrameSpectra) {
                l.withUnsafeBufferPointer { l in r.withUnsafeBufferPointer { r in estimator.estimate(left: l, right: r) } }
            }
            let earlier = estimate()
            _ = estimate()
            finder.update(spectra: earlier.spectra, levelDBFS: -20, aboveGate: true)
        }
    }

    @Test("rawAzimuth resolved front/back: behind when the hemisphere is back, as measured otherwise",
          arguments: [(40.0, Hemisphere.back, 140.0), (-40, .back, -140), (0, .back, 180), (40, .front, 40), (-25, .unknown, -25)])
    func resolvedRawAzimuth(raw: Double, hemisphere: Hemisphere, expected: Double) {
        let record = AnalysisRecord(rawAzimuth: raw, hemisphere: hemisphere)
        #expect(record.resolvedRawAzimuth == expected)
        #expect(record.rawAzimuth == raw)
    }
}
