import Foundation
import SoundCompass
import TestSignals
import TestSupport
import Testing

/// `soundcompass live` and `soundcompass devices` as a user runs them, with ALSA's `file` plugin
/// replaying a recording as the capture device (`ALSA_CONFIG_PATH`), so no sound card is needed.
struct LiveTests {
    /// True when ALSA sees a sound card here (a card's control device exists).
    static let hasSoundCard: Bool = {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []
        return entries.contains { $0.hasPrefix("controlC") }
    }()

    /// A 6-second recording of speech at +30°, as a WAV, raw float and raw 16-bit, and an ALSA
    /// configuration defining `replay` (float) and `replay16` over them.
    final class Fixture: @unchecked Sendable {
        let directory = TemporaryDirectory()
        var wav: String { directory.path("speech30.wav") }
        var raw: String { directory.path("speech30.raw") }
        var raw16: String { directory.path("speech30-16.raw") }
        var environment: [String: String] { ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + directory.path("replay.conf")] }

        init() throws {
            for (path, format) in [(wav, "wav-float"), (raw, "raw-f32le"), (raw16, "raw-s16le")] {
                let result = try CLI.run([
                    "synth", path, "--source", "speech@30", "--duration", "6", "--file-format", format, "--truth", "none",
                ])
                #expect(result.status == 0, "\(result.stderr)")
            }
            let config = ALSACaptureSettings.replayConfiguration(name: "replay", rawFile: raw)
                + ALSACaptureSettings.replayConfiguration(name: "replay16", rawFile: raw16)
            try config.write(toFile: directory.path("replay.conf"), atomically: true, encoding: .utf8)
        }
    }

    static func activeMedian(_ jsonl: String) throws -> Double {
        let records = try CLITests.parseJSONLines(jsonl)
        let active = records.filter { $0["active"] as? Bool == true }.compactMap { $0["azimuth"] as? Double }
        try #require(!active.isEmpty, "no active records among \(records.count)")
        return median(active)
    }

    @Test("live --device replay --duration 5: records, median within 1° of analyse on the WAV, exit 0")
    func replay() throws {
        let fixture = try Fixture()
        let live = try CLI.run(
            ["live", "--device", "replay", "--format", "jsonl", "--duration", "5"], environment: fixture.environment)
        #expect(live.status == 0, "\(live.stderr)")
        let records = try CLITests.parseJSONLines(live.stdout)
        let expectedCount: Int = (5 * 48000 - 2048) / 1024 + 1
        #expect(records.count == expectedCount)
        let offline = try CLI.run(["analyze", fixture.wav, "--format", "jsonl"])
        let liveMedian = try Self.activeMedian(live.stdout), offlineMedian = try Self.activeMedian(offline.stdout)
        #expect(abs(liveMedian - offlineMedian) <= 1, "live \(liveMedian)°, analyze \(offlineMedian)°")
        #expect(abs(liveMedian - 30) <= 1)
        // The summary: stream time, frames, overruns, latency.
        let summary = try #require(live.stderrLines.last)
        #expect(summary.hasPrefix("soundcompass: duration reached: stream 5.0 s, 233 frames, 0 overruns; processing latency p50 "))
        #expect(summary.contains(" ms, p99 "))
    }

    @Test("S16_LE replay is captured as 16-bit and converted: the same bearing")
    func int16Replay() throws {
        let fixture = try Fixture()
        let live = try CLI.run(
            ["live", "--device", "replay16", "--sample-format", "S16_LE", "--format", "jsonl", "--duration", "5"],
            environment: fixture.environment)
        #expect(live.status == 0, "\(live.stderr)")
        #expect(live.stderrLines.first?.contains("replay16: S16_LE, 2 channels") == true)
        let records = try CLITests.parseJSONLines(live.stdout)
        let expectedCount: Int = (5 * 48000 - 2048) / 1024 + 1
        #expect(records.count == expectedCount, "every frame of the 5 s asked for")
        #expect(records.filter { $0["active"] as? Bool == true }.count > records.count / 2, "speech throughout")
        #expect(abs(try Self.activeMedian(live.stdout) - 30) <= 1)
    }

    @Test("the device disappears mid-stream: exit 74 naming it, the records so far written (#18 item 5)")
    func unplugged() throws {
        let fixture = try Fixture()
        let live = try CLI.run(
            ["live", "--device", "replay", "--format", "jsonl", "--inject-unplug", "60"], environment: fixture.environment)
        #expect(live.status == 74, "\(live.stderr)")
        // 59 periods of 1024 frames were read: every frame they complete was written.
        let records = try CLITests.parseJSONLines(live.stdout)
        let expected: Int = (59 * 1024 - 2048) / 1024 + 1
        #expect(records.count == expected, "\(records.count) records")
        let errors = live.stderrLines.filter { $0.hasPrefix("soundcompass: error: ") }
        #expect(errors.count == 1 && errors[0].contains("replay"), "\(live.stderr)")
    }

    @Test("an injected overrun: capture goes on, the summary counts it, stream time has no gap or repeat")
    func overrun() throws {
        let fixture = try Fixture()
        let live = try CLI.run(
            ["live", "--device", "replay", "--format", "jsonl", "--inject-overrun", "40", "--inject-overrun", "41"],
            environment: fixture.environment)
        #expect(live.status == 0, "\(live.stderr)")
        let times = try CLITests.parseJSONLines(live.stdout).compactMap { $0["time"] as? Double }
        // The replay ends with the file: every frame of 6 s, one hop apart.
        let expectedCount: Int = (6 * 48000 - 2048) / 1024 + 1
        #expect(times.count == expectedCount)
        let hop = 1024.0 / 48000
        for (i, t) in times.enumerated() {
            let expected = Double(i + 1) * hop
            #expect(abs(t - expected) < 2e-6)
        }
        #expect(live.stderrLines.last?.contains("end of stream: stream 6.0 s, 280 frames, 2 overruns;") == true)
    }

    @Test("raw PCM on standard input and from a file")
    func rawInput() throws {
        let fixture = try Fixture()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.raw16))
        let piped = try CLI.run(["live", "--input", "-", "--raw-format", "s16le", "--format", "jsonl"], stdin: bytes)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try CLITests.parseJSONLines(piped.stdout).count == 280)
        #expect(abs(try Self.activeMedian(piped.stdout) - 30) <= 1)
        let file = try CLI.run(["live", "--input", fixture.raw, "--format", "csv", "-q"])
        #expect(file.status == 0 && file.stderr.isEmpty, "\(file.stderr)")
        #expect(file.stdout.split(separator: "\n").count == 281)
    }

    @Test("| head -3 ends quietly with exit 0 after three records")
    func closedPipe() throws {
        let fixture = try Fixture()
        let result = try CLI.shell("soundcompass live --device replay --format jsonl -q | head -3", environment: fixture.environment)
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 3)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test("Ctrl-C stops cleanly with a summary and exit 0")
    func interrupt() throws {
        let fixture = try Fixture()
        let result = try CLI.run(
            ["live", "--device", "replay", "--format", "jsonl", "--real-time"], environment: fixture.environment,
            interruptAfter: 1.5, interruptCountingFrom: "soundcompass: analysis: ")
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(result.stderrLines.last)
        #expect(summary.hasPrefix("soundcompass: stopped: stream "), "\(summary)")
        // Paced to real time, the 6 s replay is stopped part-way, 1.5 s after the session
        // says it runs (about 70 records). At least half a second is analysed even on a busy
        // machine or under a sanitizer, and never the whole file.
        let records = try CLITests.parseJSONLines(result.stdout)
        let halfSecond: Int = (48000 / 2 - 2048) / 1024 + 1
        #expect(records.count >= halfSecond && records.count < 280, "\(records.count) records")
        let frames = "\(records.count) frames"
        #expect(summary.contains(frames), "the summary counts the records written")
        // Stream time in the summary covers the last record's frame (timed at its centre, half a
        // frame before its end) and not much more (less than a hop and a capture period).
        let lastFrameEnd = try #require(records.last?["time"] as? Double) + 1024.0 / 48000
        let streamText = try #require(summary.split(separator: "stream ").last?.split(separator: " s,").first)
        let stream = try #require(Double(streamText), "\(summary)")
        #expect(stream >= lastFrameEnd - 0.0005 && stream < lastFrameEnd + 0.1, "stream \(stream) s, last frame ends at \(lastFrameEnd) s")
    }

    @Test("on a terminal the compass redraws in place", .enabled(if: availableOrOnCI(PTY.available)))
    func compassOnTerminal() throws {
        try PTY.require()
        let fixture = try Fixture()
        // `script` runs the command on a pseudo-terminal.
        let command = "soundcompass live --device replay --duration 2 --real-time"
        let result = try CLI.shell("script -qec \"\(command)\" /dev/null", environment: fixture.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let screen = result.stdout
        #expect(screen.contains("┤ R"))
        #expect(screen.components(separatedBy: "\u{1B}[5F").count > 10, "redrawn many times in place")
        #expect(screen.contains("duration reached: stream 2.0 s"))
        #expect(screen.contains("\u{1B}[?7h\u{1B}[?25h"), "autowrap and the cursor are restored")
    }

    @Test("an unknown device: one readable line naming it, exit 66")
    func unknownDevice() throws {
        let result = try CLI.run(["live", "--device", "nosuchdevice"])
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        let line = try #require(result.stderrLines.first)
        if Self.hasSoundCard {
            #expect(line == "soundcompass: error: nosuchdevice: no such ALSA capture device (run 'soundcompass devices' to list capture devices)")
        } else {
            #expect(line == "soundcompass: error: nosuchdevice: no such ALSA capture device; this machine has no sound card (to replay a recording instead, see Docs/Live.md)")
        }
    }

    @Test("bad raw input and options: documented errors")
    func badInput() throws {
        let missing = try CLI.run(["live", "--input", "/nonexistent/x.raw"])
        #expect(missing.status == 66)
        #expect(missing.stderrLines == ["soundcompass: error: /nonexistent/x.raw: no such file"])
        #expect(missing.stdout.isEmpty)
        let both = try CLI.run(["live", "--input", "-", "--device", "hw:0"])
        #expect(both.status == 64)
        #expect(both.stdout.isEmpty)
        #expect(both.stderrLines.count == 1 && both.stderrLines.first?.hasPrefix("soundcompass: error: ") == true && both.stderr.contains("--input") && both.stderr.contains("--device"),
                "\(both.stderr)")
        let channels = try CLI.run(["live", "--input", "-", "--channels", "1,3", "--raw-channels", "2"], stdin: Data())
        #expect(channels.status == 65)
        #expect(channels.stdout.isEmpty)
        #expect(channels.stderrLines == ["soundcompass: error: standard input: channel 3 does not exist (there are 2 channels, 1…2); give --raw-channels if the stream has more"])
    }

    @Test("devices: exits 0; lists every card ALSA has, or says there are none")
    func devices() throws {
        let result = try CLI.run(["devices"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        if Self.hasSoundCard {
            // One `card N: NAME` line for each control device /dev/snd/controlC<N>.
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.first == "Sound cards:", "\(result.stdout)")
            let cards = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? [])
                .filter { $0.hasPrefix("controlC") }.map { String($0.dropFirst("controlC".count)) }
            for card in cards {
                #expect(lines.contains { $0.hasPrefix("  card \(card): ") && $0.count > "  card \(card): ".count },
                        "card \(card) listed: \(result.stdout)")
            }
        } else {
            #expect(result.stdout.hasPrefix("No sound cards: ALSA sees none on this machine"))
        }
    }
}
