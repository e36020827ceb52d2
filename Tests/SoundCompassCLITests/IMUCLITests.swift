import Foundation
import Synchronization
import SoundCompass
import TestSignals
import TestSupport
import Testing

/// `--imu` on analyze and live, `synth --turn`, and bad IMU logs, as a user runs them.
@Suite("IMU on the command line")
struct IMUCLITests {
    /// A 6-second turning-listener recording of speech behind-left (−135°), its truth and IMU log,
    /// written by `synth --turn`, with raw float for a live replay.
    final class Fixture: @unchecked Sendable {
        let directory = TemporaryDirectory()
        var wav: String { directory.path("turn.wav") }
        var raw: String { directory.path("turn.raw") }
        var imu: String { directory.path("turn.imu.csv") }
        var truth: String { directory.path("turn.truth.csv") }
        var environment: [String: String] { ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + directory.path("replay.conf")] }

        init() throws {
            let common = ["--source", "speech@-135", "--turn", "30:4@1", "--duration", "6", "--snr", "20"]
            let synth = try CLI.run(["synth", wav] + common)
            #expect(synth.status == 0, "\(synth.stderr)")
            #expect(synth.stderr.contains(imu) && synth.stderr.contains(truth))
            let rawSynth = try CLI.run(["synth", raw, "--file-format", "raw-f32le", "--truth", "none", "--imu", directory.path("same.imu.csv")] + common)
            #expect(rawSynth.status == 0, "\(rawSynth.stderr)")
            try ALSACaptureSettings.replayConfiguration(name: "replay", rawFile: raw)
                .write(toFile: directory.path("replay.conf"), atomically: true, encoding: .utf8)
        }
    }

    /// Fraction of records after the first resolved one whose hemisphere matches the truth
    /// file (frames within 3° of ±90° count either way), and the median azimuth error there.
    static func score(_ records: [[String: Any]], truthCSV: String) -> (resolvedAt: Double?, right: Double, medianError: Double) {
        let rows = truthCSV.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        let truth = rows.map { (Double($0[0])!, Double($0[1])!) }
        func truthAzimuth(_ t: Double) -> Double { truth[min(truth.count - 1, max(0, Int((t / 0.01).rounded())))].1 }
        guard let first = records.firstIndex(where: { $0["hemisphere"] as? String != "unknown" }) else { return (nil, 0, .nan) }
        var right = 0, errors: [Double] = []
        for record in records[first...] {
            let t = record["time"] as! Double, a = truthAzimuth(t)
            let hemisphere = record["hemisphere"] as! String
            if abs(abs(a) - 90) <= 3 || (hemisphere == "front") == (abs(a) < 90) && hemisphere != "unknown" { right += 1 }
            if record["active"] as? Bool == true {
                errors.append(abs(YawTimeline.wrap(record["azimuth"] as! Double - a)))
            }
        }
        return (records[first]["time"] as? Double, Double(right) / Double(records.count - first), median(errors))
    }

    @Test("synth --turn writes the IMU log and truth; analyze --imu resolves the source behind")
    func analyzeWithIMU() throws {
        let fixture = try Fixture()
        let imuText = try String(contentsOfFile: fixture.imu, encoding: .utf8)
        #expect(imuText.hasPrefix("time,yaw,"))
        #expect(imuText.split(separator: "\n").count == 602)  // header + 100 rows/s from 0 to 6 s, both ends
        let result = try CLI.run(["analyze", fixture.wav, "--imu", fixture.imu, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try CLITests.parseJSONLines(result.stdout)
        #expect(records.allSatisfy { $0.keys.contains("yaw") && $0.keys.contains("world_azimuth") })
        let score = Self.score(records, truthCSV: try String(contentsOfFile: fixture.truth, encoding: .utf8))
        let resolvedAt = try #require(score.resolvedAt)
        #expect(resolvedAt <= 3, "resolved at \(resolvedAt) s; the head starts turning at 1 s")
        #expect(score.right == 1, "\(score)")
        #expect(score.medianError <= 3, "\(score)")
        let worlds = records.compactMap { $0["world_azimuth"] as? Double }
        #expect(abs(median(worlds) - -135) <= 3)

        // CSV gains the two columns after hemisphere, empty where unknown.
        let csv = try CLI.run(["analyze", fixture.wav, "--imu", fixture.imu, "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].contains(",hemisphere,yaw,world_azimuth,"))
        #expect(lines[1].contains(",unknown,0.00,,"))
        // Without --imu the records are as before.
        let plain = try CLI.run(["analyze", fixture.wav, "--format", "jsonl"])
        #expect(!plain.stdout.contains("\"yaw\""))
    }

    @Test("quaternion logs and a counter-clockwise logger read with --imu-yaw-sign -1 agree with the yaw log")
    func formats() throws {
        let fixture = try Fixture()
        let baseline = try CLI.run(["analyze", fixture.wav, "--imu", fixture.imu, "--format", "jsonl"]).stdout
        for (name, synthArgs, readArgs) in [
            ("q.csv", ["--imu-format", "quaternion"], [String]()),
            ("ccw.csv", ["--imu-yaw-sign", "-1"], ["--imu-yaw-sign", "-1"]),
        ] {
            let path = fixture.directory.path(name)
            let synth = try CLI.run(
                ["synth", fixture.directory.path("x.wav"), "--source", "speech@-135", "--turn", "30:4@1", "--duration", "6",
                 "--snr", "20", "--truth", "none", "--imu", path] + synthArgs)
            #expect(synth.status == 0, "\(synth.stderr)")
            let result = try CLI.run(["analyze", fixture.wav, "--imu", path, "--format", "jsonl"] + readArgs)
            #expect(result.status == 0, "\(result.stderr)")
            let a = try CLITests.parseJSONLines(baseline), b = try CLITests.parseJSONLines(result.stdout)
            #expect(a.count == b.count)
            let differing = zip(a, b).filter { ($0["hemisphere"] as! String) != ($1["hemisphere"] as! String) }.count
            #expect(differing == 0, "\(name): \(differing) frames differ")
        }
    }

    @Test("live --imu on a replay matches analyze --imu; a log still being written is followed")
    func live() throws {
        let fixture = try Fixture()
        let offline = try CLITests.parseJSONLines(
            try CLI.run(["analyze", fixture.wav, "--imu", fixture.imu, "--format", "jsonl"]).stdout)
        let replay = try CLI.run(
            ["live", "--device", "replay", "--imu", fixture.imu, "--imu-offset", "0", "--format", "jsonl"],
            environment: fixture.environment)
        #expect(replay.status == 0, "\(replay.stderr)")
        let live = try CLITests.parseJSONLines(replay.stdout)
        #expect(live.count == offline.count)
        #expect(zip(live, offline).allSatisfy { ($0["hemisphere"] as! String) == ($1["hemisphere"] as! String) })
        #expect(zip(live, offline).allSatisfy { abs(($0["azimuth"] as! Double) - ($1["azimuth"] as! Double)) < 0.01 })

        // A logger writing as it measures: rows appear as time passes, in two pieces each, a
        // little ahead of the audio (a logger's clock and the sound card's are never exactly
        // together). Only the first row is there when the session starts, so its newest row at
        // start, "now", is time 0; the writer's clock starts when the session says it follows
        // the log, so a slow start (a loaded machine, a sanitizer) does not shift the clocks.
        let growing = fixture.directory.path("growing.csv")
        let rows = try String(contentsOfFile: fixture.imu, encoding: .utf8).split(separator: "\n").map(String.init)
        try (rows[0] + "\n" + rows[1] + "\n").write(toFile: growing, atomically: true, encoding: .utf8)
        let following = DispatchSemaphore(value: 0)
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: growing) else { return }
            handle.seekToEndOfFile()
            guard following.wait(timeout: .now() + 60) == .success else { return }
            let start = Date(), lead = 0.3
            for row in rows.dropFirst(2) {
                let t = Double(row.split(separator: ",")[0])!
                Thread.sleep(forTimeInterval: max(0, t - lead - Date().timeIntervalSince(start)))
                let half = row.index(row.startIndex, offsetBy: row.count / 2)
                handle.write(Data(row[..<half].utf8))
                handle.write(Data((row[half...] + "\n").utf8))
            }
            try? handle.close()
        }
        writer.start()
        let signalled = Mutex(false)
        let followed = try CLI.run(
            ["live", "--device", "replay", "--imu", growing, "--real-time", "--format", "jsonl"],
            environment: fixture.environment,
            onStderr: { text in
                guard text.contains("for yaw"), signalled.withLock({ let was = $0; $0 = true; return !was }) else { return }
                following.signal()
            })
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stderr.contains("following \(growing) for yaw (its newest row at start is 'now')"), "\(followed.stderr)")
        let records = try CLITests.parseJSONLines(followed.stdout)
        #expect(records.count == offline.count)
        #expect(records.allSatisfy { $0["yaw"] is Double })
        let score = Self.score(records, truthCSV: try String(contentsOfFile: fixture.truth, encoding: .utf8))
        #expect(score.right >= 0.95, "\(score)")
        #expect(score.medianError <= 5, "\(score)")
    }

    struct BadLog: Sendable, CustomTestStringConvertible {
        var name: String
        var contents: String?
        var extra: [String] = []
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let badLogs: [BadLog] = [
        BadLog(name: "missing", contents: nil, status: 66, message: ": IMU log not found"),
        BadLog(name: "empty", contents: "", status: 65, message: ": IMU log is empty (expected a header row, then one row per reading)"),
        BadLog(name: "header only", contents: "time,yaw\n", status: 65, message: ": IMU log has a header but no rows (line 2 on is empty)"),
        BadLog(name: "no time column", contents: "clock,yaw\n0,1\n", status: 65,
               message: ": line 1: no time column (expected one of time, t, timestamp, seconds; found clock, yaw)"),
        BadLog(name: "no yaw column", contents: "time,roll\n0,1\n", status: 65,
               message: ": line 1: no orientation columns (expected yaw or heading, or qw, qx, qy, qz; found time, roll)"),
        BadLog(name: "nothing numeric", contents: "time,yaw\nnoon,north\nlater,east\n", status: 65,
               message: ": no usable IMU rows: line 2: time \"noon\" is not a number (and 1 more row with a problem)"),
        BadLog(name: "time only going backwards", contents: "time,yaw\n5,1\n4,1\n3,1\n", status: 65,
               message: ": line 2 is at 5 s on the audio clock (--imu-offset 0), which misses the audio (0…1 s)"),
        BadLog(name: "no overlap", contents: "time,yaw\n100,1\n101,2\n", status: 65,
               message: ": lines 2–3 cover 100…101 s on the audio clock (--imu-offset 0), which misses the audio (0…1 s); set --imu-offset to the audio time of the IMU's time 0"),
        BadLog(name: "binary junk", contents: "\u{0}\u{1}\u{2}\u{FFFD}\n\u{7}", status: 65, message: ": line 1: no time column"),
    ]

    @Test("a bad IMU log: one line naming the file (and line), a documented exit code", arguments: badLogs)
    func badLog(_ bad: BadLog) throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("one.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "--truth", "none"]).status == 0)
        let log = directory.path("imu.csv")
        if let contents = bad.contents { try contents.write(toFile: log, atomically: true, encoding: .utf8) }
        let result = try CLI.run(["analyze", wav, "--imu", log] + bad.extra)
        #expect(result.status == bad.status, "\(bad.name): \(result.stderr)")
        let lines = result.stderrLines
        #expect(lines.count == (bad.name == "time only going backwards" ? 3 : 1), "\(bad.name): \(result.stderr)")
        #expect(lines.last?.hasPrefix("soundcompass: error: \(log)") == true, "\(result.stderr)")
        #expect(lines.last?.contains(bad.message) == true, "\(bad.name): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("skipped rows are warned about by line; IMU options without --imu are usage errors")
    func warningsAndUsage() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("one.wav")
        #expect(try CLI.run(["synth", wav, "--duration", "1", "--truth", "none"]).status == 0)
        let log = directory.path("imu.csv")
        try "time,yaw\n0,0\n0.5,x\n1,0\n".write(toFile: log, atomically: true, encoding: .utf8)
        let result = try CLI.run(["analyze", wav, "--imu", log, "-q", "--format", "jsonl"])
        #expect(result.status == 0)
        #expect(result.stderr == "soundcompass: warning: \(log): line 3: yaw \"x\" is not a number; row skipped\n")
        try "time,yaw\n0,0\n0.5,1\n0.2,1\n1,0\n".write(toFile: log, atomically: true, encoding: .utf8)
        let backwards = try CLI.run(["analyze", wav, "--imu", log, "-q", "--format", "jsonl"])
        #expect(backwards.status == 0)
        #expect(backwards.stderr
            == "soundcompass: warning: \(log): line 4: time 0.2 goes back from the previous row's 0.5; row skipped\n")
        #expect(try CLI.run(["analyze", wav, "--imu-offset", "2"]).status == 64)
        #expect(try CLI.run(["analyze", wav, "--imu", log, "--imu-yaw-sign", "2"]).status == 64)
        #expect(try CLI.run(["analyze", wav, "--imu", log, "--imu-offset", "-2"]).status == 65)  // 2…3 s misses 0…1 s
        #expect(try CLI.run(["analyze", wav, "--imu", log, "-o", log]).status == 64)
        #expect(try CLI.run(["live", "--imu", directory.path("none.csv"), "--device", "null"]).status == 66)
    }
}
