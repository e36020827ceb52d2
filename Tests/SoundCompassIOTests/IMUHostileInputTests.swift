import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import SoundCompassEngine
import SoundCompassIO
import TestSupport

/// Issue 19, the IMU items: huge and non-finite yaw, long lines, a byte-order mark before a
/// quoted header, CR-only line ends, and parsing speed.
@Suite("IMU logs: hostile input")
struct IMUHostileInputTests {
    @Test("yaw of ±1e308, NaN or inf is skipped with the line named; unwrapping stays finite (#19 item 5)")
    func hugeYaw() throws {
        var text = "time,yaw\n0,50\n"
        for (i, yaw) in ["1e308", "-1e308", "nan", "inf", "1e308", "-1e308"].enumerated() {
            text += "\(0.01 * Double(2 * i + 1)),\(yaw)\n\(0.01 * Double(2 * i + 2)),50\n"
        }
        let log = try IMULog(text: text, path: "imu.csv", format: IMUFormat())
        #expect(log.usableRows == 7)
        #expect(log.timeline.samples.allSatisfy { $0.yaw == 50 })
        #expect(log.warnings == [
            "imu.csv: line 3: yaw 1e308 is out of range (at most 1000000 degrees either way); row skipped",
            "imu.csv: line 5: yaw -1e308 is out of range (at most 1000000 degrees either way); row skipped",
            "imu.csv: line 7: yaw is nan; row skipped",
            "imu.csv: line 9: yaw is inf; row skipped",
            "imu.csv: line 11: yaw 1e308 is out of range (at most 1000000 degrees either way); row skipped",
            "imu.csv: 1 more rows skipped (6 of 13)",
        ])
        // Radians are checked in degrees; a time beyond 1e10 s is skipped too.
        let rad = try IMULog(text: "t,yaw\n0,1\n1,20000\n2,1e300\n1e11,1\n", path: "imu.csv", format: IMUFormat(yawUnit: .rad))
        #expect(rad.skipped.map(\.description) == [
            "line 3: yaw 20000 is out of range (at most 1000000 degrees either way); row skipped",
            "line 4: yaw 1e300 is out of range (at most 1000000 degrees either way); row skipped",
            "line 5: time 1e11 is out of range (at most 1e10 s either way); row skipped",
        ])
        // Unix time in nanoseconds is within range.
        #expect(try IMULog(text: "t,yaw\n1763900000000000000,1\n", path: "imu.csv", format: IMUFormat(timeUnit: .ns)).usableRows == 1)
    }

    @Test("a timeline given ±1e308 and ±max directly stays finite and unwraps by at most 180° a step")
    func timelineCannotOverflow() {
        let timeline = YawTimeline()
        let yaws = [1e308, -1e308, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 170, -170]
        for (i, yaw) in yaws.enumerated() { #expect(timeline.append(time: Double(i) * 0.1, yaw: yaw) == nil) }
        #expect(timeline.samples.allSatisfy { $0.yaw.isFinite })
        for i in 0...50 {
            let yaw = timeline.yaw(at: Double(i) * 0.01)
            #expect(yaw?.isFinite == true, "at \(Double(i) * 0.01) s: \(String(describing: yaw))")
        }
        // The ordinary case is unchanged: 170 → −170 is +20°.
        let plain = YawTimeline()
        plain.append(time: 0, yaw: 170); plain.append(time: 1, yaw: -170); plain.append(time: 2, yaw: 540)
        #expect(plain.samples.map(\.yaw) == [170, 190, 180])
    }

    @Test("record writers never print a non-finite number as 0: null in JSON, an empty cell in CSV, a dash in text")
    func nonFiniteOutput() throws {
        var record = RecordWriterTests.sample
        record.azimuth = .nan
        record.itdMicroseconds = .infinity
        record.yaw = .nan
        record.bands[0].levelDBFS = -.infinity
        let json = try RecordWriterTests.written(.jsonl, [record], orientation: true)
        #expect(json.contains("\"azimuth\":null,"))
        #expect(json.contains("\"itd_us\":null,"))
        #expect(json.contains("\"yaw\":null,"))
        #expect(json.contains("\"level_dbfs\":null,\"loudest\""))
        #expect(!json.contains(":nan") && !json.contains(":inf") && !json.contains(":-inf"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["azimuth"] is NSNull)
        let csv = try RecordWriterTests.written(.csv, [record], bands: ["speech \"mid\""], orientation: true)
        let lines = csv.split(separator: "\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        let cells = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(header.count == cells.count)
        for name in ["azimuth", "itd_us", "yaw"] {
            let index = try #require(header.firstIndex(of: Substring(name)))
            #expect(cells[index] == "", "\(name): \(cells[index])")
        }
        #expect(cells[header.firstIndex(of: "speech \"mid\"_level_dbfs")!] == "")
        record.active = true
        record.confidence = 0.9
        let text = try RecordWriterTests.written(.text, [record], orientation: true, columns: 160)
        #expect(text.contains("       -°"), "\(text)")
        #expect(!text.contains("nan") && !text.contains("inf"))
    }

    @Test("a byte-order mark before a quoted header; CR, LF and CR LF line ends, split anywhere (#19 item 13)")
    func byteOrderMarkAndLineEnds() throws {
        let quoted = try IMULog(text: "\u{FEFF}\"time\",\"yaw\"\r\n0,10\r\n\"0.1\",\" 20 \"\r\n", path: "imu.csv", format: IMUFormat())
        #expect(quoted.timeline.samples.map(\.yaw) == [10, 20])
        let cr = try IMULog(text: "time,yaw\r0,10\r\r0.1,20\r", path: "imu.csv", format: IMUFormat())
        #expect(cr.timeline.samples.map(\.yaw) == [10, 20] && cr.lines == 2...4)
        // A quoted cell spanning lines counts its lines; "" is a quote.
        let spanning = try IMULog(text: "time,yaw,note\n0,10,\"a\r\nb\"\n0.1,x,\"\"\"\"\n0.2,30,\n", path: "imu.csv", format: IMUFormat())
        #expect(spanning.skipped.map(\.line) == [4] && spanning.lines == 2...5)

        // Followed, with every byte arriving on its own: the mark, CR LF pairs and CR alone.
        let directory = TemporaryDirectory()
        let path = directory.path("growing.csv")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let follower = try IMUFollower(path: path, format: IMUFormat(), offset: 0)
        for byte in Array("\u{FEFF}\"time\",\"yaw\"\r\n0,10\r0.1,20\r\n0.2,30\r".utf8) {
            handle.write(Data([byte]))
            try follower.poll(now: 0)
        }
        try handle.close()
        #expect(follower.timeline.samples.map(\.yaw) == [10, 20, 30])
        #expect(follower.newWarnings().isEmpty && follower.finalWarnings().isEmpty)
    }

    @Test("a line longer than 64 KiB is refused with its line named, whole or followed (#19 items 7 and 8)")
    func longLine() throws {
        let long = "time,yaw\n0,1\n0.1," + String(repeating: "1", count: 70_000) + "\n0.2,1\n"
        let message = "imu.csv: line 3: longer than 65536 bytes, far more than an IMU row needs (is this a CSV IMU log?)"
        #expect(throws: IMUError.lineTooLong(path: "imu.csv", line: 3, limit: 65_536)) {
            try IMULog(text: long, path: "imu.csv", format: IMUFormat())
        }
        #expect(IMUError.lineTooLong(path: "imu.csv", line: 3, limit: 65_536).description == message)
        // Exactly the limit is accepted (line end not counted).
        let limit = "time,yaw\n0,1" + String(repeating: " ", count: 65_536 - 3) + "\r\n"
        #expect(try IMULog(text: limit, path: "imu.csv", format: IMUFormat()).usableRows == 1)
        // An unclosed quote cannot hide a long row either.
        #expect(throws: IMUError.lineTooLong(path: "imu.csv", line: 2, limit: 65_536)) {
            try IMULog(text: "time,yaw\n\"" + String(repeating: "1\n", count: 40_000), path: "imu.csv", format: IMUFormat())
        }

        // Followed: a megabyte of zeros without a line break stops at the limit, not at the
        // end of memory.
        let directory = TemporaryDirectory()
        let path = directory.path("zeros.csv")
        _ = FileManager.default.createFile(atPath: path, contents: Data(count: 1 << 20))
        let follower = try IMUFollower(path: path, format: IMUFormat(), offset: 0)
        #expect(throws: IMUError.lineTooLong(path: path, line: 1, limit: 65_536)) { try follower.poll(now: 0) }
    }

    @Test("parsing is linear in the rows: 200,000 rows cost about ten times 20,000 (the speed itself: Benchmarks/imu-parse.py)")
    func linearParsing() throws {
        func log(rows: Int) -> String {
            var text = "time,yaw\n"
            text.reserveCapacity(rows * 20)
            for i in 0..<rows { text += "\(Double(i) * 0.0001),\(i % 360 - 180).5\n" }
            return text
        }
        /// CPU seconds of this thread (steadier than wall time on a shared machine), best of three.
        func cpuSeconds(_ text: String) throws -> Double {
            var best = Double.infinity
            for _ in 0..<3 {
                var a = timespec(), b = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a)
                let parsed = try IMULog(text: text, path: "imu.csv", format: IMUFormat())
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b)
                #expect(parsed.usableRows == text.utf8.count(where: { $0 == 10 }) - 1)
                best = min(best, Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) * 1e-9)
            }
            return best
        }
        let small = try cpuSeconds(log(rows: 20_000)), large = try cpuSeconds(log(rows: 200_000))
        // Linear: 10×. The quadratic trimming this replaced gave far more; 20× leaves room for
        // caches and a noisy machine.
        #expect(large / small < 20, "20,000 rows \(small) s, 200,000 rows \(large) s")
    }
}
