import Foundation
import SoundCompass
import TestSupport
import Testing

/// Issue 19, the IMU items, as a user meets them: huge yaw, a long line, a byte-order mark
/// before a quoted header, and CR-only line ends in `live`.
@Suite("IMU logs on the command line: hostile input")
struct IMUHostileInputCLITests {
    /// A 1-second demo WAV and a log path in a fresh directory.
    final class Fixture: @unchecked Sendable {
        let directory = TemporaryDirectory()
        var wav: String { directory.path("one.wav") }
        var log: String { directory.path("imu.csv") }

        init() throws {
            let synth = try CLI.run(["synth", wav, "--duration", "1", "--truth", "none"])
            #expect(synth.status == 0, "\(synth.stderr)")
        }

        func write(_ text: String) throws { try text.write(toFile: log, atomically: true, encoding: .utf8) }
    }

    /// Rows every 0.02 s over 0…1 s at `yaw`, with `bad` rows after the first.
    static func rows(yaw: Double, lineEnd: String = "\n", bad: [String] = []) -> String {
        var text = "time,yaw" + lineEnd
        for i in 0...50 {
            text += "\(Double(i) * 0.02),\(yaw)" + lineEnd
            if i < bad.count { text += "\(Double(i) * 0.02 + 0.01),\(bad[i])" + lineEnd }
        }
        return text
    }

    @Test("yaw alternating ±1e308, NaN and inf: rows skipped with lines named, no record's yaw is a made-up 0 (#19 item 5)")
    func hugeYaw() throws {
        let fixture = try Fixture()
        try fixture.write(Self.rows(yaw: 50, bad: ["1e308", "-1e308", "1e308", "nan", "-inf", "-1e308"]))
        let result = try CLI.run(["analyze", fixture.wav, "--imu", fixture.log, "--format", "jsonl", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines == [
            "soundcompass: warning: \(fixture.log): line 3: yaw 1e308 is out of range (at most 1000000 degrees either way); row skipped",
            "soundcompass: warning: \(fixture.log): line 5: yaw -1e308 is out of range (at most 1000000 degrees either way); row skipped",
            "soundcompass: warning: \(fixture.log): line 7: yaw 1e308 is out of range (at most 1000000 degrees either way); row skipped",
            "soundcompass: warning: \(fixture.log): line 9: yaw is nan; row skipped",
            "soundcompass: warning: \(fixture.log): line 11: yaw is -inf; row skipped",
            "soundcompass: warning: \(fixture.log): 1 more rows skipped (6 of 57)",
        ])
        let records = try CLITests.parseJSONLines(result.stdout)
        #expect(records.count > 10)
        let yaws = records.compactMap { $0["yaw"] as? Double }
        #expect(yaws.count == records.count)
        #expect(yaws.allSatisfy { abs($0 - 50) < 0.01 }, "\(yaws)")
        #expect(records.allSatisfy { ($0["world_azimuth"] as? Double)?.isFinite ?? ($0["world_azimuth"] is NSNull) })
    }

    @Test("a byte-order mark before a quoted header is recognised (#19 item 13)")
    func byteOrderMarkQuotedHeader() throws {
        let fixture = try Fixture()
        try fixture.write("\u{FEFF}" + Self.rows(yaw: -20, lineEnd: "\r\n").replacingOccurrences(of: "time,yaw", with: "\"time\",\"yaw\""))
        let result = try CLI.run(["analyze", fixture.wav, "--imu", fixture.log, "--format", "jsonl", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let records = try CLITests.parseJSONLines(result.stdout)
        #expect(!records.isEmpty && records.allSatisfy { abs(($0["yaw"] as? Double ?? .nan) - -20) < 0.01 })
    }

    @Test("live follows a CR-only log as analyze reads it, and ends within 2 s (#19 item 13)")
    func crOnlyLive() throws {
        let fixture = try Fixture()
        try fixture.write(Self.rows(yaw: 15, lineEnd: "\r"))
        let start = Date()
        let live = try CLI.run(["live", "--input", fixture.wav, "--imu", fixture.log, "--imu-offset", "0", "--format", "jsonl", "-q"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(live.status == 0, "\(live.stderr)")
        #expect(elapsed < 2 * timeBoundScale, "\(elapsed) s")
        #expect(!live.stderr.contains("no IMU header"), "\(live.stderr)")
        let records = try CLITests.parseJSONLines(live.stdout)
        #expect(!records.isEmpty && records.allSatisfy { abs(($0["yaw"] as? Double ?? .nan) - 15) < 0.01 })
    }

    @Test("a line longer than 64 KiB: exit 65 and one line naming the file and line, in analyze and live (#19 items 7, 8)")
    func longLine() throws {
        let fixture = try Fixture()
        try fixture.write("time,yaw\n0,1\n" + String(repeating: "7", count: 8_000_000))
        let message = "soundcompass: error: \(fixture.log): line 3: longer than 65536 bytes, far more than an IMU row needs (is this a CSV IMU log?)"
        for command in [
            ["analyze", fixture.wav, "--imu", fixture.log],
            ["live", "--input", fixture.wav, "--imu", fixture.log, "--imu-offset", "0", "-q"],
            ["live", "--input", fixture.wav, "--imu", fixture.log],
        ] {
            let start = Date()
            let result = try CLI.run(command + ["--format", "jsonl"])
            let elapsed = Date().timeIntervalSince(start)
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderrLines.last.map(String.init) == message, "\(command): \(result.stderr)")
            #expect(result.stderrLines.filter { $0.contains("error") }.count == 1, "\(result.stderr)")
            #expect(elapsed < 2 * timeBoundScale, "\(command): \(elapsed) s")
        }
    }
}
