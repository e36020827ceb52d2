extension IMUFormat {
    /// Largest |offset| between IMU time and audio time, seconds: 10¹⁰, enough for a log
    /// stamped in Unix time (about 1.8·10⁹ s today) and small enough that adding it keeps
    /// microsecond resolution in a `Double`.
    public static let maximumOffsetSeconds = 1e10
}
