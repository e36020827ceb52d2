import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport

/// Ogg Vorbis files broken in the ways files break: cut short, bytes damaged. libvorbis keeps
/// memory of a stream it gives up on; scripts/sanitize runs these with LeakSanitizer on and
/// suppresses that (third-party) leak only (scripts/lsan.supp).
struct MalformedOggTests {
    /// A 0.5 s Ogg Vorbis file of a source at 30°, 44.1 kHz, and its frame count.
    static func ogg(in directory: TemporaryDirectory) throws -> (bytes: [UInt8], frames: Int) {
        let signal = stillSource(azimuth: 30, sampleRate: 44100, duration: 0.5)
        let path = directory.path("good.ogg")
        let writer = try SoundFileWriter(path: path, sampleRate: 44100, format: .ogg)
        try writer.write(channels: [signal.left, signal.right])
        writer.close()
        return (Array(try Data(contentsOf: URL(fileURLWithPath: path))), signal.count)
    }

    /// Opens and reads `bytes` as a file; returns the frames read and the records' azimuths, or
    /// `nil` when the file is refused.
    static func read(_ bytes: [UInt8], in directory: TemporaryDirectory, name: String) throws -> (frames: Int, azimuths: [Double])? {
        let path = directory.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader: SoundFileReader
        do { reader = try SoundFileReader(path: path) } catch { return nil }
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: reader.sampleRate))
        var azimuths: [Double] = []
        do { try analyzer.analyze(reader, blockFrames: 1000) { azimuths.append($0.azimuth) } } catch {}
        return (reader.framesRead, azimuths)
    }

    @Test("an Ogg file cut short reads no more than it holds, or is refused", arguments: [0.02, 0.1, 0.3, 0.6, 0.9])
    func truncated(fraction: Double) throws {
        let directory = TemporaryDirectory()
        let (bytes, frames) = try Self.ogg(in: directory)
        let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
        if let (read, azimuths) = try Self.read(cut, in: directory, name: "cut.ogg") {
            #expect(read < frames, "\(read) frames from \(Int(fraction * 100)) % of the file")
            #expect(azimuths.allSatisfy { $0.isFinite && abs($0) <= 180 })
        }
    }

    @Test("an Ogg file with damaged bytes reads without a crash, finite bearings, no more frames than it had")
    func damaged() throws {
        let directory = TemporaryDirectory()
        let (bytes, frames) = try Self.ogg(in: directory)
        var random = SeededRandom(seed: 18)
        for trial in 0..<20 {
            var broken = bytes
            for _ in 0..<(1 + trial % 8) {
                broken[Int(random.next() % UInt64(broken.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            if let (read, azimuths) = try Self.read(broken, in: directory, name: "damaged\(trial).ogg") {
                // Damage in a page shortens the decoded stream; it never lengthens it by more than a page.
                #expect(read <= frames + 4096, "trial \(trial): \(read) frames of \(frames)")
                #expect(azimuths.allSatisfy { $0.isFinite && abs($0) <= 180 }, "trial \(trial)")
            }
        }
    }
}
