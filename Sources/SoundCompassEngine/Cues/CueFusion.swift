#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One directional cue: where it points and how much it is believed.
package struct Cue: Sendable, Equatable {
    /// Lateral value `sin θ`, −1 (left) … 1 (right).
    package var lateral: Double
    /// Confidence 0…1.
    package var confidence: Double

    package init(lateral: Double, confidence: Double) {
        self.lateral = lateral
        self.confidence = confidence
    }
}

/// Fuses the time cue and the level cue by the array model's trust in each.
///
/// Direction: inverse-variance weighting, `lateral = Σ wᵢ·latᵢ / Σ wᵢ` with
/// `wᵢ = confidenceᵢ / σᵢ²` and `σᵢ` the model's spread of a fully confident cue (spaced: ITD only;
/// binaural: ITD σ 0.02, ILD σ 0.25, so a confident ITD dominates; coincident: ILD only, the
/// capsules' delay being 0 for every direction). Binaural: the time cue's σ shrinks towards the
/// sides, where a delay pins the lateral value ever more tightly
/// (``ArrayModel/binauralTimeSigma(lateral:)``), so a level cue that reads less than 90° (the
/// head's bright spot) cannot pull a side source inwards.
///
/// Confidence: `1 − Πᵢ (1 − shareᵢ·confidenceᵢ)`, so either cue alone can carry the model's share
/// for it, and agreeing cues add up without exceeding 1. The confidence does not depend on
/// where the cues point, so the broadband estimate takes it (``confidence(time:level:model:)``)
/// before a measured head's bands have read the time cue's direction, and fuses the direction
/// (``direction(time:level:model:)``) once, after them.
package enum CueFusion {
    /// - Returns: the fused lateral value (−1…1) and confidence (0…1).
    package static func fuse(time: Cue, level: Cue, model: ArrayModel) -> Cue {
        let w = weights(time: time, level: level, model: model)
        return Cue(
            lateral: direction(time: time, level: level, model: model, weights: w),
            confidence: confidence(time: time, level: level, model: model, weights: w))
    }

    /// The fused confidence alone (0…1): that of ``fuse(time:level:model:)``.
    package static func confidence(time: Cue, level: Cue, model: ArrayModel) -> Double {
        confidence(time: time, level: level, model: model, weights: weights(time: time, level: level, model: model))
    }

    /// The fused direction alone, lateral −1…1: that of ``fuse(time:level:model:)``.
    package static func direction(time: Cue, level: Cue, model: ArrayModel) -> Double {
        direction(time: time, level: level, model: model, weights: weights(time: time, level: level, model: model))
    }

    /// Each cue's inverse-variance weight, `confidence / σ²`.
    @inline(__always)
    private static func weights(time: Cue, level: Cue, model: ArrayModel) -> (time: Double, level: Double) {
        let trust = model.cueTrust
        let itdSigma = model.kind == .binaural ? model.binauralTimeSigma(lateral: time.lateral) : trust.itdSigma
        let wt = time.confidence / (itdSigma * itdSigma)
        let wl = trust.ildSigma.isFinite ? level.confidence / (trust.ildSigma * trust.ildSigma) : 0
        return (wt, wl)
    }

    @inline(__always)
    private static func confidence(time: Cue, level: Cue, model: ArrayModel, weights w: (time: Double, level: Double)) -> Double {
        // No cue is believed: no confidence.
        guard w.time + w.level > 0 else { return 0 }
        let trust = model.cueTrust
        let confidence = 1 - (1 - trust.itdShare * time.confidence) * (1 - trust.ildShare * level.confidence)
        return max(0, min(1, confidence))
    }

    @inline(__always)
    private static func direction(time: Cue, level: Cue, model: ArrayModel, weights w: (time: Double, level: Double)) -> Double {
        guard w.time + w.level > 0 else {
            // No cue is believed: the cue the model prefers.
            let trust = model.cueTrust
            return trust.ildShare > trust.itdShare ? level.lateral : time.lateral
        }
        let lateral = (w.time * time.lateral + w.level * level.lateral) / (w.time + w.level)
        return max(-1, min(1, lateral))
    }
}

