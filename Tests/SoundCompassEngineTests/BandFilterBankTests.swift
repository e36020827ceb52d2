import Foundation
import Testing
import SoundCompassEngine
import TestSignals

/// The shipped band filters (``BandFilterBank``: a Butterworth high-pass then low-pass biquad
/// per band, single precision, four bands to a SIMD group) against a double-precision
/// reference, and the designs against their analytic response.
struct BandFilterBankTests {
    /// The oracle: the same cascade (high-pass, then low-pass at `min(high, 0.49·fs)`) in
    /// double precision, transposed direct form II.
    static func reference(_ band: BandSpec, sampleRate: Double, _ x: [Double]) -> [Double] {
        let sections = [
            BiquadCoefficients.highPass(cutoff: band.low, sampleRate: sampleRate),
            BiquadCoefficients.lowPass(cutoff: min(band.high, 0.49 * sampleRate), sampleRate: sampleRate),
        ]
        var y = x
        for c in sections {
            var s1 = 0.0, s2 = 0.0
            for n in y.indices {
                let input = y[n]
                let output = c.b0 * input + s1
                s1 = c.b1 * input - c.a1 * output + s2
                s2 = c.b2 * input - c.a2 * output
                y[n] = output
            }
        }
        return y
    }

    /// Feeds `left` and `right` to `bank` the way the analyzer does (blocks of `block` samples
    /// into the current frame, then a move on by `hop`), and hands every full frame's start
    /// sample to `check`.
    static func stream(
        _ bank: BandFilterBank, left: [Float], right: [Float], hop: Int, block: Int, check: (Int) -> Void
    ) {
        let frame = bank.frameLength
        var frameStart = 0, index = 0
        left.withUnsafeBufferPointer { l in
            right.withUnsafeBufferPointer { r in
                while index < left.count {
                    let take = min(frame - bank.filled, block, left.count - index)
                    bank.append(left: l.baseAddress! + index, right: r.baseAddress! + index, count: take)
                    index += take
                    if bank.filled == frame {
                        check(frameStart)
                        bank.advance(hop: hop)
                        #expect(bank.filled == frame - hop)
                        frameStart += hop
                    }
                }
            }
        }
    }

    /// The default bands usable at each rate, plus bands that load a second SIMD group and sit
    /// near DC and near Nyquist.
    static func bands(sampleRate: Double) -> [BandSpec] {
        AnalysisConfiguration(sampleRate: sampleRate).usableBands + [
            BandSpec(name: "hum", low: 40, high: 70),
            BandSpec(name: "top", low: 0.3 * sampleRate, high: 0.5 * sampleRate),
        ]
    }

    @Test("every band on both channels matches the double-precision cascade (within 2e-5 of the input RMS, more for edges below fs/20)",
          arguments: [48000.0, 44100, 16000])
    func matchesReference(sampleRate: Double) {
        let bands = Self.bands(sampleRate: sampleRate)
        let count = 6 * 4096
        let left = Generators.whiteNoise(count: count, rms: 0.3, seed: 11).map(Float.init)
        let right = Generators.whiteNoise(count: count, rms: 0.1, seed: 12).map(Float.init)
        let inputRMS = (left: 0.3, right: 0.1)
        let expectedLeft = bands.map { Self.reference($0, sampleRate: sampleRate, left.map(Double.init)) }
        let expectedRight = bands.map { Self.reference($0, sampleRate: sampleRate, right.map(Double.init)) }
        let bank = BandFilterBank(bands: bands, sampleRate: sampleRate, frameLength: 4096)
        var worst = [Double](repeating: 0, count: bands.count)
        var frames = 0
        Self.stream(bank, left: left, right: right, hop: 1024, block: 333) { start in
            frames += 1
            for (i, band) in bank.bands.enumerated() {
                for n in 0..<bank.frameLength {
                    let l = abs(Double(band.leftFrame[n]) - expectedLeft[i][start + n]) / inputRMS.left
                    let r = abs(Double(band.rightFrame[n]) - expectedRight[i][start + n]) / inputRMS.right
                    worst[i] = max(worst[i], l, r)
                }
            }
        }
        #expect(frames == (count - 4096) / 1024 + 1)
        for (band, error) in zip(bands, worst) {
            // Single-precision rounding in a section whose poles sit near z = 1 is amplified by
            // about fs/(2π·f): a high-pass edge below fs/20 widens the tolerance in proportion.
            // Measured when written: at most 5.2e-6 of the input RMS after that scaling (40 Hz
            // at 48 kHz: 3.1e-4 unscaled), 6.6e-6 for the band whose low-pass sits at 0.49·fs.
            let tolerance = 2e-5 * max(1, sampleRate / (20 * band.low))
            #expect(error <= tolerance, "\(band) at \(sampleRate) Hz: largest error \(error) of the input RMS (tolerance \(tolerance))")
        }
    }

