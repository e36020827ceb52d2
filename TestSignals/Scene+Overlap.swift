extension Scene {
    /// Two sources that play at the same time, where the truth (``azimuth(at:)``) names only
    /// one of them.
    public struct Overlap: Sendable, Equatable {
        /// Index in ``Scene/sources`` of the source the truth follows there (the louder; at
        /// equal level the first listed).
        public var followed: Int
        /// Index of the source the truth leaves out there.
        public var hidden: Int
        /// Seconds from the start of the scene.
        public var start: Double
        /// Seconds from the start of the scene.
        public var end: Double
    }

    /// The first pair of sources (in the order listed) whose playing times overlap, or `nil`
    /// when no two sources play at once. While two sources play, ``azimuth(at:)`` and so the
    /// truth follow the louder (at equal level the first listed) whereas an engine follows
    /// whichever dominates each frame: GCC-PHAT weights every frequency alike, so a broadband
    /// source usually wins over a narrower one of the same level.
    public func firstOverlap() -> Overlap? {
        for i in sources.indices {
            for j in sources.indices where j > i {
                let a = sources[i], b = sources[j]
                let start = max(a.start, b.start, 0)
                let end = min(a.end ?? duration, b.end ?? duration, duration)
                guard end > start else { continue }
                let followed = b.levelDBFS > a.levelDBFS ? j : i
                return Overlap(followed: followed, hidden: followed == i ? j : i, start: start, end: end)
            }
        }
        return nil
    }
}
