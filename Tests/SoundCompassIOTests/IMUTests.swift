import Foundation
import Testing
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport

@Suite("IMU logs")
struct IMUTests {
    static func read(_ text: String, _ format: IMUFormat = IMUFormat()) throws(IMUError) -> IMULog {
        try IMULog(text: text, path: "imu.csv", format: format)
    }

    static func error(_ text: String, _ format: IMUFormat = IMUFormat()) -> IMUError? {
        do { _ = try read(text, format); return nil } catch { return error }
    }

    @Test("Columns are found by name, in any order and any case; other columns are ignored")
    func columns() throws {
        let text = "\u{FEFF}Temperature, Heading ,T,pitch\r\n20,10,0,1\r\n20,\"20\",1,1\r\n\r\n20,30,2,1\r\n"
        let log = try Self.read(text)
        #expect(log.timeline.samples.map(\.yaw) == [10, 20, 30])
        #expect(log.timeline.samples.map(\.time) == [0, 1, 2])
        #expect(log.lines == 2...5)  // the blank line 4 is not a row
        #expect(try Self.read("seconds,yaw\n0,1\n").usableRows == 1)
        #expect(try Self.read("timestamp,qw,qx,qy,qz\n0,1,0,0,0\n").usableRows == 1)
        #expect(try Self.read("time,yaw,qw,qx,qy,qz\n0,5,1,0,0,0\n").timeline.samples[0].yaw == 5)  // yaw wins
    }

    @Test("Units, sign and offset put IMU rows on the audio clock in degrees clockwise")
    func units() throws {
        let rad = try Self.read("t,yaw\n1000,0.5\n2000,-0.5\n", IMUFormat(timeUnit: .ms, yawUnit: .rad, yawSign: -1, offsetSeconds: 2))
        #expect(rad.timeline.samples[0].time == 3)
        #expect(rad.timeline.samples[1].time == 4)
        #expect(abs(rad.timeline.samples[0].yaw - -0.5 * 180 / Double.pi) < 1e-9)
        #expect(try Self.read("t,yaw\n1500000,1\n", IMUFormat(timeUnit: .us)).timeline.samples[0].time == 1.5)
        #expect(try Self.read("t,yaw\n2500000000,1\n", IMUFormat(timeUnit: .ns)).timeline.samples[0].time == 2.5)
    }

    @Test("Yaw is unwrapped across ±180° and interpolated; gaps over 0.5 s give no yaw")
    func unwrapAndInterpolate() throws {
        let log = try Self.read("time,yaw\n0,170\n0.1,-170\n0.2,-150\n1.0,-140\n")
        let t = log.timeline
        #expect(t.samples.map(\.yaw) == [170, 190, 210, 220])
        #expect(abs(t.yaw(at: 0.05)! - 180) < 1e-9)
        #expect(abs(t.yaw(at: 0.15)! - 200) < 1e-9)
        #expect(t.yaw(at: 0.6) == nil)  // 0.2 … 1.0 is a 0.8 s gap
        #expect(t.yaw(at: -0.4) == 170 && t.yaw(at: -0.6) == nil)
        #expect(t.yaw(at: 1.4) == 220 && t.yaw(at: 1.6) == nil)
        #expect(abs(t.yaw(at: 0.05)! - 180) < 1e-9)  // asking backwards works too
        #expect(YawTimeline.wrap(190) == -170 && YawTimeline.wrap(-180) == 180 && YawTimeline.wrap(540) == 180)
    }

