import Foundation
import Testing
@testable import SoundCompassEngine
@testable import SoundCompassIO
import TestSignals
import TestSupport

/// Real heads (issue 31, item 2): the MIT KEMAR SOFA file that Debian's libmysofa1 ships (pulled
/// in by libmysofa-dev), read with `--hrtf`'s own path, and the default delay law.
@Suite("Measured heads: SOFA files, the head's own tables, the fitted delay law")
struct MeasuredHeadTests {
    static let kemarPath = "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"
    static let kemarAvailable = availableOrOnCI(FileManager.default.fileExists(atPath: kemarPath))
    static let rate = 48000.0

    /// KEMAR's horizontal plane at 48 kHz (libmysofa resamples from 44.1 kHz), read once.
    static let kemar: [HeadImpulseResponse] = (try? SOFAFile.horizontalPlane(path: kemarPath, sampleRate: rate)) ?? []

    /// `dry` through a direction's impulse responses (FFT convolution), plus uncorrelated sensor
    /// noise 30 dB below the rendered power (seeded).
    static func render(_ dry: [Double], through response: HeadImpulseResponse, seed: UInt64) -> StereoSignal {
        var size = 2
        while size < dry.count + response.left.count { size *= 2 }
        let fft = RealFFT(size: size)
        let x = fft.forward(dry.map(Float.init) + [Float](repeating: 0, count: size - dry.count))
        func through(_ ir: [Float]) -> [Float] {
            let h = fft.forward(ir + [Float](repeating: 0, count: size - ir.count))
            let y = zip(x, h).map { (re: $0.re * $1.re - $0.im * $1.im, im: $0.re * $1.im + $0.im * $1.re) }
            return Array(fft.inverse(y).prefix(dry.count)).map { $0 / Float(size) }
        }
        var left = through(response.left), right = through(response.right)
        let power = zip(left, right).reduce(0.0) { $0 + Double($1.0 * $1.0 + $1.1 * $1.1) } / Double(2 * dry.count)
        let noise = Float((power / 1000).squareRoot())
        let l = Generators.whiteNoise(count: dry.count, rms: 1, seed: seed), r = Generators.whiteNoise(count: dry.count, rms: 1, seed: seed + 1)
        for i in 0..<dry.count {
            left[i] += noise * Float(l[i])
            right[i] += noise * Float(r[i])
        }
        return StereoSignal(left: left, right: right, sampleRate: rate)
    }

    /// Issue 31's scoring frames: whether the dry source is within 30 dB of its loudest frame in
    /// each record's frame (`frameLength` samples centred on its time, the dry signal delayed by
    /// the impulse response's onset, `delay` samples), whatever the detector marks.
    static func truthActive(_ records: [AnalysisRecord], dry: [Double], frameLength: Int, delay: Int) -> [Bool] {
        let levels = records.map { record -> Double in
            let start = max(0, Int((record.time * rate).rounded()) - frameLength / 2 - delay)
            let end = min(dry.count, start + frameLength)
            guard end > start else { return 0 }
            return dry[start..<end].reduce(0) { $0 + $1 * $1 } / Double(end - start)
        }
        let top = levels.max() ?? 0
        return levels.map { $0 > top * 1e-3 }
    }

    /// The first tap, in either ear, within 20 dB of the response's largest (its direct path).
    static func onset(_ response: HeadImpulseResponse) -> Int {
        let magnitude = zip(response.left, response.right).map { max(abs($0), abs($1)) }
        let top = magnitude.max() ?? 0
        return magnitude.firstIndex { $0 >= 0.1 * top } ?? 0
    }

