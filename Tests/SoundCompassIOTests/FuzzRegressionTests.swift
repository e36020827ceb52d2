import Foundation
import Testing
@testable import SoundCompassIO
import TestSignals
import TestSupport

/// Inputs the fuzz targets (Fuzz/, scripts/fuzz) found crashing, kept as tests once fixed.
struct FuzzRegressionTests {
    /// rawpcm crash-46380f6f: 243 bytes of mostly zeros; read as 4-channel f32 it is 15 frames,
    /// fewer than the ±16-sample lags of the channel-coupling measure, whose range then ran
    /// backwards (a trap in `PCMEncoding.structure`).
    static let shortStream: [UInt8] = [0x04,0xd3,0x3f,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x12,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x02,0x01,0xff,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0xe4,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00]

    @Test("channel coupling of streams shorter than its ±16-sample lags: 0 where nothing overlaps")
    func couplingOfShortStreams() {
        // Lag 1 pairs a[0] with b[1]: full coupling; no lag-1 self-similarity.
        let (smoothness, coupling) = PCMEncoding.structure([[1, 0, 0], [0, 1, 0]])
        #expect(smoothness == 0)
        #expect(coupling == 1)
        let single = PCMEncoding.structure([[0.5], [0.25]])
        #expect(single.smoothness == 0)
        #expect(single.coupling == 1)  // lag 0: 0.125 / sqrt(0.25 · 0.0625)
    }

    @Test("the likeliest encoding of 0…20 frames, every encoding and 1…8 channels, without a trap")
    func likeliestOfShortStreams() {
        var random = SeededRandom(seed: 46380)
        for frames in 0...20 {
            for channels in 1...8 {
                let count = frames * channels * 4
                let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next() >> 56) }
                let likely = bytes.withUnsafeBytes { PCMEncoding.likeliest(for: $0, channels: channels) }
                if let likely {
                    let clean = bytes.withUnsafeBytes { likely.decoding(of: $0, channels: channels).isClean }
                    #expect(clean, "\(frames) frames, \(channels) channels: \(likely)")
                }
            }
        }
    }

    @Test("the rawpcm reproducer: likeliest answers, and a raw source of it reads all 30 frames or is refused as implausible")
    func rawReproducer() throws {
        let stream = Array(Self.shortStream.dropFirst(3))
        #expect(stream.count == 243)
        _ = stream.withUnsafeBytes { PCMEncoding.likeliest(for: $0, channels: 4) }
        let directory = TemporaryDirectory()
        let path = directory.path("short.raw")
        try Data(stream).write(to: URL(fileURLWithPath: path))
        for encoding in PCMEncoding.allCases {
            do throws(SoundFileError) {
                let source = try RawPCMSource(path: path, encoding: encoding, sampleRate: 48000, channelCount: 4, periodFrames: 64)
                let frames = try Self.readAll(source, blockFrames: 64)
                #expect(frames == 243 / (4 * encoding.bytesPerSample), "\(encoding)")
            } catch {
                guard case .implausibleSamples = error else { Issue.record("\(encoding): \(error)"); continue }
            }
        }
    }
}

extension FuzzRegressionTests {
    /// rawpcm crash-6ab4133c: after 90,000 inputs the target could no longer open /dev/null. A
    /// raw source handed a descriptor (a pipe, FIFO or device, as `live --input` opens it) and
    /// refused for its layout kept the descriptor open; one refused later, for implausible
    /// samples, closed it. Now it owns the descriptor either way.
    @Test("a raw source refused for its layout or its samples closes the descriptor it was handed")
    func refusedSourceClosesDescriptor() throws {
        func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        // 64 frames of 2-channel f32 full of 1e30: implausible as f32.
        let implausible = [UInt8](repeating: 0x72, count: 64 * 8)
        let refusals: [(name: String, channelCount: Int, channels: (left: Int, right: Int)?, rate: Int)] = [
            ("too many channels", 4096, nil, 48000),
            ("channel out of range", 2, (1, 7), 48000),
            ("rate too low", 2, nil, 10),
            ("implausible samples", 2, nil, 48000),
        ]
        for refusal in refusals {
            let before = try openDescriptors()
            var refused = 0
            for _ in 0..<2000 {
                let descriptor = open("/dev/null", O_RDONLY)
                try #require(descriptor >= 0, "\(refusal.name): cannot open /dev/null: errno \(errno)")
                do {
                    _ = try RawPCMSource(
                        path: "fuzz.raw", descriptor: descriptor, prefix: implausible, encoding: .float32, sampleRate: refusal.rate,
                        channelCount: refusal.channelCount, channels: refusal.channels, swap: false, periodFrames: 64)
                } catch {
                    refused += 1
                }
            }
            #expect(refused == 2000, "\(refusal.name)")
            // Other tests run alongside and open files too: 2,000 leaks would stand far above them.
            let grown = try openDescriptors() - before
            #expect(grown < 200, "\(refusal.name): \(grown) more open descriptors")
        }
    }

