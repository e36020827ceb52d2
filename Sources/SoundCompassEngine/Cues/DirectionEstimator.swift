#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything the broadband estimator measured in one frame.
package struct FrameEstimate: Sendable, Equatable {
    /// Channel levels (RMS) of the frame.
    package var levels: ChannelLevels
    /// The GCC-PHAT result.
    package var delay: TimeDelayEstimate
    /// Right-minus-left level difference above 1.5 kHz, dB (from the windowed spectra).
    package var highFrequencyILD: Double
    /// Binaural: the frame's low-frequency share over all its bins, at which its delays are
    /// read (see ``FrameSpectra/lowFrequencyShare(shares:bins:)``); nil for the other models.
    package var lowFrequencyShare: Double?
    /// The time cue (lateral from the delay) and its confidence.
    package var timeCue: Cue
    /// The level cue and its confidence.
    package var levelCue: Cue
    /// The channels' second moments (coincident; zero for the other kinds, which do not measure them).
    package var covariance = ChannelCovariance.zero
    /// The fused direction and confidence (confidence 0 below the silence gate). After
    /// ``DirectionEstimator/measure(left:right:)`` alone its confidence is final and its
    /// direction is the time cue's; ``DirectionEstimator/fuse(_:timeLateral:)`` fuses the
    /// direction.
    package var fused: Cue
    /// True when the frame is louder than the silence gate.
    package var aboveGate: Bool
    /// Strongest frequency of the frame (both channels' power spectra, peak interpolated on a
    /// log scale), Hz.
    package var dominantFrequency: Double

    /// Fused azimuth in degrees, [−90, 90].
    package var azimuthDegrees: Double { ArrayModel.azimuthDegrees(lateral: fused.lateral) }
}

