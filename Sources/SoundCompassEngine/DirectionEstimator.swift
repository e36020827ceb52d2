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
    /// The time cue (lateral from the delay) and its confidence.
    package var timeCue: Cue
    /// The level cue and its confidence.
    package var levelCue: Cue
    /// The fused direction and confidence (confidence 0 below the silence gate).
    package var fused: Cue
    /// True when the frame is louder than the silence gate.
    package var aboveGate: Bool
    /// Strongest frequency of the frame (both channels' power spectra, peak interpolated on a
    /// log scale), Hz.
    package var dominantFrequency: Double

    /// Fused azimuth in degrees, [−90, 90].
    package var azimuthDegrees: Double { asin(max(-1, min(1, fused.lateral))) * 180 / Double.pi }
}

/// The broadband two-cue estimator: level difference + GCC-PHAT time difference, fused by
/// the array model. Works on one frame at a time; see ``StreamingAnalyzer`` for framing.
///
/// Life cycle: `init` allocates; ``estimate(left:right:)`` never allocates.
package final class DirectionEstimator {
    /// The settings this estimator was made for.
    package let configuration: AnalysisConfiguration
    /// The time-difference estimator.
    package let gccPhat: GCCPHAT
    private let highFrequencyBin: Int

    /// Lower edge of the band used for the binaural level cue, Hz.
    package static let highFrequencyEdge = 1500.0

    /// - Parameter configuration: must pass ``AnalysisConfiguration/validate()``.
    package init(configuration: AnalysisConfiguration) {
        self.configuration = configuration
        let fs = configuration.sampleRate
        self.gccPhat = GCCPHAT(
            frameLength: configuration.frameLength, maxLagSamples: configuration.maximumLagSamples,
            coherenceSmoothing: Float(configuration.coherenceSmoothing),
            diffuseCoherenceDelaySamples: configuration.array.diffuseCoherenceDelay.map { $0 * fs })
        let n = gccPhat.fftSize
        self.highFrequencyBin = min(n / 2, max(1, Int((Self.highFrequencyEdge / fs * Double(n)).rounded(.up))))
    }

    /// Forgets the state carried between frames.
    package func reset() { gccPhat.reset() }

    /// Estimates the direction of one frame.
    /// - Parameters:
    ///   - left: `frameLength` finite samples of the left channel.
    ///   - right: `frameLength` finite samples of the right channel.
    package func estimate(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) -> FrameEstimate {
        let config = configuration
        let model = config.array
        let levels = ChannelLevels(left: left, right: right, count: config.frameLength)
        let level = levels.levelDBFS
        let aboveGate = level >= config.silenceGateDBFS

        let delay = gccPhat.estimate(left: left, right: right)
        let delaySeconds = delay.lagSamples / config.sampleRate
        let timeCue = Cue(lateral: model.lateral(delay: delaySeconds), confidence: Double(delay.confidence))

        // Level cue. Its confidence needs a level above the gate and a correlated pair (the
        // GCC-PHAT peak's height term): the level difference of unrelated sounds in the two
        // channels says nothing about a direction.
        let hfILD = highFrequencyLevelDifference()
        var levelConfidence = 0.0
        if model.kind != .spaced {
            let loudness = clamp01((level - config.silenceGateDBFS) / 10)
            let coherence = Double(clamp((delay.significance - 4) / 6) * clamp(delay.peakHeight / 0.15))
            levelConfidence = loudness * coherence
        }
        let levelCue = Cue(
            lateral: model.lateral(leftRMS: levels.leftRMS, rightRMS: levels.rightRMS, highFrequencyILD: hfILD),
            confidence: levelConfidence)

        var fused = CueFusion.fuse(time: timeCue, level: levelCue, model: model)
        if !aboveGate { fused.confidence = 0 }
        return FrameEstimate(
            levels: levels, delay: delay, highFrequencyILD: hfILD, timeCue: timeCue, levelCue: levelCue,
            fused: fused, aboveGate: aboveGate, dominantFrequency: dominantFrequency())
    }

    /// Peak of `|L|² + |R|²`, refined by a parabola through the log powers of the peak bin and
    /// its neighbours (exact for a Gaussian-shaped peak, within a few per cent of a bin for the
    /// Hann window's main lobe), in Hz.
    private func dominantFrequency() -> Double {
        let l = gccPhat.leftSpectrum.baseAddress, r = gccPhat.rightSpectrum.baseAddress
        let n = gccPhat.fftSize
        func power(_ k: Int) -> Float {
            l[2 * k] * l[2 * k] + l[2 * k + 1] * l[2 * k + 1] + r[2 * k] * r[2 * k] + r[2 * k + 1] * r[2 * k + 1]
        }
        var best = 1
        var bestPower: Float = 0
        for k in 1..<(n / 2) {
            let p = power(k)
            if p > bestPower { bestPower = p; best = k }
        }
        guard bestPower > 0, bestPower.isFinite else { return 0 }
        let a = Double(log(max(power(best - 1), .leastNormalMagnitude)))
        let b = Double(log(bestPower))
        let c = Double(log(max(power(best + 1), .leastNormalMagnitude)))
        let denominator = a - 2 * b + c
        let offset = denominator < 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / denominator)) : 0
        return (Double(best) + offset) * configuration.sampleRate / Double(n)
    }

    /// Level difference (right minus left, dB) of the windowed spectra above ``highFrequencyEdge``.
    private func highFrequencyLevelDifference() -> Double {
        let l = gccPhat.leftSpectrum.baseAddress, r = gccPhat.rightSpectrum.baseAddress
        var sumL: Float = 0, sumR: Float = 0
        for k in highFrequencyBin...(gccPhat.fftSize / 2) {
            sumL += l[2 * k] * l[2 * k] + l[2 * k + 1] * l[2 * k + 1]
            sumR += r[2 * k] * r[2 * k] + r[2 * k + 1] * r[2 * k + 1]
        }
        guard sumL.isFinite, sumR.isFinite else { return 0 }
        // Scale to a per-sample power so the −160 dB floor means the same as for RMS.
        let scale = 1 / Double(gccPhat.fftSize * configuration.frameLength)
        return decibelRatio(Double(sumR) * scale, Double(sumL) * scale)
    }
}