    @Test("band levels are the RMS of the reference band signals within 0.01 dB (single-precision sums)")
    func levelsMatchReference() {
        let sampleRate = 48000.0
        let bands = Self.bands(sampleRate: sampleRate)
        let x = Generators.whiteNoise(count: 8192, rms: 0.2, seed: 5)
        let samples = x.map(Float.init)
        let bank = BandFilterBank(bands: bands, sampleRate: sampleRate, frameLength: 8192)
        Self.stream(bank, left: samples, right: samples, hop: 8192, block: 1000) { _ in
            for (i, band) in bands.enumerated() {
                let expected = Generators.rms(Self.reference(band, sampleRate: sampleRate, samples.map(Double.init)))
                let levels = bank.levels(i)
                #expect(abs(20 * log10(levels.leftRMS / expected)) < 0.01, "\(band): \(levels.leftRMS) vs \(expected)")
                #expect(levels.leftRMS == levels.rightRMS)
            }
        }
    }

    @Test("levels and covariance, measured four bands at a time, equal ChannelLevels and ChannelCovariance of each band's own frame to the last bit",
          arguments: [2048, 1001])
    func momentsAreExact(frameLength: Int) {
        let bands = Self.bands(sampleRate: 48000)
        let left = Generators.whiteNoise(count: 3 * frameLength, rms: 0.3, seed: 31).map(Float.init)
        let right = Generators.pinkNoise(count: 3 * frameLength, sampleRate: 48000, rms: 0.2, seed: 32).map(Float.init)
        let bank = BandFilterBank(bands: bands, sampleRate: 48000, frameLength: frameLength)
        var frames = 0
        Self.stream(bank, left: left, right: right, hop: frameLength / 3, block: 257) { _ in
            frames += 1
            for (i, band) in bank.bands.enumerated() {
                let l = (0..<frameLength).map { band.leftFrame[$0] }, r = (0..<frameLength).map { band.rightFrame[$0] }
                l.withUnsafeBufferPointer { l in
                    r.withUnsafeBufferPointer { r in
                        #expect(bank.levels(i) == ChannelLevels(left: l, right: r, count: frameLength), "band \(i)")
                        #expect(bank.covariance(i) == ChannelCovariance(left: l, right: r, count: frameLength), "band \(i)")
                        #expect(bank.levels(i) == ChannelLevels(left: l, right: r, count: frameLength), "band \(i), asked again")
                    }
                }
            }
        }
        #expect(frames == 7)
    }

    @Test("reset clears the filters and the frames: the same input gives the same output again")
    func resetRestarts() {
        let bands = Self.bands(sampleRate: 48000)
        let x = Generators.whiteNoise(count: 2048, rms: 0.3, seed: 9).map(Float.init)
        let bank = BandFilterBank(bands: bands, sampleRate: 48000, frameLength: 2048)
        var first: [[Float]] = [], second: [[Float]] = []
        Self.stream(bank, left: x, right: x, hop: 1, block: 512) { _ in
            first = bank.bands.map { band in (0..<2048).map { band.leftFrame[$0] } }
        }
        bank.reset()
        #expect(bank.bands.allSatisfy { band in (0..<2048).allSatisfy { band.leftFrame[$0] == 0 } })
        Self.stream(bank, left: x, right: x, hop: 1, block: 700) { _ in
            second = bank.bands.map { band in (0..<2048).map { band.leftFrame[$0] } }
        }
        #expect(!first.isEmpty && first == second)
    }

    @Test("low- and high-pass designs: −3 dB at the corner with Q = 1/√2, unity in the pass band")
    func designResponse() {
        let lp = BiquadCoefficients.lowPass(cutoff: 2000, sampleRate: 48000)
        let hp = BiquadCoefficients.highPass(cutoff: 2000, sampleRate: 48000)
        #expect(abs(lp.magnitude(at: 2000, sampleRate: 48000) - 0.5.squareRoot()) < 1e-9)
        #expect(abs(hp.magnitude(at: 2000, sampleRate: 48000) - 0.5.squareRoot()) < 1e-9)
        #expect(abs(lp.magnitude(at: 1e-3, sampleRate: 48000) - 1) < 1e-9)
        #expect(abs(hp.magnitude(at: 23999.999, sampleRate: 48000) - 1) < 1e-6)
        #expect(lp.magnitude(at: 20000, sampleRate: 48000) < 0.02)
    }
}
