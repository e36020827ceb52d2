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
/// for it, and agreeing cues add up without exceeding 1.
package enum CueFusion {
    /// - Returns: the fused lateral value (−1…1) and confidence (0…1).
    package static func fuse(time: Cue, level: Cue, model: ArrayModel) -> Cue {
        let trust = model.cueTrust
        let itdSigma = model.kind == .binaural ? model.binauralTimeSigma(lateral: time.lateral) : trust.itdSigma
        let wt = time.confidence / (itdSigma * itdSigma)
        let wl = trust.ildSigma.isFinite ? level.confidence / (trust.ildSigma * trust.ildSigma) : 0
        let confidence = 1 - (1 - trust.itdShare * time.confidence) * (1 - trust.ildShare * level.confidence)
        guard wt + wl > 0 else {
            // No cue is believed: report the cue the model prefers, with no confidence.
            return Cue(lateral: trust.ildShare > trust.itdShare ? level.lateral : time.lateral, confidence: 0)
        }
        let lateral = (wt * time.lateral + wl * level.lateral) / (wt + wl)
        return Cue(lateral: max(-1, min(1, lateral)), confidence: max(0, min(1, confidence)))
    }
}
