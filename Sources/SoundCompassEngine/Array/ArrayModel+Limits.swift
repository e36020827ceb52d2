extension ArrayModel {
    /// Microphone spacings the model accepts, metres: 5 mm (a MEMS pair on one board) to 5 m
    /// (a wide AB pair). Below it the largest delay rounds to no lag at any supported rate;
    /// above it the delay outgrows any analysis frame.
    public static let spacingRange: ClosedRange<Double> = 0.005...5
    /// Head radii the model accepts, metres: 1 cm to 50 cm (an infant's head is about 5 cm,
    /// an adult's 8–10 cm).
    public static let headRadiusRange: ClosedRange<Double> = 0.01...0.5
    /// Binaural level-cue gains (``ildGain``) the model accepts, dB at 90°: 0.5 to 100 (10 is the
    /// sphere's own, about 14 dB at 4 kHz; measured heads fit 6–15). Below 0.5 the level cue says
    /// nothing (calibrate refuses such a fit); above 100 it stands for level differences of
    /// hundreds of dB, which no head makes. `--ild-gain`, a profile's `ild_gain` and a fitted
    /// gain are all checked against it.
    public static let ildGainRange: ClosedRange<Double> = 0.5...100
    /// Hardware gain offsets (``gainOffsetDecibels``) the model accepts, dB: ±40. A profile's
    /// `gain_offset_db` and a fitted offset are checked against it.
    public static let gainOffsetRange: ClosedRange<Double> = -40...40
}
