import Foundation
import SoundCompass
import TestSupport
import Testing

/// The live compass with two talkers: the tracked sources' id digits on the dial.
struct LiveSourcesTests {
    @Test("on a terminal, two talkers (−40°, +30°) show as an id digit at one and a marker or digit at the other",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func twoTalkersOnTerminal() throws {
        let directory = TemporaryDirectory()
        let raw = directory.path("two.raw")
        let synth = try CLI.run([
            "synth", raw, "--source", "speech@-40", "--source", "speech@30", "--duration", "4", "--snr", "20", "--truth", "none",
        ])
        #expect(synth.status == 0, "\(synth.stderr)")
        try ALSACaptureSettings.replayConfiguration(name: "replay", rawFile: raw)
            .write(toFile: directory.path("replay.conf"), atomically: true, encoding: .utf8)
        let environment = ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + directory.path("replay.conf")]
        let result = try CLI.shell("script -qec \"soundcompass live --device replay --duration 4 --real-time\" /dev/null", environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        // The dial of every drawing: " L ├" + cells + "┤ R".
        let dials = result.stdout.components(separatedBy: "\u{1B}[5F").compactMap { drawing -> [Character]? in
            guard let line = drawing.split(whereSeparator: \.isNewline).first(where: { $0.contains("├") && $0.contains("┤ R") }) else { return nil }
            let text = line.replacingOccurrences(of: "\u{1B}[2K", with: "").replacingOccurrences(of: "\u{1B}[?25l\u{1B}[?7l", with: "")
            return Array(text.drop { $0 != " " })
        }
        #expect(dials.count > 10, "redrawn many times")
        func marks(near azimuth: Double, in dial: [Character], digitsOnly: Bool) -> Bool {
            let cells = dial.count - 7
            let centre = 4 + Int(((azimuth + 90) / 180 * Double(cells - 1)).rounded())
            return (centre - 3...centre + 3).contains { i in
                dial.indices.contains(i) && (dial[i].isNumber || (!digitsOnly && (dial[i] == "●" || dial[i] == "○")))
            }
        }
        let both = dials.filter { dial in
            (marks(near: -40, in: dial, digitsOnly: true) && marks(near: 30, in: dial, digitsOnly: false))
                || (marks(near: 30, in: dial, digitsOnly: true) && marks(near: -40, in: dial, digitsOnly: false))
        }
        #expect(!both.isEmpty, "no drawing shows both talkers among \(dials.count)")
        // Digits where a talker is: within 20° (a new source's bearing converges over its first
        // half second, from up to about 16° off; measured: 36 of 36 digits within 16°).
        var digits = 0, near = 0
        for dial in dials {
            let cells = dial.count - 7
            for (i, c) in dial.enumerated() where c.isNumber {
                digits += 1
                let azimuth = Double(i - 4) / Double(cells - 1) * 180 - 90
                if min(abs(azimuth + 40), abs(azimuth - 30)) <= 20 { near += 1 }
            }
        }
        #expect(digits > 0 && Double(near) >= 0.9 * Double(digits), "\(near) of \(digits) digits within 20° of a talker")
    }
}