    /// Median |tracked azimuth − truth| per azimuth over issue 31's scoring frames (the dry
    /// source within 30 dB of its loudest frame, ``truthActive(_:dry:frameLength:delay:)``, with
    /// each record's azimuth whatever the detector marks), for speech and noise through KEMAR's
    /// directions at every 10° from −90° to +90°, read with `array`.
    static func errors(array: ArrayModel) throws -> [(azimuth: Double, speech: Double, noise: Double)] {
        var configuration = AnalysisConfiguration(sampleRate: rate, array: array)
        configuration.maxSources = 0
        let count = Int(2.5 * rate)
        let speech = Generators.speechLike(count: count, sampleRate: rate, rms: 0.05, seed: 21)
        let noise = Generators.whiteNoise(count: count, rms: 0.05, seed: 22)
        var result: [(Double, Double, Double)] = []
        for response in kemar where abs(response.azimuthDegrees.truncatingRemainder(dividingBy: 10)) < 0.01 {
            var medians: [Double] = []
            for (k, dry) in [speech, noise].enumerated() {
                let signal = render(dry, through: response, seed: UInt64(1000 + k * 500) + UInt64(response.azimuthDegrees + 90))
                let records = try analyze(signal, configuration: configuration)
                let scored = truthActive(records, dry: dry, frameLength: configuration.frameLength, delay: onset(response))
                let e = zip(records, scored).filter(\.1).map { abs($0.0.azimuth - response.azimuthDegrees) }
                medians.append(e.isEmpty ? .infinity : median(e))
            }
            result.append((response.azimuthDegrees, medians[0], medians[1]))
        }
        return result
    }

    @Test("KEMAR's SOFA file: the horizontal plane at every 5°, front and folded back, resampled to 48 kHz",
          .enabled(if: kemarAvailable))
    func reads() throws {
        let responses = try SOFAFile.horizontalPlane(path: Self.kemarPath, sampleRate: Self.rate)
        #expect(responses.count == 37, "\(responses.map(\.azimuthDegrees))")
        #expect(responses.first?.azimuthDegrees == -90 && responses.last?.azimuthDegrees == 90)
        // 512 taps at 44.1 kHz become about 557 at 48 kHz.
        #expect(responses.allSatisfy { $0.left.count >= 540 && $0.left.count == $0.right.count })
        // Right ear first for a source on the right: its impulse response peaks earlier.
        let right = try #require(responses.first { $0.azimuthDegrees == 60 })
        let peak = { (ir: [Float]) in ir.indices.max { abs(ir[$0]) < abs(ir[$1]) }! }
        #expect(peak(right.right) < peak(right.left))
    }

    @Test("With KEMAR's own tables (--hrtf): median ≤ 0.5°, no azimuth worse than 2°, speech and noise",
          .enabled(if: kemarAvailable))
    func ownTables() throws {
        var array = ArrayModel(kind: .binaural)
        let head = try #require(Self.kemarHead)
        array.measuredHead = head
        let table = try Self.errors(array: array)
        for row in table { print(String(format: "KEMAR own tables %+5.0f°: speech %.2f°, noise %.2f°", row.azimuth, row.speech, row.noise)) }
        let all = table.flatMap { [$0.speech, $0.noise] }
        // Issue 31's targets are 1° and 3°. With the broadband and the bands' delays read
        // together: median 0.11°, worst 1.0° (speech at +90°). With the broadband delay alone
        // (before) speech read 2.7° at −90° and 2.5° at −70°, the worst.
        #expect(median(all) <= 0.5, "median of the azimuths' medians \(median(all))°")
        #expect(all.max()! <= 2, "worst \(all.max()!)°")
    }

    /// KEMAR's own tables at 48 kHz with the default bands, built once.
    static let kemarHead: MeasuredHead? = measureKEMAR()

    static func measureKEMAR() -> MeasuredHead? {
        guard kemar.count >= 2 else { return nil }
        var configuration = AnalysisConfiguration(sampleRate: rate, array: ArrayModel(kind: .binaural))
        configuration.maxSources = 0
        return MeasuredHead.measure(name: "kemar", impulseResponses: kemar, configuration: configuration)
    }

    /// One band's measurement as the fusion step gets it: a delay at a low-frequency share.
    static func band(delay: Double, share: Double, confidence: Double = 1, levelDBFS: Double = -30) -> CueMeasurements {
        CueMeasurements(
            delaySeconds: delay, lowFrequencyShare: share, timeConfidence: confidence, levelDBFS: levelDBFS, leftRMS: 0,
            rightRMS: 0, levelDifferenceDecibels: 0, levelFrequencyHz: 0, levelCoherence: nil, covariance: .zero,
            degreesOfFreedom: 1)
    }

