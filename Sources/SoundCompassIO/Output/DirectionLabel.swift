import SoundCompassEngine

/// A word for where a bearing points, for people rather than programs.
public enum DirectionLabel: String, Sendable, CaseIterable {
    case farLeft = "far left", left, ahead, right, farRight = "far right", behind

    /// The label of a lateral value (−1…1): far left < −0.66 ≤ left < −0.20 ≤ ahead < 0.20 ≤
    /// right < 0.66 ≤ far right (the iOS app's thresholds). A resolved azimuth beyond ±90° is
    /// `behind`.
    /// - Parameters:
    ///   - lateral: `sin(azimuth)`, −1…1.
    ///   - hemisphere: `.back` turns the label into `behind`.
    public init(lateral: Double, hemisphere: Hemisphere = .unknown) {
        if hemisphere == .back { self = .behind; return }
        switch lateral {
        case ..<(-0.66): self = .farLeft
        case ..<(-0.20): self = .left
        case ..<0.20: self = .ahead
        case ..<0.66: self = .right
        default: self = .farRight
        }
    }
}
