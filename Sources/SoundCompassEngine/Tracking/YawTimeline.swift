/// Device yaw over time, on the audio clock: what an IMU said, ready to be asked at any
/// frame's time.
///
/// Yaw is in degrees and grows when the listener turns right (clockwise seen from above, like a
/// compass heading). Samples are unwrapped as they arrive (each one is taken the shorter way
/// round from the one before, so a turn through ±180° does not jump by 360°) and
/// ``yaw(at:)`` interpolates linearly between them.
///
/// A timeline can grow while it is read (a live session following an IMU logger): append
/// samples as they come and ``discard(before:)`` the ones no frame will ask for again; once its
/// storage has grown to a session's needs, neither appending nor asking allocates.
public final class YawTimeline {
    /// One IMU reading on the audio clock.
    public struct Sample: Sendable, Equatable {
        /// Seconds from the first audio sample.
        public var time: Double
        /// Unwrapped yaw, degrees.
        public var yaw: Double

        public init(time: Double, yaw: Double) {
            self.time = time
            self.yaw = yaw
        }
    }

    /// Why ``append(time:yaw:)`` refused a sample.
    public enum Rejection: Sendable, Equatable {
        /// The time is not later than the last sample's.
        case notLater(previous: Double)
        /// The time or the yaw is NaN or infinite.
        case notFinite
    }

    /// Yaw is not interpolated across a longer gap between two samples, nor held longer than
    /// this before the first or after the last sample, seconds.
    public let maximumGapSeconds: Double

    /// The samples held, oldest first.
    public private(set) var samples: [Sample] = []
    private var cursor = 0

    /// - Parameters:
    ///   - maximumGapSeconds: see ``maximumGapSeconds`` (default 0.5 s).
    ///   - capacity: samples to reserve room for.
    public init(maximumGapSeconds: Double = 0.5, capacity: Int = 1024) {
        precondition(maximumGapSeconds > 0, "maximumGapSeconds must be positive")
        self.maximumGapSeconds = maximumGapSeconds
        samples.reserveCapacity(capacity)
    }

    /// Number of samples held.
    public var count: Int { samples.count }

    /// Appends a reading, unwrapping its yaw against the previous sample.
    /// - Parameters:
    ///   - time: seconds on the audio clock; must be later than the last sample's.
    ///   - yaw: degrees, wrapped or not.
    /// - Returns: `nil` when appended, else why not (the sample is then dropped).
    @discardableResult
    public func append(time: Double, yaw: Double) -> Rejection? {
        guard time.isFinite, yaw.isFinite else { return .notFinite }
        guard let last = samples.last else {
            samples.append(Sample(time: time, yaw: yaw))
            return nil
        }
        guard time > last.time else { return .notLater(previous: last.time) }
        // Wrapped before subtracting, so that no finite yaw can overflow: the step is at most
        // 180°, and adding it to a finite yaw stays finite.
        samples.append(Sample(time: time, yaw: last.yaw + Self.wrap(Self.wrap(yaw) - Self.wrap(last.yaw))))
        return nil
    }

    /// Unwrapped yaw at `time` seconds, degrees, interpolated linearly; `nil` when no reading
    /// is near enough (see ``maximumGapSeconds``).
    ///
    /// Asking at increasing times, as frames do, costs O(1) per call.
    public func yaw(at time: Double) -> Double? {
        guard let first = samples.first, let last = samples.last, time.isFinite else { return nil }
        if time <= first.time { return first.time - time <= maximumGapSeconds ? first.yaw : nil }
        if time >= last.time { return time - last.time <= maximumGapSeconds ? last.yaw : nil }
        // Find i with samples[i].time <= time < samples[i + 1].time.
        if cursor >= samples.count - 1 || samples[cursor].time > time { cursor = 0 }
        // A few steps forward from the last answer, else bisect what is left.
        var steps = 0
        while samples[cursor + 1].time <= time && steps < 8 { cursor += 1; steps += 1 }
        if samples[cursor + 1].time <= time {
            var low = cursor, high = samples.count - 1  // samples[low].time <= time < samples[high].time
            while high - low > 1 {
                let mid = (low + high) / 2
                if samples[mid].time <= time { low = mid } else { high = mid }
            }
            cursor = low
        }
        let a = samples[cursor], b = samples[cursor + 1]
        let span = b.time - a.time
        guard span <= maximumGapSeconds else { return nil }
        let yaw = a.yaw + (b.yaw - a.yaw) * (time - a.time) / span
        assert(yaw.isFinite, "YawTimeline interpolated a non-finite yaw")
        return yaw
    }

    /// Drops the samples that a question at `time` or later no longer needs (all but the last one at
    /// or before `time`), keeping the storage for reuse.
    public func discard(before time: Double) {
        var keepFrom = 0
        while keepFrom + 1 < samples.count && samples[keepFrom + 1].time <= time { keepFrom += 1 }
        guard keepFrom > 0 else { return }
        samples.removeFirst(keepFrom)
        cursor = 0
    }

    /// Removes every sample.
    public func removeAll() {
        samples.removeAll(keepingCapacity: true)
        cursor = 0
    }

    /// `degrees` wrapped to (−180, 180].
    public static func wrap(_ degrees: Double) -> Double {
        wrapDegrees(degrees)
    }
}