    /// profile crash-e409c06a: `"version": 111…1` (57 digits), a whole number beyond Int, trapped
    /// when the "newer than this soundcompass reads" message converted it to Int.
    @Test("a profile version beyond Int is refused as newer, naming the number", arguments: ["1e20", "111111111111111111111111111111111111111111111111111111111", "1e308"])
    func hugeProfileVersion(version: String) {
        let text = #"{"format": "soundcompass-profile", "version": \#(version), "array": "spaced", "spacing_m": 0.17, "delay_offset_us": 0, "gain_offset_db": 0, "sample_rate": 48000}"#
        #expect(throws: ProfileError.self) { try ArrayProfile.parse(text, path: "p.json") }
        do { _ = try ArrayProfile.parse(text, path: "p.json") } catch {
            // 1e+20, 1.1111111111111111e+56, 1e+308
            #expect(error.description.hasPrefix("p.json: not a usable profile: version 1"), "\(error.description)")
            #expect(error.description.contains("e+"), "\(error.description)")
            #expect(error.description.hasSuffix("is newer than this soundcompass reads (1); update soundcompass"))
        }
    }

    /// profile crash-ec63817b (CI, 2026-11-24): `"included_angle_deg": 0.02` loads (any angle
    /// above 0 does), but the profile wrote it with one decimal as 0.0, which does not load.
    /// Small positive values are now written with the decimals they need.
    /// Issue 30 item 1: an angle of 1e-9° asked for more decimals than the formatter had (a
    /// trap in `NumberFormatting.appendFixed`); 1e-300 needs more than any fixed form.
    @Test("a profile with a tiny included angle or the smallest ILD gain writes JSON that loads back to the same values",
          arguments: [("coincident", "\"included_angle_deg\": 0.02"), ("coincident", "\"included_angle_deg\": 0.0004"),
                      ("coincident", "\"included_angle_deg\": 1e-9"), ("coincident", "\"included_angle_deg\": 1e-300"),
                      ("binaural", "\"ild_gain\": 0.5")])
    func tinyPositiveValuesRoundTrip(array: String, field: String) throws {
        let text = #"{"format": "soundcompass-profile", "version": 1, "array": "\#(array)", "spacing_m": 0.17, "delay_offset_us": 0, "gain_offset_db": 0.5, \#(field), "sample_rate": 48000}"#
        let profile = try ArrayProfile.parse(text, path: "p.json")
        let again = try ArrayProfile.parse(profile.json, path: "p.json")
        if let angle = profile.includedAngleDegrees {
            #expect(abs((again.includedAngleDegrees ?? 0) - angle) <= 0.5e-3 * angle, "\(profile.json)")
        }
        if let gain = profile.ildGain {
            #expect(abs((again.ildGain ?? 0) - gain) <= 0.5e-3 * gain, "\(profile.json)")
        }
    }
}

extension FuzzRegressionTests {
    /// Reads `source` to its end through the public span form, `blockFrames` at a time.
    /// - Returns: frames read.
    static func readAll<Source: StereoSource>(_ source: Source, blockFrames: Int) throws(Source.Failure) -> Int {
        var left = [Float](repeating: 0, count: blockFrames), right = left
        var leftSpan = left.mutableSpan, rightSpan = right.mutableSpan
        var frames = 0
        while true {
            let n = try source.read(left: &leftSpan, right: &rightSpan)
            if n == 0 { return frames }
            frames += n
        }
    }

    @Test("the seed soundfile/rf64-huge-ds64.wav (#30 item 2) reads as a stream without a trap: 100 bytes, 25 frames")
    func rf64HugeDataSizeAsStream() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Seeds/soundfile/rf64-huge-ds64.wav")
        let bytes = Array(try Data(contentsOf: seeds))
        let reader = try SoundFileReader(bytes: bytes, name: "rf64")
        let left = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024), right = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024)
        defer { left.deallocate(); right.deallocate() }
        var total = 0
        while case let n = try reader.read(into: left, right, frames: 1024), n > 0 { total += n }
        #expect(total == 25)
    }
}

extension FuzzRegressionTests {
    /// Issue 30 item 1: `"ild_gain": 1e-9` loaded (anything above 0 did), and `calibrate
    /// --profile` then trapped writing it; 1e300 loaded too. The range is now the one
    /// `--ild-gain` has, 0.5…100 dB.
    @Test("a profile's ild_gain outside 0.5…100 dB is refused, naming the range", arguments: ["1e-9", "0.0002", "0.49", "100.5", "1e300"])
    func ildGainOutOfRange(gain: String) {
        let text = #"{"array": "binaural", "spacing_m": 0.175, "delay_offset_us": 0, "gain_offset_db": 0, "ild_gain": \#(gain), "sample_rate": 48000}"#
        #expect(throws: ProfileError.self) { try ArrayProfile.parse(text, path: "p.json") }
        do { _ = try ArrayProfile.parse(text, path: "p.json") } catch {
            #expect(error.description.contains("is not a level-cue gain in dB (0.5…100.0)"), "\(error.description)")
        }
    }
}
