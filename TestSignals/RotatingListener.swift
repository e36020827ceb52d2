#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a listener's (or a device's) yaw moves: degrees, growing when turning right (clockwise
/// seen from above, like a compass heading).
public enum YawMotion: Sendable, Equatable {
    /// Facing one way throughout.
    case still(Double)
    /// `amplitude·sin(2π(t − start)/period)` from `start` seconds on, 0 before: a head turning
    /// from side to side.
    case sinusoid(amplitude: Double, period: Double, start: Double)
    /// Straight lines between keyframes (seconds, degrees), as ``AzimuthPath``.
    case keyframes(AzimuthPath)

    /// Yaw at `time` seconds, degrees (not wrapped).
    public func yaw(at time: Double) -> Double {
        switch self {
        case .still(let yaw): yaw
        case .sinusoid(let amplitude, let period, let start):
            time <= start ? 0 : amplitude * sin(2 * Double.pi * (time - start) / period)
        case .keyframes(let path): path.azimuth(at: time)
        }
    }
}

/// A listener turning in a world of still sources: the sources of ``scene`` are bearings in the
/// world (relative to yaw 0), and the pair turns by ``yaw``. Rendering moves each source across
/// the pair by its bearing minus the yaw, with exact time-varying fractional delays, and
/// ``imuCSV(_:)`` writes what an IMU on the pair would log.
///
/// The physics is independent of the engine: the source's direction relative to the pair is
/// `θ − ψ`, and the IMU rows are built from the rotation itself (a quaternion is composed from
/// yaw, pitch and roll rotations, not derived from the engine's conversion).
public struct RotatingListener: Sendable, Equatable {
    /// The scene in world bearings (degrees on the full circle; ±180 is straight behind at yaw 0).
    public var scene: Scene
    /// The listener's yaw over time.
    public var yaw: YawMotion
    /// Keyframe spacing of the relative paths, seconds.
    public var step: Double

    public init(scene: Scene, yaw: YawMotion, step: Double = 0.002) {
        self.scene = scene
        self.yaw = yaw
        self.step = step
    }

    /// The scene as the turning pair hears it: every source on a path of bearing minus yaw
    /// (continuous, not wrapped, so a source crossing behind the pair does not jump).
    public var relativeScene: Scene {
        var relative = scene
        let times = stride(from: 0.0, through: scene.duration + step, by: step).map { $0 }
        relative.sources = scene.sources.map { source in
            var moved = source
            moved.path = AzimuthPath(times.map { t in (t, source.path.azimuth(at: t) - yaw.yaw(at: t)) })
            return moved
        }
        return relative
    }

    /// Renders what the pair records.
    public func render() -> StereoSignal { relativeScene.render() }

    /// Direction of the loudest playing source relative to the pair at `time`, degrees on
    /// (−180, 180]; `nil` when none plays.
    public func relativeAzimuth(at time: Double) -> Double? {
        scene.azimuth(at: time).map { wrapDegrees($0 - yaw.yaw(at: time)) }
    }

    /// Ground truth as CSV: `time,azimuth,yaw,world_azimuth,hemisphere` every `step` seconds
    /// where a source plays; azimuth relative to the pair, both azimuths and the yaw on
    /// (−180, 180].
    public func truthCSV(step: Double = 0.01) -> String {
        var text = ""
        truthCSV(step: step) { text += $0 }
        return text
    }

    /// ``truthCSV(step:)`` in pieces of whole lines (about 64 kB each), passed to
    /// `write` in order, for a long scene.
    public func truthCSV(step: Double = 0.01, _ write: (String) throws -> Void) rethrows {
        let header = "time,azimuth,yaw,world_azimuth,hemisphere\n"
        try writeTimeGridCSV(header: header, duration: scene.duration, step: step, write) { t, text in
            guard let world = scene.azimuth(at: t), let relative = relativeAzimuth(at: t) else { return }
            let hemisphere = abs(relative) < 90 ? "front" : abs(relative) > 90 ? "back" : "side"
            text += "\(formatted(t, 3)),\(formatted(relative, 3)),\(formatted(wrapDegrees(yaw.yaw(at: t)), 3)),"
                + "\(formatted(wrapDegrees(world), 3)),\(hemisphere)\n"
        }
    }

