import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A measured head read from an AES69 SOFA file (SimpleFreeFieldHRIR) with libmysofa.
///
/// Only the horizontal plane is used (elevation within ±1°): the measurements in front
/// (−90…90°, ours: 0 ahead, negative left), and a rear one folded to the front
/// (`sign(θ)·(180° − |θ|)`) where no front one lies within 1° of it, since two ears alone cannot
/// tell front from back.
public enum SOFAFile {
    /// Fewest horizontal-plane directions a usable file has.
    public static let minimumDirections = 9
    /// The directions must reach at least this far to each side, degrees.
    public static let minimumReachDegrees = 75.0

    /// The head's impulse responses in the horizontal plane at `sampleRate` (libmysofa resamples),
    /// not normalised, each read without interpolation, sorted by azimuth.
    /// - Parameters:
    ///   - path: the SOFA file.
    ///   - sampleRate: Hz, the rate of the recordings to analyse.
    /// - Throws: ``SOFAError``.
    public static func horizontalPlane(path: String, sampleRate: Double) throws(SOFAError) -> [HeadImpulseResponse] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        guard info.st_size > 0 else { throw .unusable(path: path, problem: "the file is empty") }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        close(descriptor)
        // libmysofa reads HDF5 itself; refuse anything without HDF5's signature before it parses.
        guard Self.hasHDF5Signature(path: path) else {
            throw .invalid(path: path, reason: "not an HDF5 file (SOFA files are HDF5/netCDF-4)")
        }
        let measurements: [SOFACalls.Measurement]
        do {
            measurements = try SOFACalls.read(path: path, sampleRate: sampleRate) { x, y, z in
                let horizontal = (x * x + y * y).squareRoot()
                return horizontal > 0 && abs(atan2(z, horizontal)) * 180 / Double.pi <= 1
            }
        } catch {
            switch error {
            case .library(let code): throw .invalid(path: path, reason: SOFAError.reason(code: code))
            case .field(let problem): throw .unusable(path: path, problem: problem)
            }
        }
        var front: [HeadImpulseResponse] = [], rear: [HeadImpulseResponse] = []
        for m in measurements {
            guard m.left.allSatisfy(\.isFinite), m.right.allSatisfy(\.isFinite),
                  m.left.contains(where: { $0 != 0 }), m.right.contains(where: { $0 != 0 })
            else { continue }
            // libmysofa's azimuth runs counter-clockwise from ahead (y left); ours clockwise.
            // Rounded to 0.01°: the positions come as floats (a 5° grid reads 59.99999°).
            var azimuth = (-atan2(m.y, m.x) * 180 / Double.pi * 100).rounded() / 100
            if azimuth <= -180 { azimuth += 360 }
            if abs(azimuth) <= 90 {
                front.append(HeadImpulseResponse(azimuthDegrees: azimuth, left: m.left, right: m.right))
            } else {
                let folded = (azimuth < 0 ? -1 : 1) * (180 - abs(azimuth))
                rear.append(HeadImpulseResponse(azimuthDegrees: folded, left: m.left, right: m.right))
            }
        }
        for r in rear where !front.contains(where: { abs($0.azimuthDegrees - r.azimuthDegrees) < 1 }) {
            front.append(r)
        }
        front.sort { $0.azimuthDegrees < $1.azimuthDegrees }
        guard front.count >= minimumDirections,
              let lowest = front.first?.azimuthDegrees, let highest = front.last?.azimuthDegrees,
              lowest <= -minimumReachDegrees, highest >= minimumReachDegrees
        else {
            throw .unusable(
                path: path,
                problem: "\(front.count) usable directions in the horizontal plane"
                    + (front.isEmpty ? "" : " (\(formatTrimmed(front.first!.azimuthDegrees, 1))…\(formatTrimmed(front.last!.azimuthDegrees, 1))°)")
                    + "; at least \(minimumDirections) reaching ±\(Int(minimumReachDegrees))° are needed")
        }
        return front
    }

    /// The head's own delay and level tables for `configuration` (its sample rate, framing and
    /// bands): ``horizontalPlane(path:sampleRate:)`` measured by the engine's estimators
    /// (``MeasuredHead/measure(name:impulseResponses:configuration:)``).
    /// - Throws: ``SOFAError``.
    public static func measuredHead(path: String, configuration: AnalysisConfiguration) throws(SOFAError) -> MeasuredHead {
        let responses = try horizontalPlane(path: path, sampleRate: configuration.sampleRate)
        return MeasuredHead.measure(name: path, impulseResponses: responses, configuration: configuration)
    }

    /// True when the file starts with HDF5's 8-byte signature (at offset 0; SOFA files have no
    /// user block).
    private static func hasHDF5Signature(path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 8)
        let read = fread(&bytes, 1, 8, file)
        return read == 8 && bytes == [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]
    }
}
