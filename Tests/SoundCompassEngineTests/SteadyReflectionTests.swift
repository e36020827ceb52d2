import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// A steady source's reflection is no source (`SourceCandidates+Images.swift`): a pink noise at
/// −50° plus one copy of it, 6 ms later and 3 dB weaker, from +15° (a wall's image, as the
/// steady-noise room sweep had them), against two independent pink noises at the same bearings
/// and levels. 16 kHz, 15 cm spaced pair, 8 s, white sensor noise at 30 dB SNR; every record's
/// listed sources from 2 s on.
struct SteadyReflectionTests {
    static let sampleRate = 16000.0
    static let source = -50.0, image = 15.0

    /// One pink noise heard from `azimuth`, `delay` seconds late, `gainDecibels` re −20 dBFS.
    static func copy(azimuth: Double, seed: UInt64, delay: Double = 0, gainDecibels: Double = 0) -> StereoSignal {
        let scene = Scene(
            sampleRate: sampleRate, duration: 8,
            sources: [Source(.pinkNoise, azimuth: azimuth, levelDBFS: -20, seed: seed)])
        let signal = scene.render()
        let shift = Int((delay * sampleRate).rounded()), gain = Float(pow(10, gainDecibels / 20))
        var left = [Float](repeating: 0, count: signal.count), right = left
        for i in shift..<signal.count {
            left[i] = gain * signal.left[i - shift]
            right[i] = gain * signal.right[i - shift]
        }
        return StereoSignal(left: left, right: right, sampleRate: sampleRate)
    }

    /// The sum of `parts` plus white sensor noise at 30 dB below the first part.
    static func mix(_ parts: [StereoSignal]) -> StereoSignal {
        var left = parts[0].left, right = parts[0].right
        for part in parts.dropFirst() {
            for i in left.indices { left[i] += part.left[i]; right[i] += part.right[i] }
        }
        let rms = (parts[0].left.reduce(0) { $0 + Double($1 * $1) } / Double(left.count)).squareRoot()
        var random = SeededRandom(seed: 7)
        for i in left.indices {
            left[i] += Float(0.03 * rms * random.gaussian())
            right[i] += Float(0.03 * rms * random.gaussian())
        }
        return StereoSignal(left: left, right: right, sampleRate: sampleRate)
    }

    /// Shares of the records from 2 s on that list a source within 10° of the source's and of
    /// the image's bearing (by default ``source`` and ``image``).
    static func listed(
        _ signal: StereoSignal, source: Double = source, image: Double = image
    ) throws -> (source: Double, image: Double) {
        let records = try analyze(signal).filter { $0.time >= 2 }
        let near = { (azimuth: Double) in
            Double(records.filter { $0.sources.contains { abs($0.azimuth - azimuth) <= 10 } }.count) / Double(records.count)
        }
        return (near(source), near(image))
    }

    // Measured when written: the reflection in 0.000 of the records, the source in 1.000; without
    // the cross-term test the reflection was listed in 1.000. Two independent noises as loud:
    // the one at +15° in 1.000, the one at −50° in only 0.101, with or without the test (two
    // steady broadband sources as loud are a case the tracker does not yet list well; the
    // test's part is not to take the second for a reflection of the first).
    @Test("a steady noise's reflection (6 ms, −3 dB) is not listed; a second independent steady noise as loud at its bearing is")
    func steadyReflectionIsNoSource() throws {
        let reflected = try Self.listed(Self.mix([
            Self.copy(azimuth: Self.source, seed: 21),
            Self.copy(azimuth: Self.image, seed: 21, delay: 0.006, gainDecibels: -3),
        ]))
        print("noise + its reflection: source \(reflected.source), reflection \(reflected.image)")
        #expect(reflected.source >= 0.95)
        #expect(reflected.image <= 0.05)
        let independent = try Self.listed(Self.mix([
            Self.copy(azimuth: Self.source, seed: 21),
            Self.copy(azimuth: Self.image, seed: 22),
        ]))
        print("two independent noises as loud: \(independent.source), \(independent.image)")
        #expect(independent.image >= 0.9)
    }

    // A pair at mid-height hears a source's floor and ceiling images at the same delay and
    // bearing: together they can be as loud as the direct sound in the averaged correlation,
    // and the cross terms cannot tell which of the two came first. The level ripples the later
    // copy leaves in each channel can (`ReflectionImageTest.firstCopy`). Measured when
    // written (source / reflection listed): −50° with +15°: 1.000 / 0.000 at 0 and −1 dB;
    // +40° with −10°: 1.000 / 0.000 at 0 and −1 dB. Taking the weaker peak for the image
    // instead (`rippleMargin` out of reach, as before): −50° with +15° 0.000 / 1.000 at 0 dB
    // and 1.000 / 0.000 at −1 dB; +40° with −10° 0.000 / 1.000 at both levels: the source lost,
    // its reflection listed in its place.
    @Test(
        "a reflection as loud as its source, or 1 dB weaker (6 ms later), is the one not listed",
        arguments: [(-50.0, 15.0), (40.0, -10.0)], [0.0, -1.0])
    func loudReflectionIsNoSource(bearings: (source: Double, image: Double), gainDecibels: Double) throws {
        let signal = Self.mix([
            Self.copy(azimuth: bearings.source, seed: 21),
            Self.copy(azimuth: bearings.image, seed: 21, delay: 0.006, gainDecibels: gainDecibels),
        ])
        let listed = try Self.listed(signal, source: bearings.source, image: bearings.image)
        print("noise at \(bearings.source)° + its reflection at \(bearings.image)°, \(gainDecibels) dB: source \(listed.source), reflection \(listed.image)")
        #expect(listed.source >= 0.95)
        #expect(listed.image <= 0.05)
    }

    // Mismatched capsules (the right 3 dB louder in every bin) shift the level ripple by a
    // constant, which is no ripple: `copyRipples` takes the bins' mean out before reading
    // it. Measured when written: source 1.000, reflection 0.000 in both layouts; the same
    // without taking the mean out (a constant c leaks c·sin(πt)/(πt) into quefrency t, at most
    // 0.33/(π·85) ≈ 0.001 at these delays, under the margin): a guard, not a failing case.
    @Test("with the right capsule 3 dB louder, a reflection as loud as its source is still the one not listed", arguments: [(-50.0, 15.0), (40.0, -10.0)])
    func mismatchedCapsules(bearings: (source: Double, image: Double)) throws {
        let mixed = Self.mix([
            Self.copy(azimuth: bearings.source, seed: 21),
            Self.copy(azimuth: bearings.image, seed: 21, delay: 0.006, gainDecibels: 0),
        ])
        let gain = Float(pow(10, 3.0 / 20))
        let signal = StereoSignal(left: mixed.left, right: mixed.right.map { $0 * gain }, sampleRate: mixed.sampleRate)
        let listed = try Self.listed(signal, source: bearings.source, image: bearings.image)
        print("right +3 dB: noise at \(bearings.source)° + its reflection at \(bearings.image)°: source \(listed.source), reflection \(listed.image)")
        #expect(listed.source >= 0.95)
        #expect(listed.image <= 0.05)
    }
}
