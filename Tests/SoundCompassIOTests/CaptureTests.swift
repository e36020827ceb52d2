import Foundation
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The live capture path: sample conversion, ALSA capture through ALSA's `file` plugin (a raw
/// recording replayed as a capture device, so no sound card is needed), overrun recovery,
/// raw PCM input and the live loop.
struct CaptureTests {
    // MARK: - Fixtures

    /// A source at +30° (white noise, exact fractional delays), 2 s at 48 kHz.
    static let signal = stillSource(azimuth: 30, duration: 2, seed: 11)

    /// Writes `signal` as a headerless file and returns its path.
    static func writeRaw(
        _ signal: StereoSignal, _ format: SoundFileWriter.Format, in directory: TemporaryDirectory, name: String
    ) throws -> String {
        let path = directory.path(name)
        let writer = try SoundFileWriter(path: path, sampleRate: Int(signal.sampleRate), channels: 2, format: format)
        try writer.write(channels: [signal.left, signal.right])
        writer.close()
        return path
    }

    /// Runs a capture source through the live loop and collects its records.
    static func capture(
        _ source: any CaptureSource, duration: Double? = nil
    ) throws -> (records: [AnalysisRecord], summary: LiveAnalysis.Summary) {
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: source.sampleRate))
        var records: [AnalysisRecord] = []
        let summary = try LiveAnalysis(source: source, analyzer: analyzer, duration: duration).run { records.append($0) }
        return (records, summary)
    }

    static func replay(
        _ raw: String, encoding: PCMEncoding? = nil, refusingFloat: Bool = false, faults: [Int: Int32] = [:],
        channels: (left: Int, right: Int)? = nil, channelCount: Int? = nil
    ) throws -> ALSACaptureSource {
        var settings = ALSACaptureSettings(
            device: "replay", channels: channels, channelCount: channelCount, encoding: encoding,
            configurationText: ALSACaptureSettings.replayConfiguration(name: "replay", rawFile: raw, refusingFloat: refusingFloat))
        settings.injectedFaults = faults
        return try ALSACaptureSource(settings: settings)
    }

    // MARK: - Sample conversion

    @Test("every encoding converts full scale, half scale and the most negative value exactly, and picks its channels")
    func encodings() {
        // Three channels per frame; frames hold (x, 0, −x) for x = −1, 0.5, 0.25 of full scale.
        let values: [Double] = [-1, 0.5, 0.25]
        for encoding in PCMEncoding.allCases {
            var bytes: [UInt8] = []
            func put(_ x: Double) {
                switch encoding {
                case .float32: withUnsafeBytes(of: Float(x).bitPattern.littleEndian) { bytes += $0 }
                case .int32: withUnsafeBytes(of: Int32(clamping: Int64(x * 0x1p31)).littleEndian) { bytes += $0 }
                case .int24In32:
                    // ALSA's S24_LE: the low three bytes; the top byte is padding (set it to junk).
                    let v = UInt32(bitPattern: Int32(clamping: Int64(x * 0x1p23))) & 0xFF_FFFF | 0x5A00_0000
                    withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
                case .int24Packed:
                    let v = UInt32(bitPattern: Int32(clamping: Int64(x * 0x1p23)))
                    bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)]
                case .int16: withUnsafeBytes(of: Int16(clamping: Int64(x * 0x1p15)).littleEndian) { bytes += $0 }
                }
            }
            for x in values { put(x); put(0); put(x == -1 ? 0.75 : -x) }
            #expect(bytes.count == 9 * encoding.bytesPerSample)
            var left = [Float](repeating: .nan, count: 3), right = [Float](repeating: .nan, count: 3)
            bytes.withUnsafeBytes { raw in
                left.withUnsafeMutableBufferPointer { l in
                    right.withUnsafeMutableBufferPointer { r in
                        encoding.deinterleave(raw, frames: 3, channels: 3, leftChannel: 2, rightChannel: 0, left: l, right: r)
                    }
                }
            }
            #expect(right == [-1, 0.5, 0.25], "\(encoding)")
            #expect(left == [0.75, -0.5, -0.25], "\(encoding)")
        }
    }

    @Test("encoding names: ALSA's and the raw ones, case-insensitive")
    func encodingNames() {
        #expect(PCMEncoding(name: "FLOAT_LE") == .float32)
        #expect(PCMEncoding(name: "s16_le") == .int16)
        #expect(PCMEncoding(name: "s24_3le") == .int24Packed)
        #expect(PCMEncoding(name: "S24_3LE") == .int24Packed)
        #expect(PCMEncoding(name: "u8") == nil)
    }

    // MARK: - ALSA capture through the file plugin

    @Test("a float replay delivers exactly the recorded samples: records identical to analysing them in memory")
    func floatReplay() throws {
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawF32, in: directory, name: "float.raw")
        let source = try Self.replay(raw)
        #expect(source.encoding == .float32)
        #expect(source.isReplay)
        #expect(source.channelCount == 2)
        let (records, summary) = try Self.capture(source)
        let reference = try analyze(Self.signal)
        #expect(records.count == reference.count)
        #expect(zip(records, reference).allSatisfy { $0.azimuth == $1.azimuth && $0.time == $1.time })
        // The replay ends where the file does (the plugin itself never says so).
        #expect(source.framesCaptured == Self.signal.left.count)
        #expect(summary.ending == .endOfStream)
        #expect(abs(summary.streamSeconds - 2) < 1e-9)
        let active = records.filter(\.active).map(\.azimuth)
        #expect(abs(median(active) - 30) < 0.5)
    }

    @Test("S16_LE replay: captured as 16-bit, converted, bearing within 0.5° of the float analysis")
    func int16Replay() throws {
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawS16, in: directory, name: "s16.raw")
        let source = try Self.replay(raw, encoding: .int16)
        #expect(source.encoding == .int16)
        let (records, _) = try Self.capture(source)
        let reference = try analyze(Self.signal)
        #expect(records.count == reference.count)
        let live = median(records.filter(\.active).map(\.azimuth))
        let offline = median(reference.filter(\.active).map(\.azimuth))
        #expect(abs(live - offline) < 0.5, "S16 \(live)°, float \(offline)°")
    }

    @Test("a device without float: negotiation falls back to S32_LE and converts correctly")
    func formatFallback() throws {
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawS32, in: directory, name: "s32.raw")
        let source = try Self.replay(raw, refusingFloat: true)
        #expect(source.encoding == .int32)
        // With a plugin between the replay and `null`, the read past the end of the file is
        // silence rather than untouched, so the end is not seen: stop at the file's length.
        let (records, _) = try Self.capture(source, duration: 2)
        let reference = try analyze(Self.signal)
        #expect(records.count == reference.count)
        // 32-bit integers carry a float's 24-bit mantissa exactly at these levels.
        let worst = zip(records, reference).map { abs($0.azimuth - $1.azimuth) }.max() ?? .infinity
        #expect(worst < 0.01, "largest difference \(worst)°")
    }

    @Test("overruns are recovered from and counted; no record is lost or duplicated in stream time")
    func overrunRecovery() throws {
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawF32, in: directory, name: "float.raw")
        let clean = try Self.capture(try Self.replay(raw))
        let source = try Self.replay(raw, faults: [3: -EPIPE, 20: -EPIPE, 21: -ESTRPIPE])
        let (records, summary) = try Self.capture(source)
        #expect(summary.overruns == 2)
        #expect(summary.suspends == 1)
        #expect(records.count == clean.records.count)
        let hop = 1024.0 / 48000
        for (i, record) in records.enumerated() {
            #expect(abs(record.time - (Double(i) * hop + 1024.0 / 48000)) < 1e-9, "record \(i) at \(record.time) s")
        }
        #expect(zip(records, clean.records).allSatisfy { $0.azimuth == $1.azimuth })
    }

    @Test("a pair of a four-channel device: opens four channels and reads channels 3 and 4")
    func multichannel() throws {
        let directory = TemporaryDirectory()
        // Channels 1 and 2 hold a source at −60°, channels 3 and 4 the one at +30°.
        let other = stillSource(azimuth: -60, duration: 2, seed: 12)
        let path = directory.path("four.raw")
        let writer = try SoundFileWriter(path: path, sampleRate: 48000, channels: 4, format: .rawF32)
        try writer.write(channels: [other.left, other.right, Self.signal.left, Self.signal.right])
        writer.close()
        let source = try Self.replay(path, channels: (3, 4))
        #expect(source.channelCount == 4)
        let (records, _) = try Self.capture(source)
        #expect(abs(median(records.filter(\.active).map(\.azimuth)) - 30) < 0.5)
        let swapped = try Self.capture(try Self.replay(path, channels: (2, 1), channelCount: 4)).records
        #expect(abs(median(swapped.filter(\.active).map(\.azimuth)) - 60) < 0.5)
    }

    @Test("--duration counts stream time: a capture stops at exactly that many samples")
    func durationLimit() throws {
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawF32, in: directory, name: "float.raw")
        let (records, summary) = try Self.capture(try Self.replay(raw), duration: 1.5)
        #expect(summary.ending == .duration)
        #expect(abs(summary.streamSeconds - 1.5) < 1e-9)
        #expect(records.count == (72000 - 2048) / 1024 + 1)
    }

    @Test("unknown devices and impossible requests are typed errors naming the device")
    func openErrors() throws {
        #expect(throws: ALSAError.noSuchDevice(device: "nosuchdevice")) {
            try ALSACaptureSource(settings: ALSACaptureSettings(device: "nosuchdevice"))
        }
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawF32, in: directory, name: "float.raw")
        do {
            _ = try Self.replay(raw, encoding: .float32, refusingFloat: true)
            Issue.record("float was accepted by a device that refuses it")
        } catch {
            #expect("\(error)".hasPrefix("replay: the device does not offer FLOAT_LE"))
        }
        do {
            _ = try Self.replay(raw, channels: (1, 3), channelCount: 2)
            Issue.record("channel 3 of 2 was accepted")
        } catch {
            #expect("\(error)" == "replay: channel 3 does not exist (opening 2 channels)")
        }
    }

    // MARK: - Raw PCM input

    @Test("raw PCM from a file: S16, the same bearing; a torn last frame is reported")
    func rawInput() throws {
        let directory = TemporaryDirectory()
        let raw = try Self.writeRaw(Self.signal, .rawS16, in: directory, name: "s16.raw")
        // Tear the last frame: two of its four bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: raw))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2]))
        try handle.close()
        let source = try RawPCMSource(path: raw, encoding: .int16, sampleRate: 48000, periodFrames: 1000)
        let (records, summary) = try Self.capture(source)
        #expect(source.framesCaptured == Self.signal.left.count)
        #expect(summary.ending == .endOfStream)
        #expect(abs(median(records.filter(\.active).map(\.azimuth)) - 30) < 0.5)
        #expect(source.warnings == ["\(raw): ended part-way through a frame; the last 2 bytes were ignored"])
        #expect(throws: SoundFileError.notFound(path: directory.path("missing.raw"))) {
            try RawPCMSource(path: directory.path("missing.raw"), encoding: .int16, sampleRate: 48000)
        }
    }

    // MARK: - Latency statistics and the compass

    @Test("latency histogram: quantiles within one bin (2.3 %) of the exact ones")
    func latencyHistogram() {
        var histogram = LatencyHistogram()
        #expect(histogram.quantile(0.5) == nil)
        // 1 … 1000 µs, shuffled deterministically.
        var random = SeededRandom(seed: 3)
        var values = (1...1000).map { Double($0) * 1e-6 }
        values.shuffle(using: &random)
        for v in values { histogram.record(seconds: v) }
        #expect(histogram.count == 1000)
        let p50 = histogram.quantile(0.5)!, p99 = histogram.quantile(0.99)!
        #expect(abs(p50 / 500e-6 - 1) < 0.023, "p50 \(p50)")
        #expect(abs(p99 / 990e-6 - 1) < 0.023, "p99 \(p99)")
        #expect(histogram.maximum == 1000e-6)
    }

    @Test("the compass draws five lines, puts the marker at the bearing and redraws in place")
    func compass() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("compass.txt")
        let sink = try LineSink(path: path)
        let compass = TerminalCompass(sink: sink, columns: 80, bandNames: ["low", "speech"])
        var record = AnalysisRecord()
        record.azimuth = 45
        record.lateral = sin(45 * Double.pi / 180)
        record.confidence = 0.9
        record.active = true
        record.levelDBFS = -20
        record.bands = [
            BandRecord(name: "low", lowHz: 100, highHz: 500, azimuth: -30, confidence: 0.8, levelDBFS: -30),
            BandRecord(name: "speech", lowHz: 500, highHz: 3000, azimuth: 45, confidence: 0.1, levelDBFS: -25),
        ]
        compass.update(record)
        try compass.draw(status: .init(streamSeconds: 1.5, frames: 70, overruns: 1))
        try compass.draw(status: .init(streamSeconds: 1.6, frames: 75, overruns: 1))
        compass.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let drawings = text.components(separatedBy: "\u{1B}[5F")
        #expect(drawings.count == 2, "the second drawing moves up five lines first")
        let lines = drawings[1].split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "\u{1B}[2K", with: "")
        }
        #expect(lines.count == 6)
        // Dial: 79 columns, " L ├" + 72 cells + "┤ R"; +45° sits three quarters of the way along.
        let dial = Array(lines[0])
        #expect(dial.count == 79)
        let marker = try #require(dial.firstIndex(of: "●"))
        #expect(marker - 4 == Int((135.0 / 180 * 71).rounded()))
        // The confident low band's initial at −30°, the unconfident speech band absent.
        let bands = Array(lines[2])
        #expect(bands.firstIndex(of: "l") == 4 + Int((60.0 / 180 * 71).rounded()))
        #expect(!bands.contains("s"))
        #expect(lines[3].hasPrefix("   +45.0°  far right"))
        #expect(lines[4].contains("1.6 s  75 frames  1 overrun"))
        #expect(text.hasPrefix("\u{1B}[?25l\u{1B}[?7l"), "cursor hidden and autowrap off while drawing")
        #expect(text.hasSuffix("\u{1B}[?7h\u{1B}[?25h"))
    }
}
