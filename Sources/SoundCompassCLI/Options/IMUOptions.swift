import ArgumentParser
import SoundCompass

extension IMUFormat.TimeUnit: ExpressibleByArgument {}
extension IMUFormat.AngleUnit: ExpressibleByArgument {}

/// Which way a logger's yaw grows: `+1`/`cw` clockwise (turning right), `-1`/`ccw` the other way.
struct YawSign: ExpressibleByArgument {
    var value: Double

    init(value: Double) { self.value = value }

    init?(argument: String) {
        switch argument.lowercased() {
        case "1", "+1", "cw", "clockwise": value = 1
        case "-1", "ccw", "counterclockwise", "counter-clockwise": value = -1
        default: return nil
        }
    }

    static var allValueStrings: [String] { ["+1", "-1"] }
    var defaultValueDescription: String { value > 0 ? "+1" : "-1" }
}

/// The options that read an IMU log for front/back, shared by analyze and live.
struct IMUOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "IMU log (CSV: a time column and yaw/heading, or qw,qx,qy,qz) to resolve front/back from the listener's turning. See Docs/IMU.md.",
        valueName: "file.csv"))
    var imu: String?

    @Option(help: "Unit of the IMU time column: s, ms, us or ns.")
    var imuTimeUnit: IMUFormat.TimeUnit = .s

    @Option(help: "Unit of the IMU yaw/heading column: deg or rad.")
    var imuYawUnit: IMUFormat.AngleUnit = .deg

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("+1 if the logger's yaw grows turning right (clockwise from above, like a compass), -1 if it grows turning left.", valueName: "+1|-1"))
    var imuYawSign: YawSign = YawSign(value: 1)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds added to IMU time to put it on the audio clock (0 = first audio sample; a logger started 2 s after the recording needs 2). Default 0 for analyze; for live, the newest row at start is 'now'.", valueName: "seconds"))
    var imuOffset: Double?

    func validate() throws {
        if let imuOffset, !(imuOffset.isFinite && abs(imuOffset) <= IMUFormat.maximumOffsetSeconds) {
            throw ValidationError(
                "--imu-offset must be seconds within ±1e10 (Unix time fits), got \(imuOffset)")
        }
        if imu == nil && (imuOffset != nil || imuYawSign.value != 1 || imuTimeUnit != .s || imuYawUnit != .deg) {
            throw ValidationError("--imu-time-unit, --imu-yaw-unit, --imu-yaw-sign and --imu-offset need --imu")
        }
    }

    /// Units, sign and offset (0 when none is given).
    var format: IMUFormat {
        IMUFormat(timeUnit: imuTimeUnit, yawUnit: imuYawUnit, yawSign: imuYawSign.value, offsetSeconds: imuOffset ?? 0)
    }

    /// The whole log, for a recording (read and checked when the session opens).
    var logInput: IMUInput? { imu.map { .log(path: $0, format: format) } }

    /// The log followed as a live stream plays.
    var followInput: IMUInput? { imu.map { .follow(path: $0, format: format, offset: imuOffset) } }

    /// One line describing the log, for stderr.
    static func describe(_ log: IMULog) -> String {
        let span = log.span
        func s(_ x: Double) -> String { String(Double(Int((x * 100).rounded())) / 100) }
        return "\(log.path): \(log.usableRows) IMU rows, \(s(span.lowerBound))…\(s(span.upperBound)) s on the audio clock"
    }
}
