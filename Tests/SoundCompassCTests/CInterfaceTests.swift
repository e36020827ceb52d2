import CSoundCompass
import Foundation
import SoundCompassC
import Testing

/// The C interface refuses a caller's mistakes with a status and a message instead of trapping
/// (NULL pointers, a bad index, options the tool refuses, a file that is not sound), and its
/// records are the engine's: a delayed noise reads on the side that leads. (The records against
/// the tool's, field by field, are the Python package's tests: python/tests.)
@Suite("The C interface")
struct CInterfaceTests {
    /// Calls `body` with `arguments` as a C `argv`.
    static func withArgv<R>(_ arguments: [String], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = arguments.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body(Int32(arguments.count), $0.baseAddress) }
    }

    /// `sc_analyzer_create` with `arguments`: the status, the analyzer and the message.
    static func create(_ arguments: [String], rate: Double = 48000) -> (sc_status, OpaquePointer?, String) {
        var analyzer: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        let status = withArgv(arguments) { argc, argv in scAnalyzerCreate(rate, argc, argv, &analyzer, &message, 256) }
        return (status, analyzer, Self.text(message))
    }

    /// The characters of a C buffer up to its first NUL.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test("options the tool refuses are refused with its message; a short buffer holds its first whole characters")
    func refusedOptions() {
        let (status, analyzer, message) = Self.create(["--spacing", "9"])
        #expect(status == SC_USAGE && analyzer == nil)
        #expect(message == "--spacing must be 0.005…5.0 metres, got 9.0")
        #expect(Self.create(["--max-sources"]).2 == "missing value for '--max-sources <n>'")
        #expect(Self.create(["--channels", "1,2"]).2.contains("--channels picks a file's channels"))
        #expect(Self.create([], rate: 100).2 == "the sample rate must be 8000…768000 Hz, got 100.0")
        var small = [CChar](repeating: 65, count: 8)
        var other: OpaquePointer?
        let shortStatus = Self.withArgv(["--spacing", "9"]) { scAnalyzerCreate(48000, $0, $1, &other, &small, 8) }
        #expect(shortStatus == SC_USAGE && Self.text(small) == "--spaci")
        // Cut at a whole character: "0.005…5.0" is cut before the three bytes of "…".
        var cut = [CChar](repeating: 65, count: 25)
        _ = Self.withArgv(["--spacing", "9"]) { scAnalyzerCreate(48000, $0, $1, &other, &cut, 25) }
        #expect(Self.text(cut) == "--spacing must be 0.005")
    }

    @Test("NULL pointers, a bad index and a write to a file analyzer are usage errors, not traps")
    func callerMistakes() throws {
        #expect(scAnalyzerCreate(48000, 0, nil, nil, nil, 0) == SC_USAGE)
        #expect(scAnalyzerInfo(nil, nil) == SC_USAGE)
        #expect(scAnalyzerWrite(nil, nil, nil, 10) == SC_USAGE)
        #expect(scAnalyzerError(nil) == nil && scAnalyzerWarnings(nil) == nil)
        scAnalyzerDestroy(nil)
        let (_, analyzer, _) = Self.create([])
        defer { scAnalyzerDestroy(analyzer) }
        var band = sc_band_info()
        #expect(scAnalyzerBandInfo(analyzer, 4, &band) == SC_USAGE)
        #expect(String(cString: scAnalyzerError(analyzer)!) == "band 4 does not exist: the analyzer has 4 bands")
        #expect(scAnalyzerBandInfo(analyzer, 1, &band) == SC_OK && String(cString: band.name) == "speech")
        #expect(scAnalyzerWrite(analyzer, nil, nil, 10) == SC_USAGE)
        var records = [sc_record](repeating: sc_record(), count: 2), count = 0
        #expect(scAnalyzerRead(analyzer, &records, nil, nil, 2, &count) == SC_USAGE)
        #expect(String(cString: scAnalyzerError(analyzer)!).contains("give arrays for them"))
        #expect(scAnalyzerRead(analyzer, nil, nil, nil, 0, &count) == SC_USAGE && count == 0)
    }

    @Test("a missing file, a file that is not sound, and a write to a file analyzer")
    func files() throws {
        var analyzer: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        #expect(scAnalyzerOpenFile("/nonexistent/take.wav", 0, nil, &analyzer, &message, 512) == SC_NO_INPUT)
        #expect(Self.text(message).hasPrefix("/nonexistent/take.wav: "))
        let junk = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: junk) }
        try Data("RIFF....WAVEjunk".utf8).write(to: URL(fileURLWithPath: junk))
        #expect(scAnalyzerOpenFile(junk, 0, nil, &analyzer, &message, 512) == SC_DATA_ERROR)
        #expect(Self.text(message).hasPrefix(junk + ": "))
        #expect(analyzer == nil)
        #expect(scAnalyzerOpenFile(nil, 0, nil, &analyzer, &message, 512) == SC_USAGE)
    }

    @Test("white noise that reaches the left microphone 10 samples first reads left: −20.9° on a 20 cm pair")
    func delayedNoise() throws {
        let (status, analyzer, _) = Self.create(["--spacing", "0.2"])
        try #require(status == SC_OK)
        defer { scAnalyzerDestroy(analyzer) }
        var info = sc_info()
        #expect(scAnalyzerInfo(analyzer, &info) == SC_OK)
        #expect(info.frame_length == 2048 && info.hop_length == 1024 && info.band_count == 4 && info.max_sources == 3)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<48_010).map { _ -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 10_000
        }
        let left = Array(noise[10...]), right = Array(noise[..<48_000])
        #expect(scAnalyzerWrite(analyzer, left, right, 48_000) == SC_OK)
        var records = [sc_record](repeating: sc_record(), count: 64)
        var bands = [sc_band](repeating: sc_band(), count: 64 * 4), sources = [sc_source](repeating: sc_source(), count: 64 * 3)
        var count = 0
        #expect(scAnalyzerRead(analyzer, &records, &bands, &sources, 64, &count) == SC_OK)
        #expect(count == (48_000 - 2048) / 1024 + 1)
        let last = records[count - 1]
        // 10 samples at 48 kHz = 208 µs; asin(208e-6 · 343 / 0.2) = 20.9° (left: negative).
        #expect(abs(last.azimuth + 20.9) < 0.5, "azimuth \(last.azimuth)")
        #expect(abs(last.itd_us - 208.3) < 5, "itd \(last.itd_us) µs")
        #expect(last.active == 1 && last.band_count == 4 && last.source_count >= 1)
        #expect(abs(sources[(count - 1) * 3].azimuth + 20.9) < 1)
        #expect(scAnalyzerRead(analyzer, &records, &bands, &sources, 64, &count) == SC_OK && count == 0)
        #expect(String(cString: scAnalyzerWarnings(analyzer)!) == "")
    }
}
