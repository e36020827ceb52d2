import Foundation
import SoundCompass
import TestSupport
import Testing

/// The live compass with two talkers: the tracked sources' id digits on the dial.
struct LiveSourcesTests {
    @Test("on a terminal, two talkers (−40°, +30°) show as an id digit at one and a marker or digit at the other",
          .enabled(if: availableOrOnCI(PTY.available)))
    func twoTalkersOnTerminal() throws {
        try PTY.require()
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
        // Both talkers at once: a drawing shows one's digit and the other's digit or marker.
        // (Speech pauses, so few drawings show both: measured 4 of the last 32.)
        func showsBoth(_ dial: [Character]) -> Bool {
            (marks(near: -40, in: dial, digitsOnly: true) && marks(near: 30, in: dial, digitsOnly: false))
                || (marks(near: 30, in: dial, digitsOnly: true) && marks(near: -40, in: dial, digitsOnly: false))
        }
        let both = dials.filter(showsBoth).count
        // Where the digits are: each digit belongs to the talker it is nearer, and each talker's
        // digits sit at its bearing: their median within 5° (two cells of 2.5° at 80 columns) of
        // the talker's azimuth in the scene (measured: 16 digits each, medians −39.3° and +29.2°).
        let talkers = [-40.0, 30.0]
        var digitAzimuths: [[Double]] = [[], []]
        var digits = 0, near = 0, cellDegrees = 0.0
        for dial in dials {
            let cells = dial.count - 7
            cellDegrees = 180 / Double(cells - 1)
            for (i, c) in dial.enumerated() where c.isNumber {
                digits += 1
                let azimuth = Double(i - 4) * cellDegrees - 90
                let talker = abs(azimuth - talkers[0]) <= abs(azimuth - talkers[1]) ? 0 : 1
                digitAzimuths[talker].append(azimuth)
                if abs(azimuth - talkers[talker]) <= 20 { near += 1 }
            }
        }
        let medians = digitAzimuths.map { $0.isEmpty ? Double.nan : median($0) }
        print("LiveSources: \(dials.count) drawings, \(both) show both; digits per talker \(digitAzimuths.map(\.count)), medians \(medians) (truth \(talkers)), \(near) of \(digits) within 20°, cell \(cellDegrees)°")
        #expect(both > 0, "no drawing shows both talkers among \(dials.count)")
        for (talker, truth) in talkers.enumerated() {
            let azimuths = digitAzimuths[talker]
            try #require(azimuths.count >= 5, "\(azimuths.count) digits near the talker at \(truth)°")
            #expect(abs(median(azimuths) - truth) <= 5, "the talker at \(truth)° drawn at a median \(median(azimuths))°")
        }
        // Digits where a talker is: within 20° (a new source's bearing converges over its first
        // half second, from up to about 16° off; measured: 36 of 36 digits within 16°).
        #expect(Double(near) >= 0.9 * Double(digits), "\(near) of \(digits) digits within 20° of a talker")
    }
}