/// What a frame, or one band of it, measured: the inputs of the fusion step
/// (``CueFusion/fuse(_:model:gateDBFS:)``), which the broadband and the band estimators share.
package struct CueMeasurements {
    /// Time difference, right minus left arrival, seconds (as measured, offsets not removed).
    package var delaySeconds: Double
    /// Binaural: the low-frequency share of the bins the delay was measured over (see
    /// ``FrameSpectra/lowFrequencyShare(shares:bins:)``); nil for the other models.
    package var lowFrequencyShare: Double?
    /// Confidence of the time difference, 0…1.
    package var timeConfidence: Double
    /// Level of both channels, dBFS.
    package var levelDBFS: Double
    /// RMS of each channel (linear full scale).
    package var leftRMS: Double
    package var rightRMS: Double
    /// The level difference the level cue reads, right minus left, dB: above 1.5 kHz for the
    /// broadband estimate, the band's own for a band.
    package var levelDifferenceDecibels: Double
    /// Binaural: the frequency the level difference is read at, Hz (0 for the other models,
    /// which do not read it).
    package var levelFrequencyHz: Double
    /// How far the two channels hold the same sound, 0…1, which the level cue's confidence
    /// needs (the level difference of unrelated sounds says nothing); nil when this measurement's
    /// level cue carries no weight (a spaced pair, a binaural band below 1.5 kHz).
    package var levelCoherence: Double?
    /// Coincident: the channels' second moments and their independent samples (ignored by the
    /// other models).
    package var covariance: ChannelCovariance
    package var degreesOfFreedom: Double
    /// Which estimate measured it: 0 the broadband one, `1 + i` band `i` (the row of a measured
    /// head's tables, ``MeasuredHead/estimates``).
    package var estimateIndex = 0
}

/// The two cues of a measurement and their fusion.
package struct FusedCues: Sendable, Equatable {
    /// The time cue: the lateral value of the delay, and its confidence.
    package var time: Cue
    /// The level cue: the lateral value of the level difference (coincident: of the channels'
    /// covariance), and its confidence.
    package var level: Cue
    /// The fused direction and confidence (not yet gated by loudness or activity).
    package var fused: Cue
}

extension CueFusion {
    /// The fusion step of one measurement, broadband or band: each cue's lateral value through
    /// the array model, the level cue's confidence from loudness and coherence (coincident:
    /// from the covariance's inversion, trusted by loudness, directness and steepness), and
    /// their fusion by ``fuse(time:level:model:)``.
    /// - Parameters:
    ///   - m: what was measured.
    ///   - model: the array model.
    ///   - gateDBFS: the silence gate, dBFS (the loudness term of the level cue's confidence).
    /// - Returns: the time cue, the level cue and their fusion.
    @inline(__always)
    package static func fuse(_ m: CueMeasurements, model: ArrayModel, gateDBFS: Double) -> FusedCues {
        let (time, level) = cues(m, model: model, gateDBFS: gateDBFS)
        return FusedCues(time: time, level: level, fused: fuse(time: time, level: level, model: model))
    }

    /// The two cues of a measurement, not yet fused: see ``fuse(_:model:gateDBFS:)``.
    @inline(__always)
    package static func cues(_ m: CueMeasurements, model: ArrayModel, gateDBFS: Double) -> (time: Cue, level: Cue) {
        let timeLateral: Double
        if let head = model.measuredHead {
            timeLateral = head.lateral(
                delay: m.delaySeconds - model.delayOffsetSeconds, lowFrequencyShare: m.lowFrequencyShare ?? 0,
                estimate: m.estimateIndex)
        } else {
            timeLateral = m.lowFrequencyShare.map { model.lateral(delay: m.delaySeconds, lowFrequencyShare: $0) }
                ?? model.lateral(delay: m.delaySeconds)
        }
        let time = Cue(lateral: timeLateral, confidence: m.timeConfidence)
        let level: Cue
        switch model.kind {
        case .coincident:
            // The covariance inverted through the capsules' patterns (ArrayModel.coincidentLevelCue).
            let cue = model.coincidentLevelCue(m.covariance, degreesOfFreedom: m.degreesOfFreedom)
            let loudness = ConfidenceMapping.loudness(levelDBFS: m.levelDBFS, gateDBFS: gateDBFS)
            level = Cue(lateral: cue.lateral, confidence: loudness * cue.confidence)
        case .binaural, .spaced:
            let confidence = m.levelCoherence.map {
                ConfidenceMapping.loudness(levelDBFS: m.levelDBFS, gateDBFS: gateDBFS) * $0
            } ?? 0
            let lateral: Double
            if model.kind == .binaural, let head = model.measuredHead {
                // A band whose level cue carries no weight is not inverted.
                lateral = m.levelCoherence == nil
                    ? 0 : head.lateral(levelDifference: m.levelDifferenceDecibels - model.gainOffsetDecibels, estimate: m.estimateIndex)
            } else if model.kind == .binaural {
                lateral = model.lateral(levelDifference: m.levelDifferenceDecibels, frequencyHz: m.levelFrequencyHz)
            } else {
                lateral = model.lateral(leftRMS: m.leftRMS, rightRMS: m.rightRMS, highFrequencyILD: m.levelDifferenceDecibels)
            }
            level = Cue(lateral: lateral, confidence: confidence)
        }
        return (time, level)
    }
}
