import Foundation
import Testing
import TestSupport

/// `--hrtf FILE.sofa` and `soundcompass head` on the command line (issue 31, item 2).
@Suite("Measured heads on the command line")
struct HeadCLITests {
    static let kemar = "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"
    static let kemarAvailable = availableOrOnCI(FileManager.default.fileExists(atPath: kemar))

    @Test("--hrtf: a missing file exits 66, a file that is not SOFA 65, each one line naming the file; --hrtf with --array spaced 64")
    func badFiles() throws {
        let dir = TemporaryDirectory()
        let wav = dir.path("take.wav")
        var r = try CLI.run(["synth", wav, "--array", "binaural", "--source", "pink@30", "--duration", "1", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let missing = dir.path("missing.sofa")
        r = try CLI.run(["analyze", wav, "--hrtf", missing])
        #expect(r.status == 66 && r.stdout.isEmpty, "\(r.status) \(r.stderr)")
        #expect(r.stderr == "soundcompass: error: \(missing): HRTF file not found\n", "\(r.stderr)")
        let text = dir.path("text.sofa")
        try Data("not a head\n".utf8).write(to: URL(fileURLWithPath: text))
        r = try CLI.run(["analyze", wav, "--hrtf", text])
        #expect(r.status == 65 && r.stdout.isEmpty, "\(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix("soundcompass: error: \(text): not a usable SOFA HRTF: ") && r.stderr.filter { $0 == "\n" }.count == 1, "\(r.stderr)")
        r = try CLI.run(["analyze", wav, "--hrtf", text, "--array", "spaced"])
        #expect(r.status == 64 && r.stderr.contains("--hrtf"), "\(r.stderr)")
        r = try CLI.run(["head", missing])
        #expect(r.status == 66, "\(r.stderr)")
    }

    @Test("synth → analyze --hrtf KEMAR: a source rendered by the sphere reads on the head's side; head prints its table",
          .enabled(if: kemarAvailable))
    func kemarTable() throws {
        let r = try CLI.run(["head", Self.kemar])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n")
        #expect(rows.first == "estimate,azimuth,delay_us,share,low_delay_us,low_share,level_db,delay_spread_us")
        // Broadband and four bands, 37 directions each.
        #expect(rows.count == 1 + 5 * 37, "\(rows.count)")
        let side = try #require(rows.first { $0.hasPrefix("broadband,90.00,") })
        let delay = try #require(Double(side.split(separator: ",")[2]))
        #expect(delay < -650 && delay > -800, "KEMAR's delay at +90°: \(delay) µs")
        // The broadband delay's spread at the side: at least 0.1 sample (2.1 µs at 48 kHz), and
        // more, as it mixes bands whose delays differ there (13.8 µs at 44.1 kHz).
        let spread = try #require(Double(side.split(separator: ",")[7]))
        #expect(spread > 5 && spread < 40, "KEMAR's broadband delay spread at +90°: \(spread) µs")
    }
}
