#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Per-band directions: "speech on my left, traffic on my right".
///
/// Each band has a pair of biquads (RBJ cookbook high-pass and low-pass at the band edges,
/// TDF-II, see `BandFilterBank`) on both channels, run on the stream as it arrives; per frame
/// it gives the band's level (dBFS), level difference and (coincident) covariance. The band's time difference is GCC-PHAT restricted to the band's bins of
/// the frame's weighted cross-spectrum (``GCCPHAT/estimateBand(_:firstBin:lastBin:prior:scratch:)``),
/// with the broadband lag as a prior for bands above the spatial-aliasing limit. The two cues
/// are fused by the array model as for the broadband estimate; a band quieter than the silence
/// gate, or in an inactive frame, has no confidence.
///
/// Life cycle: `init` allocates; per-frame calls never allocate.
package final class SubbandEstimator {
    /// The bands analysed (already limited to 0.45·fs).
    package let bands: [BandSpec]
    private let bank: BandFilterBank
    /// The broadband estimator whose frames' spectra the bands' time differences come from.
    private let gccPhat: GCCPHAT
    /// This estimator's own working memory for the bands' correlations.
    private let scratch: BandCorrelationScratch
    private let configuration: DirectionEstimator.Configuration
    private let binRanges: [(first: Int, last: Int)]
    /// Each band's table for its correlation at the searched lags (nil where an inverse FFT is
    /// cheaper, see ``BandLagBasis``).
    private let lagBases: [BandLagBasis?]
    /// Bands whose upper edge is above the spatial-aliasing limit `1/(2·maxDelay)`.
    private let aliased: [Bool]
    /// The binaural model's low-frequency share of each bin (nil for the other models).
    private let binShares: AlignedFloats?
    /// Independent samples in a band's frame, `2·bandwidth·frame duration` (coincident level cue).
    private let degreesOfFreedom: [Double]
    /// What each band measured in the last ``estimate(spectra:broadband:active:into:)``, in
    /// order (what a measured head's tables are built from: ``MeasuredHead``).
    package private(set) var measurements: [CueMeasurements]

    /// - Parameters:
    ///   - bands: the bands; those above 0.45·fs must already be dropped.
    ///   - broadband: the broadband estimator whose frames' spectra
    ///     ``estimate(spectra:broadband:active:into:)`` is given (its settings are the bands'; its
    ///     GCC-PHAT's FFT size sets the bands' bin ranges; its binaural bin shares are read, not
    ///     built again).
    package init(bands: [BandSpec], broadband: DirectionEstimator) {
        let configuration = broadband.configuration
        let fs = configuration.sampleRate
        let gccPhat = broadband.gccPhat
        let fftSize = gccPhat.fftSize
        self.gccPhat = gccPhat
        self.scratch = BandCorrelationScratch(fftSize: fftSize)
        self.bands = bands
        self.configuration = configuration
        self.bank = BandFilterBank(bands: bands, sampleRate: fs, frameLength: configuration.frameLength)
        self.binRanges = bands.map { band in
            (Int((band.low / fs * Double(fftSize)).rounded(.up)), Int((band.high / fs * Double(fftSize)).rounded(.down)))
        }
        self.lagBases = binRanges.map { range in
            BandLagBasis(firstBin: range.first, lastBin: range.last, fftSize: fftSize, largestLag: gccPhat.searchLag + 1)
        }
        let aliasingLimit = 1 / (2 * configuration.array.maximumDelaySeconds)
        self.aliased = bands.map { $0.high > aliasingLimit }
        self.binShares = broadband.binShares
        let frameDuration = Double(configuration.frameLength) / fs
        self.degreesOfFreedom = bands.map { max(1, 2 * (min($0.high, fs / 2) - $0.low) * frameDuration) }
        self.measurements = [CueMeasurements](
            repeating: CueMeasurements(
                delaySeconds: 0, lowFrequencyShare: nil, timeConfidence: 0, levelDBFS: 0, leftRMS: 0, rightRMS: 0,
                levelDifferenceDecibels: 0, levelFrequencyHz: 0, levelCoherence: nil, covariance: .zero, degreesOfFreedom: 1),
            count: bands.count)
    }

    /// Filters `count` new samples into the bands' current frame (see ``BandFilterBank/append(left:right:count:)``).
    package func append(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) {
        bank.append(left: left, right: right, count: count)
    }

    /// Moves the bands' full frame on by `hop` samples (see ``BandFilterBank/advance(hop:)``).
    package func advance(hop: Int) { bank.advance(hop: hop) }

    /// Clears the filters' state and the band frames.
    package func reset() { bank.reset() }

    /// Fills `records` (one per band, in order) for the current frame.
    /// - Parameters:
    ///   - spectra: this frame's spectra, from the broadband estimate of this frame by the
    ///     estimator given at `init`.
    ///   - broadband: this frame's broadband estimate.
    ///   - active: whether the frame is active; an inactive frame's bands get no confidence
    ///     and no loudest band.
    ///   - records: `bands.count` records, updated in place.
    @inline(never)  // a stage of its own in Benchmarks/profile.py
    package func estimate(spectra: FrameSpectra, broadband: FrameEstimate, active: Bool, into records: inout [BandRecord]) {
        let config = configuration
        let model = config.array
        let fs = config.sampleRate
        let prior = broadband.timeCue.confidence >= ConfidenceMapping.confidentToGuide ? broadband.delay.lagSamples : nil
        var loudest: Int?
        var loudestLevel = -Double.infinity
        for i in bands.indices {
            let band = bands[i]
            let levels = bank.levels(i)
            let level = levels.levelDBFS
            let bandPrior = aliased[i] ? prior : nil
            let delay = lagBases[i].map { gccPhat.estimateBand(spectra, basis: $0, prior: bandPrior, scratch: scratch) }
                ?? gccPhat.estimateBand(
                    spectra, firstBin: binRanges[i].first, lastBin: binRanges[i].last, prior: bandPrior, scratch: scratch)
            let firstBin = max(1, binRanges[i].first)
            let bins = firstBin...max(firstBin, min(gccPhat.fftSize / 2 - 1, binRanges[i].last))
            // The level cue counts for a coincident pair, and for a head above 1.5 kHz (its
            // shadow); binaural: the band's level difference read at its geometric centre.
            let usesLevel = model.kind == .coincident
                || (model.kind == .binaural && band.low >= DirectionEstimator.highFrequencyEdge)
            let measured = CueMeasurements(
                delaySeconds: delay.lagSamples / fs,
                lowFrequencyShare: binShares.map { spectra.lowFrequencyShare(shares: $0.baseAddress, bins: bins, lagSamples: delay.lagSamples) },
                timeConfidence: Double(delay.confidence), levelDBFS: level,
                leftRMS: levels.leftRMS, rightRMS: levels.rightRMS, levelDifferenceDecibels: levels.ildDecibels,
                levelFrequencyHz: model.kind == .binaural ? (band.low * band.high).squareRoot() : 0,
                levelCoherence: usesLevel ? Double(ConfidenceMapping.coherence(delay.coherence)) : nil,
                covariance: model.kind == .coincident ? bank.covariance(i) : .zero,
                degreesOfFreedom: degreesOfFreedom[i], estimateIndex: i + 1)
            measurements[i] = measured
            var fused = CueFusion.fuse(measured, model: model, gateDBFS: config.silenceGateDBFS).fused
            let audible = active && level >= config.silenceGateDBFS
            if !audible { fused.confidence = 0 }
            records[i].azimuth = ArrayModel.azimuthDegrees(lateral: fused.lateral)
            records[i].confidence = fused.confidence
            records[i].levelDBFS = level
            records[i].loudest = false
            if audible && level > loudestLevel {
                loudestLevel = level
                loudest = i
            }
        }
        if let loudest { records[loudest].loudest = true }
    }

    /// Empty records for the bands (name and edges filled).
    package func makeRecords() -> [BandRecord] {
        bands.map { BandRecord(name: $0.name, lowHz: $0.low, highHz: $0.high, azimuth: 0, confidence: 0, levelDBFS: AnalysisRecord.silenceDBFS) }
    }
}
