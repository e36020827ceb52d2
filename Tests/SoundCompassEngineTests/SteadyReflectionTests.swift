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
        return StereoSignal(left: left, right: right, sampleRate: parts[0].sampleRate)
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

    /// A pink noise whose level fluctuates like running water (a log-normal envelope of ~30 Hz
    /// bandwidth), peaking at 0.4, heard at 48 kHz from `azimuth`, `delay` seconds late,
    /// `gainDecibels` re the direct sound, on the 15 cm pair.
    static func fluctuating(azimuth: Double, seed: UInt64, delay: Double = 0, gainDecibels: Double = 0) -> StereoSignal {
        let rate = 48000.0, n = Int(8 * rate)
        let noise = Generators.pinkNoise(count: n, sampleRate: rate, rms: 0.05, seed: seed)
        // The envelope: white noise through two one-pole low-passes at 30 Hz, exponentiated.
        var random = SeededRandom(seed: seed &+ 1000)
        let a = exp(-2 * Double.pi * 30 / rate)
        var y1 = 0.0, y2 = 0.0, smooth = [Double](repeating: 0, count: n)
        for i in 0..<n {
            y1 = a * y1 + (1 - a) * random.gaussian()
            y2 = a * y2 + (1 - a) * y1
            smooth[i] = y2
        }
        let spread = (smooth.reduce(0) { $0 + $1 * $1 } / Double(n)).squareRoot()
        let raw = (0..<n).map { noise[$0] * exp(0.8 * smooth[$0] / spread) }
        let peak = raw.reduce(0) { max($0, abs($1)) }
        let signal = raw.map { 0.4 * $0 / peak }
        let arrival = Microphones.spaced(spacing: 0.15).arrivalTimes(azimuth: azimuth)
        let copies = FractionalDelay.exact(signal, delays: [(delay + arrival.left) * rate, (delay + arrival.right) * rate])
        let gain = pow(10, gainDecibels / 20)
        return StereoSignal(
            left: copies[0].map { Float(gain * $0) }, right: copies[1].map { Float(gain * $0) }, sampleRate: rate)
    }

    // A fluctuating broadband sound (a running tap) holds new sound and its images do not
    // (precedence), so the pair is never judged: `markImages()` judges only pairs alike in new
    // sound (Docs/Accuracy.md, "A broadband source's images off the floor and the ceiling").
    // Its floor and ceiling images reach a pair at mid-height together: one copy here, 5.5 ms
    // later and 3 dB weaker, at -12° (labels_real.py's room had them at -5…-10° for a tap at
    // -27°). Measured when written: the source in 1.000 of the records, the image in 0.904 (a
    // known issue, #46). Judging unlike pairs as well (a steady candidate marked when the cross
    // terms, read over two samples, and the ripples name it the later copy of one holding new
    // sound, strictly; tried 2026-11-30, not kept) took the image to 0.000, and kept an
    // independent steady noise as loud at its bearing in 1.000, but cost SteadyNoiseRoomTests'
    // talker 1.2 points (0.384 → 0.372, under its 0.38).
    @Test("a fluctuating broadband source's floor and ceiling image (5.5 ms, −3 dB) is not listed (a known issue); an independent steady noise at its bearing is")
    func fluctuatingSourcesImageIsNoSource() throws {
        let tap = Self.fluctuating(azimuth: -27, seed: 31)
        let image = Self.fluctuating(azimuth: -12, seed: 31, delay: 0.0055, gainDecibels: -3)
        let reflected = try Self.listed(Self.mix([tap, image]), source: -27, image: -12)
        print("fluctuating noise + its image: source \(reflected.source), image \(reflected.image)")
        #expect(reflected.source >= 0.95)
        withKnownIssue("#46: a fluctuating source's image holds no new sound, and only pairs alike in it are judged") {
            #expect(reflected.image <= 0.05)
        }
        // The same level at the image's bearing from a steady noise of its own.
        let rate = 48000.0
        let steady = Scene(
            sampleRate: rate, duration: 8,
            sources: [Source(.pinkNoise, azimuth: -12, levelDBFS: 20 * log10(Double(Generators.rms(image.left.map(Double.init)))), seed: 32)]
        ).render()
        let independent = try Self.listed(Self.mix([tap, steady]), source: -27, image: -12)
        print("fluctuating noise + an independent steady noise: \(independent.source), \(independent.image)")
        #expect(independent.source >= 0.9)
        #expect(independent.image >= 0.9)
    }
}
