// Fuzz target `imu`: IMU CSV logs (time + yaw/heading columns, or time + quaternion), as
// `--imu FILE` reads them whole and as `live --imu` follows a growing file. Byte 0 picks the
// units and sign, byte 1 the piece size for the follower's way of reading; the rest is the
// CSV. Checks that reading in pieces hands on exactly the rows a whole read does.
import FuzzSupport
import SoundCompass

/// Rows (time, yaw, line) and the error, as bit patterns so NaN compares equal to itself.
struct Parsed: Equatable {
    var rows: [UInt64] = []
    var error: IMUError?
    var skipped = 0
}

func parse(_ bytes: UnsafeBufferPointer<UInt8>, pieces: Int, format: IMUFormat) -> Parsed {
    let parser = IMULogParser(path: "fuzz.csv", format: format)
    var parsed = Parsed()
    let row = { (time: Double, yaw: Double, line: Int) in
        parsed.rows += [time.bitPattern, yaw.bitPattern, UInt64(line)]
    }
    do {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + pieces)
            try parser.consume(UnsafeBufferPointer(rebasing: bytes[start..<end]), row: row)
            start = end
        }
        try parser.finish(row: row)
    } catch {
        parsed.error = error
    }
    parsed.skipped = parser.skippedCount
    return parsed
}

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard input.count >= 2 else { return 0 }
    let units = Int(input[0])
    let format = IMUFormat(
        timeUnit: IMUFormat.TimeUnit.allCases[units & 3], yawUnit: IMUFormat.AngleUnit.allCases[(units >> 2) & 1],
        yawSign: units & 8 == 0 ? 1 : -1, offsetSeconds: Double((units >> 4) & 3))
    let csv = UnsafeBufferPointer(rebasing: input[2...])

    let whole = parse(csv, pieces: max(csv.count, 1), format: format)
    let pieces = parse(csv, pieces: Int(input[1]) + 1, format: format)
    precondition(whole == pieces, "reading in pieces differs from reading whole")

    if let log = try? IMULog(text: String(decoding: csv, as: UTF8.self), path: "fuzz.csv", format: format) {
        let span = log.span
        precondition(span.lowerBound.isFinite && span.upperBound.isFinite, "IMU span is not finite")
        for t in [span.lowerBound, (span.lowerBound + span.upperBound) / 2, span.upperBound] {
            if let yaw = log.timeline.yaw(at: t) { precondition(yaw.isFinite, "yaw is not finite") }
        }
        _ = log.warnings
        _ = try? log.checkOverlap(audioDuration: 10, offset: 0)
    }
    return 0
}

fuzzMain(testOneInput)