    @Test("A quaternion with pitch and roll gives the yaw it was composed from")
    func quaternionYaw() throws {
        let listener = RotatingListener(
            scene: Scene(duration: 4, sources: []), yaw: .keyframes(AzimuthPath([(0, -170), (4, 170)])))
        let csv = listener.imuCSV(.init(rate: 20, orientation: .quaternion))
        let fromQuaternion = try Self.read(csv).timeline
        let fromYaw = try Self.read(listener.imuCSV(.init(rate: 20))).timeline
        #expect(fromQuaternion.count == 81)
        for (q, y) in zip(fromQuaternion.samples, fromYaw.samples) { #expect(abs(q.yaw - y.yaw) < 1e-4) }
        // The keyframes go the long way round (−170 → +170 through 0); unwrapping follows them.
        #expect(abs(fromQuaternion.samples.last!.yaw - 170) < 1e-4)
    }

    @Test("Unusable rows are skipped with a line number; the rest is used")
    func skippedRows() throws {
        let log = try Self.read("time,yaw\n0,1\n0.1,abc\n0.2,3\n0.15,4\n0.2,5\n0.3,\n0.4,6,extra\n")
        #expect(log.usableRows == 3)
        #expect(log.skipped.map(\.line) == [3, 5, 6, 7])
        #expect(log.warnings == [
            "imu.csv: line 3: yaw \"abc\" is not a number; row skipped",
            "imu.csv: line 5: time 0.15 goes back from the previous row's 0.2; row skipped",
            "imu.csv: line 6: time 0.2 repeats the previous row's; row skipped",
            "imu.csv: line 7: yaw is empty; row skipped",
        ])
    }

    @Test("Bad IMU files get one line naming the file, the line and the problem")
    func badFiles() {
        #expect(Self.error("")?.description == "imu.csv: IMU log is empty (expected a header row, then one row per reading)")
        #expect(Self.error("\n \n")?.description == "imu.csv: IMU log is empty (expected a header row, then one row per reading)")
        #expect(Self.error("time,yaw\n")?.description == "imu.csv: IMU log has a header but no rows (line 2 on is empty)")
        #expect(Self.error("clock,yaw\n0,1\n")?.description
            == "imu.csv: line 1: no time column (expected one of time, t, timestamp, seconds; found clock, yaw)")
        #expect(Self.error("time,pitch,qw\n0,1,1\n")?.description
            == "imu.csv: line 1: no orientation columns (expected yaw or heading, or qw, qx, qy, qz; found time, pitch, qw)")
        #expect(Self.error("time,yaw\nx,1\n0,y\n")?.description
            == "imu.csv: no usable IMU rows: line 2: time \"x\" is not a number (and 1 more row with a problem)")
        #expect(Self.error("time,qw,qx,qy,qz\n0,0,0,0,0\n")?.description
            == "imu.csv: no usable IMU rows: line 2: quaternion (0.0, 0.0, 0.0, 0.0) is not a rotation (length 0, not 1)")
        let late = try! Self.read("time,yaw\n100,1\n160,2\n")
        #expect(throws: IMUError.self) { try late.checkOverlap(audioDuration: 8, offset: 0) }
        do { try late.checkOverlap(audioDuration: 8, offset: 0) } catch {
            #expect(error.description == "imu.csv: lines 2–3 cover 100…160 s on the audio clock (offset 0 s), which misses the audio (0…8 s); the offset should be the audio time of the IMU's time 0")
        }
        let shifted = try! Self.read("time,yaw\n100,1\n160,2\n", IMUFormat(offsetSeconds: -99))
        #expect(throws: Never.self) { try shifted.checkOverlap(audioDuration: 8, offset: -99) }
        #expect(throws: IMUError.notFound(path: "/nonexistent/imu.csv")) {
            try IMULog(path: "/nonexistent/imu.csv", format: IMUFormat())
        }
    }

    @Test("A log that is still being written is followed, partial lines and all")
    func follower() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("growing.csv")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        func append(_ text: String) { handle.write(Data(text.utf8)) }
        let follower = try IMUFollower(path: path, format: IMUFormat(), offset: nil)
        try follower.poll(now: 0)
        #expect(follower.timeline.count == 0 && follower.offset == nil)
        append("time,yaw\n100.0,10\n100.1,2")  // the second row is not complete yet
        try follower.poll(now: 0.5)
        #expect(follower.offset == -99.5)  // the newest row is "now"
        #expect(follower.timeline.samples == [YawTimeline.Sample(time: 0.5, yaw: 10)])
        append("0\n100.2,bad\n100.3,40\n")
        try follower.poll(now: 0.8)
        #expect(follower.timeline.samples.map(\.yaw) == [10, 20, 40])
        #expect(abs(follower.timeline.yaw(at: 0.65)! - 25) < 1e-9)
        #expect(follower.newWarnings() == ["\(path): line 4: yaw \"bad\" is not a number; row skipped"])
        #expect(follower.newWarnings().isEmpty)
        try handle.close()

        let badHeader = directory.path("bad.csv")
        try "when,yaw\n".write(toFile: badHeader, atomically: true, encoding: .utf8)
        let bad = try IMUFollower(path: badHeader, format: IMUFormat(), offset: 0)
        #expect(throws: IMUError.self) { try bad.poll(now: 0) }
    }

    @Test("A followed log that is truncated or rotated is read again from its start, once reported (#18 item 5)")
    func followerTruncatedAndRotated() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("imu.csv")
        try "time,yaw\n100.0,10\n100.1,20\n".write(toFile: path, atomically: false, encoding: .utf8)
        let follower = try IMUFollower(path: path, format: IMUFormat(), offset: nil)
        try follower.poll(now: 1)
        #expect(follower.timeline.samples.map(\.yaw) == [10, 20])
        #expect(follower.offset.map { abs($0 - (1 - 100.1)) < 1e-9 } == true)

        // Truncated and rewritten in place (a logger that restarts, with its clock at 0):
        // shorter than what was read, so it is read again, and its rows are "now" again.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        handle.write(Data("time,yaw\n0.0,30\n".utf8))
        try handle.close()
        try follower.poll(now: 2)
        #expect(follower.timeline.samples.last == YawTimeline.Sample(time: 2, yaw: 30))
        #expect(follower.newWarnings() == ["\(path): the log was truncated; following it again from its start"])

        // Rotated: renamed away and created anew; what the old file still gets is not read.
        try FileManager.default.moveItem(atPath: path, toPath: directory.path("imu.csv.1"))
        try "time,yaw\n5.0,40\n5.1,50\n".write(toFile: path, atomically: false, encoding: .utf8)
        try follower.poll(now: 3)
        #expect(follower.timeline.samples.suffix(2).map(\.yaw) == [40, 50])
        #expect(follower.timeline.samples.last.map { abs($0.time - 3) < 1e-9 } == true)
        #expect(follower.newWarnings() == ["\(path): the log was replaced (rotated); following the new file from its start"])
        try follower.poll(now: 3.1)
        #expect(follower.newWarnings().isEmpty)
        #expect(follower.finalWarnings().isEmpty)

        // With a given offset the clock stays: the rewritten rows keep IMU time + offset.
        let fixed = directory.path("fixed.csv")
        try "time,yaw\n1.0,10\n".write(toFile: fixed, atomically: false, encoding: .utf8)
        let withOffset = try IMUFollower(path: fixed, format: IMUFormat(), offset: 0)
        try withOffset.poll(now: 1)
        try "time,yaw\n".write(toFile: fixed, atomically: false, encoding: .utf8)  // truncated: only a header
        try withOffset.poll(now: 1.5)
        let rewrite = try #require(FileHandle(forWritingAtPath: fixed))
        rewrite.seekToEndOfFile()
        rewrite.write(Data("2.0,20\n".utf8))
        try rewrite.close()
        try withOffset.poll(now: 2)
        #expect(withOffset.timeline.samples.map(\.time) == [1, 2])
        #expect(withOffset.offset == 0)
    }
}
