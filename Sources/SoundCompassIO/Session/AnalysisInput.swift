import SoundCompassEngine

/// Where a whole recording comes from: a sound file, or samples in memory.
public enum AnalysisInput: Sendable {
    /// A sound file libsndfile reads (WAV, FLAC, AIFF, Ogg, …), block by block.
    case file(path: String)
    /// Two channels in memory (a rendered scene, a test signal), at `sampleRate` Hz.
    case samples(left: [Float], right: [Float], sampleRate: Double, name: String)

    /// The input's name for messages: the path, or the samples' name.
    public var name: String {
        switch self {
        case .file(let path): path
        case .samples(_, _, _, let name): name
        }
    }

    /// Opens the input from its start.
    /// - Parameters:
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    /// - Throws: ``SoundFileError`` naming the input.
    public func open(channels: (left: Int, right: Int)? = nil, swap: Bool = false) throws(SoundFileError)
        -> any StereoSource
    {
        switch self {
        case .file(let path):
            return try SoundFileReader(path: path, channels: channels, swap: swap)
        case .samples(let left, let right, let sampleRate, let name):
            let pair = try SoundFileReader.channelPair(channels, swap: swap, of: 2, path: name)
            let swapped = pair.left == 2
            return MemoryStereoSource(
                left: swapped ? right : left, right: swapped ? left : right, sampleRate: sampleRate, name: name)
        }
    }
}

/// Where a live stream comes from: raw PCM on a pipe or in a file, or an ALSA capture device.
public enum CaptureInput: Sendable {
    /// Interleaved raw PCM from a file or FIFO, or `-` for standard input. `channelCount` is the
    /// channels per frame; `nil` for 2, or the highest channel the selection names.
    case rawPCM(path: String, encoding: PCMEncoding, channelCount: Int?)
    /// An ALSA capture device (any PCM name `arecord -D` takes). `encoding` `nil` tries
    /// ``PCMEncoding/preference`` in order; `channelCount` `nil` lets the device choose.
    /// `injectedFaults` is a test seam (see ``ALSACaptureSettings/injectedFaults``).
    case device(name: String, encoding: PCMEncoding?, channelCount: Int?, injectedFaults: [Int: Int32] = [:])

    /// The input's name for messages.
    public var name: String {
        switch self {
        case .rawPCM(let path, _, _): path == "-" ? "standard input" : path
        case .device(let name, _, _, _): name
        }
    }

    /// Opens the stream.
    /// - Parameters:
    ///   - sampleRate: Hz (a device may give the nearest it supports).
    ///   - periodFrames: frames read at a time.
    ///   - channels: 1-based channels to use as left and right; `nil` for 1 and 2.
    ///   - swap: exchange left and right after picking the channels.
    ///   - stopRequested: asked when a read is interrupted by a signal; `true` ends the stream.
    /// - Throws: ``SoundFileError`` for raw PCM, ``ALSAError`` for a device.
    public func open(
        sampleRate: Int, periodFrames: Int, channels: (left: Int, right: Int)? = nil, swap: Bool = false,
        stopRequested: @escaping @Sendable () -> Bool = { false }
    ) throws -> any CaptureSource {
        switch self {
        case .rawPCM(let path, let encoding, let channelCount):
            let count = channelCount ?? max(2, channels?.left ?? 0, channels?.right ?? 0)
            let source = try RawPCMSource(
                path: path, encoding: encoding, sampleRate: sampleRate, channelCount: count, channels: channels,
                swap: swap, periodFrames: periodFrames)
            source.stopRequested = stopRequested
            return source
        case .device(let name, let encoding, let channelCount, let injectedFaults):
            let settings = ALSACaptureSettings(
                device: name, sampleRate: sampleRate, periodFrames: periodFrames, channels: channels,
                channelCount: channelCount, encoding: encoding, swap: swap, injectedFaults: injectedFaults)
            let source = try ALSACaptureSource(settings: settings)
            source.stopRequested = stopRequested
            return source
        }
    }
}

/// Where the listener's yaw comes from, to resolve front from back.
public enum IMUInput: Sendable {
    /// A whole IMU log read at once, for a recording; it must overlap the recording when the
    /// recording's length is known.
    case log(path: String, format: IMUFormat)
    /// An IMU log another program is still writing, followed as a live stream plays. `offset`
    /// is the seconds added to IMU time, or `nil` to take the newest row at start as "now"
    /// (the format's own offset is ignored).
    case follow(path: String, format: IMUFormat, offset: Double?)
}
