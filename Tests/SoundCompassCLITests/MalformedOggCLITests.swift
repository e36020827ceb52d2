import Foundation
import Testing
import TestSupport

/// `analyze` of a broken Ogg Vorbis file: records for what decodes, or one error line, and
/// nothing else on stderr (under scripts/sanitize, no leak report either: libvorbis's leak on a
/// stream it gives up on is suppressed as third-party in scripts/lsan.supp).
struct MalformedOggCLITests {
    @Test("a cut or damaged Ogg file is analysed as far as it decodes, or refused in one line (65)", arguments: [0.05, 0.5, -1])
    func malformedOgg(cut: Double) throws {
        let directory = TemporaryDirectory()
        let good = directory.path("good.ogg")
        #expect(try CLI.run(["synth", good, "--duration", "1", "--source", "pink@30", "-q"]).status == 0)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: good)))
        if cut > 0 {
            bytes = Array(bytes.prefix(Int(Double(bytes.count) * cut)))
        } else {
            // Damage the second page onwards (the headers stay readable): every 97th byte.
            for i in stride(from: 200, to: bytes.count, by: 97) { bytes[i] ^= 0x5A }
        }
        let bad = directory.path("bad.ogg")
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        let result = try CLI.run(["analyze", bad, "--format", "csv", "-q"])
        #expect(result.status == 0 || result.status == 65, "\(result.stderr)")
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("soundcompass: ") }, "\(result.stderr)")
        if result.status == 65 { #expect(result.stderrLines.count == 1, "\(result.stderr)") }
        let fields = result.stdout.split(whereSeparator: { $0 == "," || $0 == "\n" })
        #expect(!fields.contains { $0.lowercased() == "nan" })
    }
}
