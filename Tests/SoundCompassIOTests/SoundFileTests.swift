import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport

struct SoundFileTests {
    static func analyzeFile(_ path: String, channels: (Int, Int)? = nil, swap: Bool = false) throws -> ([AnalysisRecord], SoundFileReader) {
        let reader = try SoundFileReader(path: path, channels: channels, swap: swap)
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: reader.sampleRate))
        var records: [AnalysisRecord] = []
        try analyzer.analyze(reader, blockFrames: 1000) { records.append($0) }
        return (records, reader)
    }

    @Test("every container and sample format reads back to the same bearing", arguments: SoundFileWriter.Format.allCases.filter { !$0.isHeaderless })
    func formats(format: SoundFileWriter.Format) throws {
        let directory = TemporaryDirectory()
        let signal = stillSource(azimuth: 30, sampleRate: 44100, duration: 0.6)
        let path = directory.path("source.\(format == .ogg ? "ogg" : format.rawValue.hasPrefix("flac") ? "flac" : format.rawValue.hasPrefix("aiff") ? "aiff" : "wav")")
        let writer = try SoundFileWriter(path: path, sampleRate: 44100, format: format)
        try writer.write(channels: [signal.left, signal.right])
        writer.close()
        let (records, reader) = try Self.analyzeFile(path)
        #expect(reader.sampleRate == 44100)
        #expect(reader.framesRead == signal.count)
        #expect(records.count == (signal.count - 2048) / 1024 + 1)
        let tolerance = format == .ogg ? 2.0 : 0.5  // Vorbis is lossy
        #expect(abs(median(records.map(\.azimuth)) - 30) < tolerance, "\(format.rawValue)")
    }

    @Test("--channels picks a pair of a multichannel file, --swap mirrors it")
    func multichannel() throws {
        let directory = TemporaryDirectory()
        let signal = stillSource(azimuth: -40, duration: 0.5)
        let noise = Generators.whiteNoise(count: signal.count, rms: 0.1, seed: 3).map { Float($0) }
        let path = directory.path("four.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48000, channels: 4, format: .wav24)
        try writer.write(channels: [noise, noise, signal.left, signal.right])
        writer.close()
        let (records, _) = try Self.analyzeFile(path, channels: (3, 4))
        #expect(abs(median(records.map(\.azimuth)) + 40) < 0.5)
        let (swapped, _) = try Self.analyzeFile(path, channels: (3, 4), swap: true)
        #expect(abs(median(swapped.map(\.azimuth)) - 40) < 0.5)
        let (reversed, _) = try Self.analyzeFile(path, channels: (4, 3))
        #expect(abs(median(reversed.map(\.azimuth)) - 40) < 0.5)
    }

    @Test("bad files throw an error naming the file and the problem")
    func badFiles() throws {
        let directory = TemporaryDirectory()
        let fm = FileManager.default
        let empty = directory.path("empty.wav")
        #expect(fm.createFile(atPath: empty, contents: Data()))
        let text = directory.path("notes.wav")
        try "These are not samples.\n".write(toFile: text, atomically: true, encoding: .utf8)
        let garbage = directory.path("garbage.wav")
        var bytes = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8)
        var random = SeededRandom(seed: 9)
        bytes += (0..<200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(fm.createFile(atPath: garbage, contents: Data(bytes)))
        let mono = directory.path("mono.wav")
        let monoWriter = try SoundFileWriter(path: mono, sampleRate: 48000, channels: 1)
        try monoWriter.write(channels: [[Float](repeating: 0.1, count: 4800)])
        monoWriter.close()
        let slow = directory.path("slow.wav")
        let slowWriter = try SoundFileWriter(path: slow, sampleRate: 4000, channels: 2, format: .wav16)
        try slowWriter.write(channels: [[Float](repeating: 0.1, count: 4000), [Float](repeating: 0.1, count: 4000)])
        slowWriter.close()
        let stereo = directory.path("stereo.wav")
        let stereoWriter = try SoundFileWriter(path: stereo, sampleRate: 48000, channels: 2)
        try stereoWriter.write(channels: [[Float](repeating: 0.1, count: 4800), [Float](repeating: 0.1, count: 4800)])
        stereoWriter.close()

        #expect(throws: SoundFileError.notFound(path: directory.path("missing.wav"))) {
            try SoundFileReader(path: directory.path("missing.wav"))
        }
        #expect(throws: SoundFileError.empty(path: empty)) { try SoundFileReader(path: empty) }
        #expect(throws: SoundFileError.tooFewChannels(path: mono, channels: 1)) { try SoundFileReader(path: mono) }
        #expect(throws: SoundFileError.sampleRateTooLow(path: slow, rate: 4000)) { try SoundFileReader(path: slow) }
        #expect(throws: SoundFileError.channelOutOfRange(path: stereo, channel: 5, channels: 2)) {
            try SoundFileReader(path: stereo, channels: (1, 5))
        }
        #expect(throws: SoundFileError.sameChannelTwice(path: stereo, channel: 2)) {
            try SoundFileReader(path: stereo, channels: (2, 2))
        }
        for path in [text, garbage] {
            do {
                _ = try SoundFileReader(path: path)
                Issue.record("\(path) opened")
            } catch {
                // A RIFF/WAVE header whose fmt chunk states an impossible rate is named as such.
                switch error {
                case .unrecognized(let p, let reason), .unusableHeader(let p, let reason):
                    #expect(p == path && !reason.isEmpty && !reason.contains("\n"))
                default:
                    Issue.record("\(error)")
                }
                #expect(error.description.hasPrefix(path + ": "))
            }
        }
    }

    @Test("a truncated WAV is analysed as far as its data goes, with a warning")
    func truncated() throws {
        let directory = TemporaryDirectory()
        let signal = stillSource(azimuth: 15, duration: 1)
        let path = directory.path("cut.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48000, format: .wav16)
        try writer.write(channels: [signal.left, signal.right])
        writer.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(44 + 4 * 24000).write(to: URL(fileURLWithPath: path))  // half the frames
        let (records, reader) = try Self.analyzeFile(path)
        #expect(reader.framesRead == 24000)
        #expect(records.count == (24000 - 2048) / 1024 + 1)
        #expect(reader.warnings.count == 1)
        // The header's and the file's byte counts in words, not libsndfile's log line.
        #expect(reader.warnings.first == path + ": file is truncated (the header declares 192000 bytes of audio, the file holds 96000); analysing the audio that is there")
        #expect(abs(median(records.map(\.azimuth)) - 15) < 0.5)
    }
}
