/// How headerless PCM is laid out: it does not say itself (``RawPCMSource`` reads it;
/// ``AnalysisInput/raw(path:format:)`` names it).
public struct RawPCMFormat: Sendable, Equatable {
    /// The samples' encoding.
    public var encoding: PCMEncoding
    /// Sample rate, Hz.
    public var sampleRate: Int
    /// Channels per frame.
    public var channelCount: Int

    /// - Parameters:
    ///   - encoding: the samples' encoding.
    ///   - sampleRate: frames per second, Hz.
    ///   - channelCount: channels per frame.
    public init(encoding: PCMEncoding, sampleRate: Int = 48000, channelCount: Int = 2) {
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }
}
