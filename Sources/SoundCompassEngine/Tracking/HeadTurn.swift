/// The listener's own turning between two frames, as it moves a source across the array.
///
/// With an IMU, a source of known hemisphere moves across the pair by the yaw change: turning
/// right by 10° moves a source ahead 10° to the left (`previous yaw − yaw`), and a source
/// behind 10° to the right (`yaw − previous yaw`). The trackers are told this shift, so they
/// need not learn the turning as the source's own motion. While the hemisphere is unknown the
/// shift is 0.
///
/// Life cycle: a value; ``shift(yaw:hemisphere:)`` once per frame.
package struct HeadTurn: Sendable, Equatable {
    /// The yaw of the last frame, degrees (unwrapped), nil before one or where the IMU said nothing.
    private var previousYaw: Double?

    package init() {}

    /// The frame's shift, and the frame's yaw remembered for the next one.
    /// - Parameters:
    ///   - yaw: this frame's unwrapped yaw, degrees (nil: the IMU says nothing here).
    ///   - hemisphere: the hemisphere the tracked source is expected in at this yaw (from the
    ///     front/back resolver's state before this frame).
    /// - Returns: the source's movement across the pair since the last frame, degrees (0
    ///   without both yaws or with the hemisphere unknown).
    package mutating func shift(yaw: Double?, hemisphere: Hemisphere) -> Double {
        defer { previousYaw = yaw }
        guard let yaw, let previousYaw else { return 0 }
        switch hemisphere {
        case .front: return previousYaw - yaw
        case .back: return yaw - previousYaw
        case .unknown: return 0
        }
    }

    /// Forgets the last yaw.
    package mutating func reset() { previousYaw = nil }
}