    /// What the IMU logs, and how.
    public struct IMULog: Sendable, Equatable {
        /// How orientation is written.
        public enum Orientation: Sendable, Equatable {
            /// A `yaw` column (`heading` when `named` says so) in degrees or radians.
            case yaw(column: String, radians: Bool)
            /// `qw,qx,qy,qz` of the rotation yaw·pitch·roll (z down, as an aircraft's
            /// north-east-down frame: a positive rotation about z turns right). Pitch and roll
            /// wobble by a few degrees, as a head's do.
            case quaternion
        }
        /// Rows per second.
        public var rate: Double
        /// Orientation columns.
        public var orientation: Orientation
        /// +1: yaw grows turning right (this engine's convention); −1: a logger that counts the
        /// other way.
        public var sign: Double
        /// Audio time at which the logger's clock reads 0 and its first row is written, seconds.
        public var start: Double
        /// Clock units per second (1 for seconds, 1000 for milliseconds, …).
        public var timeScale: Double
        /// Name of the time column.
        public var timeColumn: String
        /// Whether to write a yaw wrapped to (−180, 180] (as most loggers do) or unwrapped.
        public var wrapped: Bool

        public init(
            rate: Double = 100, orientation: Orientation = .yaw(column: "yaw", radians: false), sign: Double = 1,
            start: Double = 0, timeScale: Double = 1, timeColumn: String = "time", wrapped: Bool = true
        ) {
            self.rate = rate
            self.orientation = orientation
            self.sign = sign
            self.start = start
            self.timeScale = timeScale
            self.timeColumn = timeColumn
            self.wrapped = wrapped
        }
    }

    /// The IMU log as CSV text: a header, then one row every `1/rate` seconds from
    /// `log.start` to the end of the scene. Extra columns (`pitch`, `roll`, `temperature`) stand in
    /// for what real loggers add.
    public func imuCSV(_ log: IMULog = IMULog()) -> String {
        var text = ""
        imuCSV(log) { text += $0 }
        return text
    }

    /// ``imuCSV(_:)`` in pieces of whole lines (about 64 kB each), passed to `write` in
    /// order, for a long scene.
    public func imuCSV(_ log: IMULog = IMULog(), _ write: (String) throws -> Void) rethrows {
        var text: String
        switch log.orientation {
        case .yaw(let column, _): text = "\(log.timeColumn),\(column),pitch,roll,temperature\n"
        case .quaternion: text = "\(log.timeColumn),qw,qx,qy,qz\n"
        }
        var i = 0
        while true {
            let clock = Double(i) / log.rate
            let t = log.start + clock
            guard t <= scene.duration else { break }
            i += 1
            let psi = yaw.yaw(at: t) * log.sign
            let pitch = 4 * sin(2 * Double.pi * t / 3.1), roll = 3 * sin(2 * Double.pi * t / 2.3 + 1)
            let time = formatted(clock * log.timeScale, 6)
            switch log.orientation {
            case .yaw(_, let radians):
                let value = log.wrapped ? wrapDegrees(psi) : psi
                text += "\(time),\(formatted(radians ? value * Double.pi / 180 : value, 6)),"
                    + "\(formatted(pitch, 3)),\(formatted(roll, 3)),21.5\n"
            case .quaternion:
                // q = q_z(ψ) ⊗ q_y(pitch) ⊗ q_x(roll): turn, then tilt, then lean.
                let q = Quaternion.about(z: psi).times(.about(y: pitch)).times(.about(x: roll))
                text += "\(time),\(formatted(q.w, 9)),\(formatted(q.x, 9)),\(formatted(q.y, 9)),\(formatted(q.z, 9))\n"
            }
            if text.utf8.count >= csvPieceLength { try write(text); text = "" }
        }
        try write(text)
    }
}

/// A unit quaternion, for composing rotations.
struct Quaternion {
    var w, x, y, z: Double

    static func about(x degrees: Double) -> Quaternion {
        let h = degrees * Double.pi / 360
        return Quaternion(w: cos(h), x: sin(h), y: 0, z: 0)
    }
    static func about(y degrees: Double) -> Quaternion {
        let h = degrees * Double.pi / 360
        return Quaternion(w: cos(h), x: 0, y: sin(h), z: 0)
    }
    static func about(z degrees: Double) -> Quaternion {
        let h = degrees * Double.pi / 360
        return Quaternion(w: cos(h), x: 0, y: 0, z: sin(h))
    }

    /// The Hamilton product `self ⊗ other`.
    func times(_ o: Quaternion) -> Quaternion {
        Quaternion(
            w: w * o.w - x * o.x - y * o.y - z * o.z,
            x: w * o.x + x * o.w + y * o.z - z * o.y,
            y: w * o.y - x * o.z + y * o.w + z * o.x,
            z: w * o.z + x * o.y - y * o.x + z * o.w)
    }
}

/// `degrees` wrapped to (−180, 180].
func wrapDegrees(_ degrees: Double) -> Double {
    var a = degrees.truncatingRemainder(dividingBy: 360)
    if a > 180 { a -= 360 } else if a <= -180 { a += 360 }
    return a
}