    /// `head`'s reading of a frame whose broadband delay is `broadband` (at its share, confidence
    /// 1) and whose bands measured `bands`, in degrees (nil: nothing read).
    static func read(
        _ head: MeasuredHead, broadband: (delay: Double, share: Double, confidence: Double), bands: [CueMeasurements],
        offset: Double = 0, levelDBFS: Double = -30
    ) -> Double? {
        head.lateral(
            broadband: (broadband.delay, broadband.share, broadband.confidence), levelDBFS: levelDBFS, bands: bands,
            delayOffsetSeconds: offset, outlierSpanSeconds: 2 * ArrayModel(kind: .binaural).lagWindowSeconds, gateDBFS: -60
        ).map { asin($0) * 180 / Double.pi }
    }

    @Test("Reading the delays together: each azimuth's own table values read back that azimuth, at either render's share",
          .enabled(if: kemarAvailable))
    func delaysReadTogetherInvert() throws {
        let head = try #require(Self.kemarHead)
        #expect(head.estimates.map(\.name) == ["broadband", "low", "speech", "alert", "high"])
        for (j, azimuth) in head.azimuths.enumerated() {
            for speechShaped in [false, true] {
                // Where an estimate's two renders have the same share (within 10⁻⁴) its table
                // cannot tell them apart and reads the white render's delay.
                let values = head.estimates.map { e in
                    speechShaped && abs(e.lowShares[j] - e.shares[j]) > 1e-4
                        ? (delay: e.lowDelays[j], share: e.lowShares[j]) : (delay: e.delays[j], share: e.shares[j])
                }
                let bands = values.dropFirst().map { Self.band(delay: $0.delay, share: $0.share) }
                let read = try #require(Self.read(head, broadband: (values[0].delay, values[0].share, 1), bands: bands))
                #expect(abs(read - azimuth) < 0.01, "\(azimuth)° (\(speechShaped ? "speech-shaped" : "white")) read \(read)°, \(values.map { ($0.delay * 1e6, $0.share) })")
            }
        }
        // A hardware delay offset is removed from every delay before reading.
        let j = try #require(head.azimuths.firstIndex(of: 40))
        let offset = 20e-6
        let broadband = (head.estimates[0].delays[j] + offset, head.estimates[0].shares[j], 1.0)
        let shifted = head.estimates.dropFirst().map { Self.band(delay: $0.delays[j] + offset, share: $0.shares[j]) }
        let read = try #require(Self.read(head, broadband: broadband, bands: shifted, offset: offset))
        #expect(abs(read - 40) < 0.01, "\(read)°")
        // Nothing heard (all below the gate, or no confidence): nothing read, the broadband
        // delay is inverted alone.
        let quiet = head.estimates.dropFirst().map { Self.band(delay: $0.delays[j], share: $0.shares[j], levelDBFS: -80) }
        #expect(Self.read(head, broadband: broadband, bands: quiet, levelDBFS: -80) == nil)
        let unsure = head.estimates.dropFirst().map { Self.band(delay: $0.delays[j], share: $0.shares[j], confidence: 0) }
        #expect(Self.read(head, broadband: (broadband.0, broadband.1, 0), bands: unsure) == nil)
        // The broadband delay alone, when no band is sure, reads through its own table.
        let alone = try #require(Self.read(head, broadband: broadband, bands: unsure, offset: offset))
        #expect(abs(alone - 40) < 0.01, "\(alone)°")
    }

    @Test("Reading the delays together: a band's wrong peak is set aside, where least squares would follow it",
          .enabled(if: kemarAvailable))
    func delaysReadTogetherSetAsideOutliers() throws {
        let head = try #require(Self.kemarHead)
        for azimuth in [-60.0, 0, 30, 75] {
            let j = try #require(head.azimuths.firstIndex(of: azimuth))
            let broadband = (head.estimates[0].delays[j], head.estimates[0].shares[j], 1.0)
            // The 3–8 kHz band's peak 500 µs off (a spatially aliased one), half believed.
            let bands = head.estimates.dropFirst().enumerated().map { b, e in
                Self.band(delay: e.delays[j] + (b == 2 ? 500e-6 : 0), share: e.shares[j], confidence: b == 2 ? 0.5 : 1)
            }
            let read = try #require(Self.read(head, broadband: broadband, bands: bands))
            #expect(abs(read - azimuth) < 0.01, "\(azimuth)° read \(read)°")
        }
    }

