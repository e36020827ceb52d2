extension ArrayModel {
    /// Microphone spacings the model accepts, metres: 5 mm (a MEMS pair on one board) to 5 m
    /// (a wide AB pair). Below it the largest delay rounds to no lag at any supported rate;
    /// above it the delay outgrows any analysis frame.
    public static let spacingRange: ClosedRange<Double> = 0.005...5
    /// Head radii the model accepts, metres: 1 cm to 50 cm (an infant's head is about 5 cm,
    /// an adult's 8–10 cm).
    public static let headRadiusRange: ClosedRange<Double> = 0.01...0.5
}
