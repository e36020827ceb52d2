/// Bounds the whole engine shares.
package enum EngineLimits {
    /// The highest sample rate an analysis accepts, Hz (`AnalysisConfiguration.maximumSampleRate`).
    package static let maximumSampleRate = 768_000.0
}