    @Test("Reading the delays together: with every peak believed, the least-squares azimuth, as a search over a 0.01° grid finds it (seeded random readings)",
          .enabled(if: kemarAvailable))
    func delaysReadTogetherMinimise() throws {
        let head = try #require(Self.kemarHead)
        let n = head.azimuths.count
        // The spreads: at least 0.1 sample (the floor) and finite; at the side the 3–8 kHz
        // band's delay moves with the sound's spectrum (its two renders differ), the
        // 500–3000 Hz band's hardly, and the broadband delay mixes bands 13 µs apart.
        for e in head.estimates {
            #expect(e.delaySpreads.allSatisfy { $0.isFinite && $0 >= 0.1 / Self.rate * 0.999 }, "\(e.name)")
        }
        let side = try #require(head.azimuths.firstIndex(of: 90))
        let spreads = head.estimates.map { $0.delaySpreads[side] * 1e6 }
        #expect(spreads[2] < 4 && spreads[3] > 5 && spreads[0] > 8, "broadband, low, speech, alert, high at 90°: \(spreads) µs")
        // The cost the reading minimises, at any azimuth: Σ w·(−τ − path(θ))², each stretch's
        // spread the mean of its ends' (at a measured azimuth, within 10⁻⁹° of it as the reading
        // comes back through sin θ, the lower of its two stretches').
        func cost(_ delays: [(delay: Double, share: Double, confidence: Double)], at azimuth: Double) -> Double {
            (1..<n).filter { head.azimuths[$0 - 1] - 1e-9 <= azimuth && azimuth <= head.azimuths[$0] + 1e-9 }
                .map { k in
                    cost(delays, at: max(head.azimuths[k - 1], min(head.azimuths[k], azimuth)), stretch: k)
                }.min() ?? .infinity
        }
        func cost(_ delays: [(delay: Double, share: Double, confidence: Double)], at azimuth: Double, stretch j: Int) -> Double {
            let t = (azimuth - head.azimuths[j - 1]) / (head.azimuths[j] - head.azimuths[j - 1])
            var total = 0.0
            for (index, m) in delays.enumerated() {
                let e = head.estimates[index]
                func path(_ k: Int) -> Double {
                    let span = e.lowShares[k] - e.shares[k]
                    guard abs(span) > 1e-4 else { return -e.delays[k] }
                    let u = max(0, min(1, (m.share - e.shares[k]) / span))
                    return -(e.delays[k] + u * (e.lowDelays[k] - e.delays[k]))
                }
                let sigma = (e.delaySpreads[j - 1] + e.delaySpreads[j]) / 2
                let r = -m.delay - (path(j - 1) + t * (path(j) - path(j - 1)))
                total += m.confidence / (sigma * sigma) * r * r
            }
            return total
        }
        var generator = SeededRandom(seed: 31)
        for _ in 0..<40 {
            let j = Int.random(in: 0..<n, using: &generator)
            let delays = head.estimates.map { e in
                (delay: e.delays[j] + Double.random(in: -20e-6...20e-6, using: &generator),
                 share: Double.random(in: 0...0.2, using: &generator) + e.shares[j],
                 confidence: 1.0)
            }
            let bands = delays.dropFirst().map { Self.band(delay: $0.delay, share: $0.share, confidence: $0.confidence) }
            let read = try #require(Self.read(head, broadband: delays[0], bands: bands))
            var best = Double.infinity, at = 0.0
            for step in 0...18000 {
                let azimuth = -90 + Double(step) / 100
                let c = cost(delays, at: azimuth)
                if c < best { best = c; at = azimuth }
            }
            #expect(cost(delays, at: read) <= best * (1 + 1e-6) + 1e-12,
                    "read \(read)° (cost \(cost(delays, at: read))), the grid's best \(at)° (\(best))")
        }
    }

    @Test("With the default delay law (fitted on four heads, KEMAR among them): median ≤ 2°, no azimuth worse than 6°",
          .enabled(if: kemarAvailable))
    func defaultLaw() throws {
        let table = try Self.errors(array: ArrayModel(kind: .binaural))
        for row in table { print(String(format: "KEMAR default law %+5.0f°: speech %.2f°, noise %.2f°", row.azimuth, row.speech, row.noise)) }
        let all = table.flatMap { [$0.speech, $0.noise] }
        #expect(median(all) <= 2, "median \(median(all))°")
        #expect(all.max()! <= 6, "worst \(all.max()!)°")
    }

    @Test("The delay laws rise monotonically and invert exactly, at every low-frequency share",
          arguments: [HeadDelayLaw.sphere, HeadDelayLaw.measuredHeads])
    func lawInverts(law: HeadDelayLaw) {
        let model = ArrayModel(kind: .binaural, headLaw: law)
        for share in [0.0, 0.3, 0.7, 1.0] {
            var previous = -Double.infinity
            for degrees in stride(from: -89.0, through: 89.0, by: 1) {
                let s = sin(degrees * Double.pi / 180)
                let delay = model.delay(lateral: s, lowFrequencyShare: share)
                #expect(-delay > previous, "\(law) not rising at \(degrees)° (share \(share))")
                previous = -delay
                let back = model.lateral(delay: delay, lowFrequencyShare: share)
                #expect(abs(asin(back) - asin(s)) * 180 / Double.pi < 1e-6, "\(degrees)° share \(share): \(back)")
            }
        }
    }

    @Test("The sphere law is the model before: Woodworth at high frequencies, Kuhn at low ones")
    func sphereIsWoodworthAndKuhn() {
        let model = ArrayModel(kind: .binaural, headLaw: .sphere)
        let rc = model.headRadiusMeters / model.speedOfSoundMetersPerSecond
        for degrees in [10.0, 45, 80] {
            let theta = degrees * Double.pi / 180
            #expect(abs(model.delay(lateral: sin(theta), lowFrequencyShare: 0) + rc * (theta + sin(theta))) < 1e-12)
            #expect(abs(model.delay(lateral: sin(theta), lowFrequencyShare: 1) + rc * 3 * sin(theta)) < 1e-12)
        }
    }

    @Test("The fitted law: its delay grows more nearly linearly than the sphere's, and ±90° reads 0.7–0.8 ms")
    func fittedLawShape() {
        let model = ArrayModel(kind: .binaural)
        let side = -model.delay(lateral: 1, lowFrequencyShare: 0)
        #expect(side > 700e-6 && side < 800e-6, "\(side * 1e6) µs at 90°")
        // Linear in θ: the delay at 45° is half that at 90° within 15 % (the sphere's: 63 %).
        let half = -model.delay(lateral: sin(Double.pi / 4), lowFrequencyShare: 0) / side
        #expect(half > 0.5 && half < 0.575, "\(half)")
    }

    // MARK: - Bad SOFA files

    static func scratch(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sofa-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("Bad SOFA files: missing, empty, a directory, garbage, not HDF5, truncated KEMAR: one error naming the file, no crash",
          .enabled(if: kemarAvailable))
    func badFiles() throws {
        let kemarBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.kemarPath)))
        var generator = SeededRandom(seed: 7)
        var cases: [(String, [UInt8])] = [
            ("empty.sofa", []),
            ("text.sofa", Array("not a sofa file\n".utf8)),
            ("garbage.sofa", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            ("signature-only.sofa", [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]),
            ("signature-garbage.sofa", [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }),
        ]
        for fraction in [0.01, 0.1, 0.5, 0.9, 0.999] {
            cases.append(("truncated-\(fraction).sofa", Array(kemarBytes.prefix(Int(Double(kemarBytes.count) * fraction)))))
        }
        // Flipped bytes in the middle of the file.
        var flipped = kemarBytes
        for i in stride(from: 2000, to: flipped.count, by: 997) { flipped[i] ^= 0x5A }
        cases.append(("flipped.sofa", flipped))
        for (name, bytes) in cases {
            let path = try Self.scratch(name, bytes)
            do {
                let responses = try SOFAFile.horizontalPlane(path: path, sampleRate: Self.rate)
                // A damaged file may still read (libmysofa checks little of the data): then
                // what it gives must be finite.
                #expect(responses.allSatisfy { $0.left.allSatisfy(\.isFinite) && $0.right.allSatisfy(\.isFinite) }, "\(name)")
            } catch {
                #expect(error.description.hasPrefix(path + ": "), "\(name): \(error)")
                #expect(!error.isUnreadable, "\(name): \(error)")
            }
        }
        #expect(throws: SOFAError.notFound(path: "/nonexistent/head.sofa")) {
            try SOFAFile.horizontalPlane(path: "/nonexistent/head.sofa", sampleRate: Self.rate)
        }
        do {
            _ = try SOFAFile.horizontalPlane(path: FileManager.default.temporaryDirectory.path, sampleRate: Self.rate)
            Issue.record("a directory read as a SOFA file")
        } catch {
            #expect(error.isUnreadable && error.description.contains("not a regular file"), "\(error)")
        }
    }

    /// KEMAR with its `Data.SamplingRate` set to `rate`: the variable is one gzip-compressed
    /// chunk of 16 bytes at a fixed offset in Debian's file, replaced by a zlib stream of the
    /// same length holding the new value (made with Python's zlib, Huffman-only where the
    /// default would be shorter).
    static func kemar(rate: String) throws -> [UInt8] {
        let streams = [
            "1": "7801636060606060f8600f0002270130", "100": "78016360606060608874000000fa009a",
            "8000": "7801636060606070d8ef000002860140", "1e9": "780163606060483d7bd6110005de0241",
            "-44100": "78016360606068e8787a0000062a02ae",
        ]
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: kemarPath)))
        let offset = 1_173_131, original = "78016360606068e878ea000005aa022e"
        func hex(_ text: String) -> [UInt8] {
            stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
        }
        try #require(bytes.count == 1_173_158 && Array(bytes[offset..<(offset + 16)]) == hex(original),
                     "Debian's MIT KEMAR file changed: its Data.SamplingRate chunk is not where this test patches it")
        bytes.replaceSubrange(offset..<(offset + 16), with: hex(streams[rate]!))
        return bytes
    }

    /// #47 items 3 and 10: libmysofa resampled every response inside `mysofa_open`, before any
    /// check: KEMAR at rate 1 grew by 6.5 MB/s (about 140 GB in all), at 100 and 1e9 it ran
    /// for minutes; a negative rate said "out of memory". Each is now refused at once, naming
    /// the field, as unusable data (65).
    @Test("#47 items 3 and 10: a SOFA file's Data.SamplingRate of 1, 100, 1e9 or −44100 Hz, or responses too long once resampled, is refused at once naming the field",
          .enabled(if: kemarAvailable), .timeLimit(.minutes(1)))
    func extremeSampleRates() throws {
        for (rate, problem) in [
            ("1", "Data.SamplingRate is 1 Hz; a measured head is read at 8–384 kHz"),
            ("100", "Data.SamplingRate is 100 Hz; a measured head is read at 8–384 kHz"),
            ("1e9", "Data.SamplingRate is 1000000000 Hz; a measured head is read at 8–384 kHz"),
            ("-44100", "Data.SamplingRate is -44100 Hz; a measured head is read at 8–384 kHz"),
        ] {
            let path = try Self.scratch("kemar-rate-\(rate).sofa", try Self.kemar(rate: rate))
            let start = Date()
            #expect(throws: SOFAError.unusable(path: path, problem: problem)) {
                try SOFAFile.horizontalPlane(path: path, sampleRate: Self.rate)
            }
            #expect(Date().timeIntervalSince(start) < 5, "rate \(rate): \(Date().timeIntervalSince(start)) s")
        }
        // A plausible rate, but 8 kHz responses resampled to 384 kHz would be 48 times as long:
        // 710 × 2 × 24,576 samples, over the 32 M read. At 48 kHz the same file reads.
        let path = try Self.scratch("kemar-rate-8000.sofa", try Self.kemar(rate: "8000"))
        #expect(throws: SOFAError.unusable(
            path: path,
            problem: "710 measurements × 2 receivers × 24576 samples at 384000 Hz (Data.IR of 512 samples at 8000 Hz) is more than the 32 M samples read")) {
            try SOFAFile.horizontalPlane(path: path, sampleRate: 384_000)
        }
        #expect(try SOFAFile.horizontalPlane(path: path, sampleRate: Self.rate).count >= SOFAFile.minimumDirections)
    }

    /// #47 item 10: libmysofa's HDF5 reader gives `errno` values, which read "libmysofa error 22".
    @Test("#47 item 10: libmysofa's errno codes are named in words")
    func errnoCodesNamed() {
        #expect(SOFAError.reason(code: 22) == "a damaged HDF5 structure, or one libmysofa does not read (its reader's code 22)")
        #expect(SOFAError.reason(code: 3) == "a damaged HDF5 structure, or one libmysofa does not read (its reader's code 3)")
        #expect(SOFAError.reason(code: 12) == "a size in the file too large to allocate (damaged?)")
        #expect(SOFAError.reason(code: 10004) == "invalid attributes (not SimpleFreeFieldHRIR?)")
    }
}
