/// Why a ``Scene`` cannot be rendered as given. Each description is one line.
public enum SceneError: Error, Equatable, CustomStringConvertible {
    /// The sample rate is not a finite rate within ``Scene/sampleRateRange``.
    case sampleRate(Double)
    /// The duration is not positive and finite, or holds more than ``Scene/maximumSampleCount`` samples.
    case duration(seconds: Double, sampleRate: Double)
    /// Source `index` (0-based) starts or ends at a time that is not finite, negative, or
    /// not after its start.
    case sourceTimes(index: Int, start: Double, end: Double?)
    /// Source `index` has a level that is not finite or above +20 dBFS.
    case sourceLevel(index: Int, levelDBFS: Double)
    /// Source `index` has a keyframe whose time or azimuth is not finite.
    case sourcePath(index: Int)
    /// The sensor noise's SNR is not finite.
    case noise(snrDecibels: Double)
    /// The speed of sound is not a finite speed, or the fade is negative or not finite.
    case physics(String)

    public var description: String {
        switch self {
        case .sampleRate(let rate): "sample rate \(rate) Hz is not within \(Int(Scene.sampleRateRange.lowerBound))…\(Int(Scene.sampleRateRange.upperBound)) Hz"
        case .duration(let seconds, let rate):
            "duration \(seconds) s is not a positive time of at most \(Scene.maximumSampleCount) samples (\(Double(Scene.maximumSampleCount) / rate) s at \(rate) Hz)"
        case .sourceTimes(let i, let start, let end):
            "source \(i + 1) plays from \(start) s to \(end.map { "\($0) s" } ?? "the end"): times must be finite seconds ≥ 0 with the end after the start"
        case .sourceLevel(let i, let level): "source \(i + 1) has level \(level) dBFS: give a finite level of at most +20 dBFS"
        case .sourcePath(let i): "source \(i + 1) has a path keyframe whose time or azimuth is not finite"
        case .noise(let snr): "sensor noise SNR \(snr) dB is not finite"
        case .physics(let problem): problem
        }
    }
}

extension Scene {
    /// Sample rates a scene renders at, Hz (those the engine analyses).
    public static let sampleRateRange: ClosedRange<Double> = 8000...768_000
    /// Most samples per channel a scene renders: 2³¹ − 1.
    public static let maximumSampleCount = Int(Int32.max)

    /// Checks every input of the scene, so that ``render()`` can be trusted with it.
    /// Times past the scene's end are allowed (a source plays to the end).
    /// - Throws: ``SceneError`` naming the first problem.
    public func validate() throws(SceneError) {
        guard Self.sampleRateRange.contains(sampleRate) else { throw .sampleRate(sampleRate) }
        guard duration.isFinite, duration > 0, duration * sampleRate <= Double(Self.maximumSampleCount) else {
            throw .duration(seconds: duration, sampleRate: sampleRate)
        }
        guard speedOfSound.isFinite, speedOfSound >= 1 else { throw .physics("speed of sound \(speedOfSound) m/s is not a speed") }
        guard fade.isFinite, fade >= 0 else { throw .physics("fade \(fade) s must be finite seconds ≥ 0") }
        for (i, source) in sources.enumerated() {
            let endOK = source.end.map { $0.isFinite && $0 > source.start } ?? true
            guard source.start.isFinite, source.start >= 0, endOK else {
                throw .sourceTimes(index: i, start: source.start, end: source.end)
            }
            guard source.levelDBFS.isFinite, source.levelDBFS <= 20 else { throw .sourceLevel(index: i, levelDBFS: source.levelDBFS) }
            guard source.path.keyframes.allSatisfy({ $0.time.isFinite && $0.azimuth.isFinite }) else { throw .sourcePath(index: i) }
        }
        if let noise, !noise.snrDecibels.isFinite { throw .noise(snrDecibels: noise.snrDecibels) }
    }

    /// The sample index of `seconds` at the scene's rate, clamped to `0...limit` before any
    /// conversion, so that no time (however large) can overflow.
    func sampleIndex(_ seconds: Double, limit: Int) -> Int {
        let position = (seconds * sampleRate).rounded()
        guard position.isFinite else { return position > 0 ? limit : 0 }
        return Int(max(0, min(Double(limit), position)))
    }
}
