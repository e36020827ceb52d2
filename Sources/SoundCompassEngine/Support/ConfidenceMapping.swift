/// The mappings from what an estimator measured to a confidence (0…1), and the confidence
/// thresholds that decide what a frame is used for, in one place.
///
/// Every mapping is a clamped ramp `clamp((x − start)/width)`: 0 up to `start`, 1 from
/// `start + width`. The constants were chosen on synthetic scenes and recordings (see
/// Docs/Accuracy.md); records depend on their exact values.
package enum ConfidenceMapping {
    // MARK: - Thresholds

    /// A frame at least this confident is a measurement: it enters the tracker, a segment's
    /// median and spread, and a calibration fit (0.2).
    package static let confident = 0.2

    /// A frame at least this confident may steer a decision that outlasts it (0.3): the
    /// broadband lag as the prior that picks among a high band's aliased peaks, and a frame
    /// entering the front/back fit's window. Stricter than ``confident`` on purpose: a wrong
    /// prior or a wrong hemisphere is carried into the following frames.
    package static let confidentToGuide = 0.3

    /// A broadband time cue at least this confident moves the right channel's analysis window
    /// to its lag (0.5, see ``GCCPHAT``'s window alignment). Strictest on purpose: the shift
    /// applies to every following frame until the next confident one, and a frame aligned on a
    /// wrong lag loses the sound it should find.
    package static let confidentToAlignWindow: Float = 0.5

    // MARK: - Time cue (GCC-PHAT)

    /// Significance (peak over the background RMS) below which the correlation earns nothing:
    /// uncorrelated noise stays below 4.
    package static let significanceFloor: Float = 4
    /// Significance above ``significanceFloor`` over which the term rises to 1 (full at 10).
    package static let significanceWidth: Float = 6
    /// Normalised peak height at which the height term is full (0.15; unrelated signals give
    /// about `1/√N`, 0.02 for a 2048-point FFT).
    package static let fullPeakHeight: Float = 0.15
    /// Prominence (`1 − second peak / peak`) at which the prominence term is full.
    package static let fullProminence: Float = 0.5

    /// How clearly the two channels are correlated at all:
    /// `clamp((s − 4)/6) · clamp(p/0.15)`.
    /// - Parameters:
    ///   - significance: peak over the background RMS of the correlation (≥ 0).
    ///   - peakHeight: normalised peak height, 0…1.
    @inline(__always)
    package static func correlation(significance: Float, peakHeight: Float) -> Float {
        clamp((significance - significanceFloor) / significanceWidth) * clamp(peakHeight / fullPeakHeight)
    }

    /// How clearly one lag wins over the others in the window: `clamp(q/0.5)`.
    /// - Parameter prominence: `1 − second peak / peak`, 0…1.
    @inline(__always)
    package static func prominence(_ prominence: Float) -> Float {
        clamp(prominence / fullProminence)
    }

    /// The edge rule of a lag window: no confidence for a peak pinned at the window's edge,
    /// and a refined lag beyond the largest physical lag tapered linearly to 0 at the edge.
    /// - Parameters:
    ///   - confidence: the confidence before the rule, 0…1.
    ///   - lag: the refined lag, samples.
    ///   - pinned: true when the integer peak is on the window's edge.
    ///   - maximumLag: the largest physical lag, samples (> 0).
    ///   - searchLag: the window's half-width, whole samples (> `maximumLag`).
    /// - Returns: the confidence after the rule.
    @inline(__always)
    package static func edgeRule(
        _ confidence: Float, lag: Double, pinned: Bool, maximumLag: Double, searchLag: Int
    ) -> Float {
        if pinned { return 0 }
        guard abs(lag) > maximumLag else { return confidence }
        return confidence * Float(clamp01((Double(searchLag) - abs(lag)) / (Double(searchLag) - maximumLag)))
    }

    // MARK: - Coherence (bands, level cues)

    /// Coherence (magnitude-squared, in excess of the diffuse field's) below which a band
    /// earns nothing: unrelated noise stays below about 1/3.
    package static let coherenceFloor: Float = 0.5
    /// Coherence above ``coherenceFloor`` over which the term rises to 1 (full at 0.9).
    package static let coherenceWidth: Float = 0.4

    /// How coherent a band's channels are: `clamp((γ² − 0.5)/0.4)`.
    /// - Parameter coherence: the band's mean magnitude-squared coherence, 0…1.
    @inline(__always)
    package static func coherence(_ coherence: Float) -> Float {
        clamp((coherence - coherenceFloor) / coherenceWidth)
    }

    /// Prominence below which a band's own highest peak does not stand out among its aliases.
    package static let ambiguousProminence: Float = 0.3
    /// The factor of a band's confidence when the broadband prior picked its peak.
    package static let priorResolvedShare: Float = 0.5

    // MARK: - Coincident level cue

    /// Excess directness (see ``ArrayModel``'s coincident level cue) below which the cue earns
    /// nothing (0.2).
    package static let directnessFloor = 0.2
    /// Excess directness above ``directnessFloor`` over which the term rises to 1 (full at 0.7,
    /// about 8 dB of frame SNR over uncorrelated sensor noise for XY cardioids).
    package static let directnessWidth = 0.5
    /// Two unrelated channels of `N` independent samples reach a directness of about
    /// `1.25/√N` on average and rarely more than `3/√N`: the chance floor's scale (3).
    package static let chanceDirectnessScale = 3.0

    /// How much of the frame's power lies along one direction beyond the diffuse field's and
    /// chance's share: `clamp((e − 0.2)/0.5)`.
    /// - Parameter excess: the excess directness, ≤ 1.
    @inline(__always)
    package static func directness(_ excess: Double) -> Double {
        clamp01((excess - directnessFloor) / directnessWidth)
    }

    /// Steepness `dψ/dθ` of a coincident pair's map (radians per radian) from which the level
    /// cue is fully believed (0.3: an error of 1° in the principal angle costs at most 3.3° of
    /// azimuth; XY cardioids have 0.33…0.41, a Blumlein pair 1).
    package static let fullSteepness = 0.3

    /// How steep the coincident map is where the estimate lies: `clamp(dψ/dθ / 0.3)`.
    @inline(__always)
    package static func steepness(_ slope: Double) -> Double {
        clamp01(slope / fullSteepness)
    }

    // MARK: - Loudness (level cues)

    /// Decibels above the silence gate over which the loudness term rises from 0 to 1.
    package static let loudnessWidthDecibels = 10.0

    /// How far a level is above the silence gate: `clamp((level − gate)/10)`.
    /// - Parameters:
    ///   - levelDBFS: the level, dBFS.
    ///   - gateDBFS: the silence gate, dBFS.
    @inline(__always)
    package static func loudness(levelDBFS: Double, gateDBFS: Double) -> Double {
        clamp01((levelDBFS - gateDBFS) / loudnessWidthDecibels)
    }
}

/// `x` clamped to 0…1.
@inline(__always) func clamp(_ x: Float) -> Float { max(0, min(1, x)) }
/// `x` clamped to 0…1.
@inline(__always) func clamp01(_ x: Double) -> Double { max(0, min(1, x)) }