/// The broadband two-cue estimator: level difference + GCC-PHAT time difference, fused by
/// the array model. Works on one frame at a time; see ``StreamingAnalyzer`` for framing.
///
/// Life cycle: `init` allocates; ``estimate(left:right:)`` never allocates.
package final class DirectionEstimator {
    /// What the broadband estimate needs of the analysis settings (the analyzer's
    /// `AnalysisConfiguration` gives one; the per-band estimator and the multi-source
    /// candidates read the same through ``DirectionEstimator/configuration``).
    package struct Configuration: Sendable, Equatable {
        /// Samples per second, Hz.
        package var sampleRate: Double
        /// Samples per analysis frame.
        package var frameLength: Int
        /// Samples between the starts of successive frames.
        package var hopLength: Int
        /// GCC-PHAT's lag window, samples each side of zero (the array's largest delay, its offset
        /// and the margin; fractional).
        package var maximumLagSamples: Double
        /// The cross-spectrum's smoothing between frames, 0…1.
        package var coherenceSmoothing: Double
        /// Frames below this level are silent (no cue), dBFS.
        package var silenceGateDBFS: Double
        /// The microphone pair.
        package var array: ArrayModel
        /// Whether a spaced pair's time cue is corrected for the room's pull (``PrecedenceLag``).
        package var correctsRoomPull: Bool

        package init(
            sampleRate: Double, frameLength: Int, hopLength: Int? = nil, maximumLagSamples: Double,
            coherenceSmoothing: Double, silenceGateDBFS: Double, array: ArrayModel, correctsRoomPull: Bool = false
        ) {
            self.correctsRoomPull = correctsRoomPull
            self.sampleRate = sampleRate
            self.frameLength = frameLength
            self.hopLength = hopLength ?? max(1, frameLength / 2)
            self.maximumLagSamples = maximumLagSamples
            self.coherenceSmoothing = coherenceSmoothing
            self.silenceGateDBFS = silenceGateDBFS
            self.array = array
        }
    }

    /// The settings this estimator was made for.
    package let configuration: Configuration
    /// The time-difference estimator.
    package let gccPhat: GCCPHAT
    private let highFrequencyBin: Int
    /// The binaural model's low-frequency share of each bin (nil for the other models): the
    /// one table, which the band estimates and the multi-source candidates read too.
    package let binShares: AlignedFloats?
    /// The room's pull on the lag, measured at onsets (spaced pairs).
    package let precedence: PrecedenceLag?

    /// Lower edge of the band used for the binaural level cue, Hz.
    package static let highFrequencyEdge = 1500.0

    /// - Parameter configuration: from a configuration that passed `AnalysisConfiguration.validate()`.
    package init(configuration: Configuration) {
        self.configuration = configuration
        let fs = configuration.sampleRate
        self.gccPhat = GCCPHAT(
            frameLength: configuration.frameLength, maxLagSamples: configuration.maximumLagSamples,
            coherenceSmoothing: Float(configuration.coherenceSmoothing),
            diffuseCoherenceDelaySamples: configuration.array.diffuseCoherenceDelaySeconds.map { $0 * fs })
        let n = gccPhat.fftSize
        self.highFrequencyBin = min(n / 2, max(1, Int((Self.highFrequencyEdge / fs * Double(n)).rounded(.up))))
        self.binShares = configuration.array.kind == .binaural
            ? configuration.array.binLowFrequencyShares(fftSize: n, sampleRate: fs) : nil
        self.precedence = configuration.array.kind == .spaced && configuration.correctsRoomPull
            ? PrecedenceLag(sampleRate: fs, maxLagSamples: configuration.maximumLagSamples) : nil
    }

    /// Forgets the state carried between frames.
    package func reset() { gccPhat.reset(); precedence?.reset() }

    /// Estimates the direction of one frame: ``measure(left:right:)``, then ``fuse(_:timeLateral:)``
    /// with the broadband time cue.
    /// - Parameters:
    ///   - left: `frameLength` finite samples of the left channel.
    ///   - right: `frameLength` finite samples of the right channel.
    /// - Returns: the frame's estimate, and a view of its spectra (with its correlation) for the
    ///   per-band estimates and the multi-source candidates (valid until the next call).
    package func estimate(
        left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>
    ) -> (estimate: FrameEstimate, spectra: FrameSpectra) {
        var (estimate, spectra) = measure(left: left, right: right)
        fuse(&estimate)
        return (estimate, spectra)
    }

    /// Fuses the frame's direction, once: the time cue (its direction replaced by
    /// `timeLateral` when given, as a measured head's bands read it) with the level cue. The
    /// confidence, which does not depend on the direction, stays as measured.
    /// - Parameters:
    ///   - estimate: a frame's estimate from ``measure(left:right:)``.
    ///   - timeLateral: the time cue's direction read otherwise, lateral −1…1; nil keeps the
    ///     broadband delay's.
    package func fuse(_ estimate: inout FrameEstimate, timeLateral: Double? = nil) {
        if let timeLateral { estimate.timeCue.lateral = timeLateral }
        estimate.fused.lateral = CueFusion.direction(
            time: estimate.timeCue, level: estimate.levelCue, model: configuration.array)
    }

    /// Measures one frame: levels, the delay, the two cues and the fused confidence (0 below
    /// the silence gate); the direction is not yet fused (see ``fuse(_:timeLateral:)``).
    /// - Parameters:
    ///   - left: `frameLength` finite samples of the left channel.
    ///   - right: `frameLength` finite samples of the right channel.
    /// - Returns: the frame's estimate, and a view of its spectra (valid until the next call).
    package func measure(
        left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>
    ) -> (estimate: FrameEstimate, spectra: FrameSpectra) {
        let config = configuration
        let model = config.array
        let levels = ChannelLevels(left: left, right: right, count: config.frameLength)
        let level = levels.levelDBFS
        let aboveGate = level >= config.silenceGateDBFS

        let correlated = gccPhat.estimate(left: left, right: right)
        let delay = correlated.delay, spectra = correlated.spectra
        // The lag the time cue reads: the room's pull measured at onsets taken out (spaced pairs).
        var cueLag = delay.lagSamples
        if let precedence {
            precedence.update(
                left: left, right: right, frameLength: config.frameLength, hop: config.hopLength,
                frameLag: delay.lagSamples, confidence: Double(delay.confidence))
            cueLag = max(-config.maximumLagSamples, min(config.maximumLagSamples, cueLag * precedence.scale))
        }
        // Binaural: the delay is read at the frame's own mixture of frequencies (a head's
        // low-frequency delay is up to 1.5 times its high-frequency one).
        let share = binShares.map { spectra.lowFrequencyShare(shares: $0.baseAddress, bins: 1...(gccPhat.fftSize / 2 - 1), lagSamples: delay.lagSamples) }
        let hfILD = spectra.levelDifferenceDecibels(fromBin: highFrequencyBin)
        // A coincident pair's level cue reads the channels' covariance; the others do not measure it.
        let covariance = model.kind == .coincident
            ? ChannelCovariance(left: left, right: right, count: config.frameLength) : .zero
        // The level cue's confidence needs a correlated pair (the GCC-PHAT peak's height term):
        // the level difference of unrelated sounds in the two channels says nothing about a
        // direction. A spaced pair's level cue carries no weight.
        let cues = CueFusion.cues(
            CueMeasurements(
                delaySeconds: cueLag / config.sampleRate, lowFrequencyShare: share,
                timeConfidence: Double(delay.confidence), levelDBFS: level,
                leftRMS: levels.leftRMS, rightRMS: levels.rightRMS, levelDifferenceDecibels: hfILD,
                levelFrequencyHz: model.kind == .binaural
                    ? spectra.meanFrequency(fromBin: highFrequencyBin, sampleRate: config.sampleRate) : 0,
                levelCoherence: model.kind == .spaced
                    ? nil
                    : Double(ConfidenceMapping.correlation(significance: delay.significance, peakHeight: delay.peakHeight)),
                covariance: covariance,
                degreesOfFreedom: Double(config.frameLength)),
            model: model, gateDBFS: config.silenceGateDBFS)
        let confidence = aboveGate ? CueFusion.confidence(time: cues.time, level: cues.level, model: model) : 0
        let estimate = FrameEstimate(
            levels: levels, delay: delay, highFrequencyILD: hfILD, lowFrequencyShare: share, timeCue: cues.time,
            levelCue: cues.level, covariance: covariance,
            fused: Cue(lateral: cues.time.lateral, confidence: confidence), aboveGate: aboveGate, dominantFrequency: spectra.dominantFrequency(sampleRate: config.sampleRate))
        return (estimate, spectra)
    }
}
