#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The bearing of the onset average's highest peak: what the broadband tracker takes in a frame
/// whose own bearing carries no confidence.
///
/// In noise as loud as a talker (a diffuse field at 0 dB, a room at 0 dB SNR), the frame's
/// GCC-PHAT weighs every bin alike, and most of the bins are the noise's: off the median plane
/// only 1–13 % of a talker's frames carry a bearing (`evaluate.py --diffuse-field`), and the
/// broadband tracker coasts through the rest. The source candidates' onset average
/// (``ExcessAverage/onsetAverage``) keeps, over the source window, only the bins that stand
/// above their stationary floor at an onset: there the talker's direct sound stands out of the
/// noise, and its peak is the talker's. The bearing is read from the same correlation averaged
/// over 0.3 s whatever `--source-window` is (``ExcessAverage/bearingAverage``).
///
/// It is read only when it is worth reading:
/// - new sound is arriving now (the test of ``ExcessCandidateSearch/hearsNewSound``, on the
///   bearing's own averages): without it, the average's memory of a talker who has just
///   stopped moved a moving talker's track (RT60 0.6 s) from 4.3° to 5.2°;
/// - the peak holds at least ``leastHeight`` of the frames' weight: a steady noise's random
///   "onsets" average to 0.020–0.029 (a white noise at RT60 0.6 s), a talker's 0.034 and more
///   at 0 dB;
/// - the peak is sharp enough for its bins to reach above ``leastFrequencyHertz`` on average:
///   a correlation of the bins below 1 kHz alone (a talker in white noise, which buries the
///   rest) is wide, and the talker's own reverberation, coherent there, pulls its peak towards
///   0° (14° at ±60°). The second difference of a peak of RMS frequency `f` is
///   `2·(1 − cos 2πf/fs)` of its height.
///
/// The height and the shares are read per unit of the weight's share at or below ``bandHertz``
/// (``ExcessAverage/bearingBandShare``), so that they mean at any rate what they mean at 16 kHz,
/// where they were set. Speech holds little above 8 kHz, and at 48 kHz two thirds of the bins
/// lie there: a talker's peak read lower (espeak: 0.028 against 0.052 at 16 kHz; real speech
/// recordings: 0.008 of the whole weight), and few frames took the bearing (Docs/Accuracy.md,
/// "At 48 kHz").
///
/// The tracker takes the bearing at ``confidence`` (a measurement standard deviation of 6.7°),
/// only within ``gateDegrees`` of its track, and for its position only: the average spans
/// 0.3 s, and at RT60 0.6 s its peak can sit on a reflection for a while; ungated, such runs
/// dragged a moving talker's track 10–15° off (`evaluate.py`, moving speech at RT60 0.6 s), and
/// letting it move the tracked rate cost the talker at RT60 0.6 s, 10 dB 0.3°. Outside the gate
/// it supports a challenger at half its confidence (``AzimuthTracker/gatedChallengerShare``),
/// so that a track started on a wrong frame is corrected.
///
/// Not read with an IMU log (the average places a source where it was heard over the last
/// 0.3 s, behind a turning head), nor without the search beside steady sources (a coincident
/// pair, `--max-sources 0`).
package enum OnsetBearing {
    /// Least height of the onset average's peak (a share of the frames' weight `Σ|G|` at or
    /// below ``bandHertz``).
    package static let leastHeight: Float = 0.03
    /// Upper edge of the band whose share of the weight the heights and shares are read per unit
    /// of, Hz: the Nyquist frequency of 16 kHz, the rate at which they were set.
    package static let bandHertz = 8000.0
    /// The least band share divided by: a sound with nearly all its weight above ``bandHertz``
    /// is not raised more than tenfold.
    static let leastBandShare: Float = 0.1
    /// Least RMS frequency of the peak's bins, Hz (a second difference of 0.255 of the height at
    /// 16 kHz).
    package static let leastFrequencyHertz = 1300.0
    /// Confidence the broadband tracker gives the bearing, 0…1 (its threshold is 0.2).
    package static let confidence = 0.3
    /// The tracker takes the bearing only this close to its track, degrees.
    package static let gateDegrees = 20.0

    /// The lag of the onset average's highest peak, samples (``parabolicPeakOffset(_:_:_:)``
    /// between whole lags), or nil when it is too low or too wide (see the type's notes). Never
    /// allocates.
    /// - Parameters:
    ///   - averages: the excess averages.
    ///   - sampleRate: Hz.
    package static func lag(of averages: ExcessAverage, sampleRate: Double) -> Double? {
        // Heights and shares per unit of the weight below 8 kHz (1 at 16 kHz).
        let band = max(averages.bearingBandShare, leastBandShare)
        // New sound arriving now, not only the memory of it (the excess search's test, on the
        // bearing's own averages).
        guard ExcessCandidateSearch.hearsNewSound(
            newSoundShare: averages.bearingNewSoundShare / Double(band),
            recentNewSoundShare: averages.recentNewSoundShare / Double(band),
            onsetShare: averages.bearingOnsetShare)
        else { return nil }
        let K = averages.searchLag
        let a = averages.bearingAverage.baseAddress
        var best = 0
        for i in 1...(2 * K) where a[i] > a[best] { best = i }
        guard best > 0, best < 2 * K, a[best] >= leastHeight * band else { return nil }
        let l = Double(a[best - 1]), c = Double(a[best]), r = Double(a[best + 1])
        let curvature = l - 2 * c + r
        let leastCurvature = 2 * (1 - cos(2 * Double.pi * leastFrequencyHertz / sampleRate))
        guard -curvature >= leastCurvature * c else { return nil }
        return Double(best - K) + parabolicPeakOffset(l, c, r)
    }
}
