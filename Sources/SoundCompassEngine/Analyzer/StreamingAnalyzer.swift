#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Cuts a stereo stream of any block size into overlapping frames, runs the estimator on each
/// and produces one ``AnalysisRecord`` per hop.
///
/// Frame `i` covers samples `i·hop ..< i·hop + frameLength`; its record's `time` is the frame
/// centre, `(i·hop + frameLength/2)/fs`. Only complete frames are analysed.
///
/// Input hygiene: NaN and ±Inf samples become 0 and samples are clamped to ±10000 (+80 dBFS), so
/// a damaged file cannot put a non-finite number into a record; ``nonFiniteSampleCount`` says
/// how many were replaced. A Mid-Side input (``ArrayModel/channelsAreMidSide``) is decoded to
/// `L = M + S`, `R = M − S` as it arrives, before anything is measured. Then a DC blocker
/// (``DCBlocker``, ``dcCutoffHertz``) removes each channel's constant offset: a recorder's
/// bias is no sound and has no direction, and left in it would read as a source ahead.
///
/// Life cycle: `init` allocates everything; ``process(left:right:emit:)`` never allocates.
public final class StreamingAnalyzer {
    /// The settings of this analysis.
    public let configuration: AnalysisConfiguration
    /// The broadband estimator.
    package let estimator: DirectionEstimator
    /// The per-band estimator (no bands: it does nothing).
    package let subbands: SubbandEstimator

    private let left: AlignedFloats
    private let right: AlignedFloats
    private var filled = 0
    private var frameStartSample = 0
    /// The record handed to `emit`, written once per frame from the frame's ``FrameResult``
    /// (kept between frames so that its arrays' storage is reused).
    private var record = AnalysisRecord()
    /// The bands' results of the current frame, in the array's frame (see ``FrameResult``).
    private var bandResults: [BandRecord]
    /// The sources' results of the current frame, in the array's frame.
    private var sourceResults: [SourceRecord] = []
    private var activity: ActivityDetector
    private let speechBand: ClosedRange<Int>
    private var tracker: AzimuthTracker
    private var tail: TailWeighting
    private var frontBack: FrontBackResolver
    /// Front/back of each tracked source (with an IMU and the source tracker).
    private var sourceFrontBack: SourceFrontBack
    /// The sources' reported confidence, as measured (``SourceConfidenceCalibration``).
    private let sourceCalibration = SourceConfidenceCalibration()
    private var headTurn = HeadTurn()
    /// True when the input is a Mid-Side pair to decode (``ArrayModel/channelsAreMidSide``).
    private let decodesMidSide: Bool
    private var blocker: DCBlocker
    /// The multi-source candidates and tracker (nil when ``AnalysisConfiguration/maxSources`` is 0).
    private let sourceCandidates: SourceCandidateFinder?
    private let sourceTracker: MultiSourceTracker?
    /// The yaw the sources of the current frame are tracked at (``SourceCandidateFinder/averageYaw``:
    /// the candidates' average lags the turn), degrees, unwrapped; nil without one.
    private var sourceYaw: Double?

    /// Device yaw over time, from an IMU: when set, every record carries ``AnalysisRecord/yaw``
    /// and front/back is resolved from the turning (see ``FrontBackResolver``). It may grow
    /// while the analysis runs.
    public let orientation: YawTimeline?

    /// Number of frames analysed so far.
    public private(set) var framesAnalyzed = 0
    /// Number of samples (per channel) taken in so far.
    public private(set) var samplesProcessed = 0
    /// Number of NaN/Inf input samples replaced by 0 so far.
    public private(set) var nonFiniteSampleCount = 0

    /// The time of the stream's first sample, seconds, added to every record's time (and used
    /// for yaw lookups): for analysing a part of a file that starts `timeOrigin` seconds in, so
    /// that records keep the file's clock. Default 0.
    public var timeOrigin = 0.0

    /// Largest magnitude a sample may have; larger ones are clamped (+80 dBFS).
    public static let sampleLimit: Float = 10_000

    /// Corner frequency of the DC blocker on both channels, Hz (−3 dB; a first-order
    /// high-pass, identical on both channels, so it leaves every level and phase difference
    /// above it as it was).
    public static let dcCutoffHertz = 10.0

    /// - Parameters:
    ///   - configuration: settings; must pass ``AnalysisConfiguration/validate()``.
    ///   - orientation: the device's yaw over time on this analysis's clock, to resolve
    ///     front/back (`nil`: none, the hemisphere stays unknown).
    public init(configuration: AnalysisConfiguration, orientation: YawTimeline? = nil) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        self.estimator = DirectionEstimator(configuration: configuration)
        self.subbands = SubbandEstimator(bands: configuration.usableBands, broadband: estimator)
        self.left = AlignedFloats(count: configuration.frameLength)
        self.right = AlignedFloats(count: configuration.frameLength)
        self.activity = ActivityDetector(configuration: configuration.activity, hopDuration: configuration.hopDuration)
        self.speechBand = FrameSpectra.bins(
            from: configuration.activity.speechBandLowHertz, to: configuration.activity.speechBandHighHertz,
            fftSize: estimator.gccPhat.fftSize, sampleRate: configuration.sampleRate)
        self.tracker = AzimuthTracker(response: configuration.response, hopDuration: configuration.hopDuration)
        self.tail = TailWeighting(decayRate: configuration.tailDecayDecibelsPerSecond, hopDuration: configuration.hopDuration)
        self.frontBack = FrontBackResolver(hopDuration: configuration.hopDuration)
        self.sourceFrontBack = SourceFrontBack(
            capacity: orientation == nil ? 0 : configuration.maxSources, hopDuration: configuration.hopDuration)
        self.orientation = orientation
        self.decodesMidSide = configuration.array.kind == .coincident && configuration.array.channelsAreMidSide
        self.blocker = DCBlocker(cutoffHertz: Self.dcCutoffHertz, sampleRate: configuration.sampleRate)
        self.bandResults = subbands.makeRecords()
        self.record.bands = bandResults
        if configuration.maxSources > 0 {
            let capacity = configuration.maxSources + 2
            self.sourceCandidates = SourceCandidateFinder(configuration: configuration, broadband: estimator, capacity: capacity)
            self.sourceTracker = MultiSourceTracker(configuration: configuration, candidateCapacity: capacity)
            self.sourceResults = MultiSourceTracker.makeRecords(capacity: configuration.maxSources)
            self.record.sources = MultiSourceTracker.makeRecords(capacity: configuration.maxSources)
        } else {
            self.sourceCandidates = nil
            self.sourceTracker = nil
        }
    }

    /// Forgets all buffered samples and counters: the next sample is time 0 again.
    public func reset() {
        filled = 0
        frameStartSample = 0
        framesAnalyzed = 0
        samplesProcessed = 0
        nonFiniteSampleCount = 0
        left.zero()
        right.zero()
        estimator.reset()
        subbands.reset()
        activity.reset()
        tracker.reset()
        tail.reset()
        frontBack.reset()
        sourceFrontBack.reset()
        sourceCalibration.reset()
        headTurn.reset()
        blocker.reset()
        sourceCandidates?.reset()
        sourceTracker?.reset()
        sourceResults.removeAll(keepingCapacity: true)
        record.sources.removeAll(keepingCapacity: true)
        sourceYaw = nil
    }

    /// Takes in a block of samples and emits the record of every frame it completes; the
    /// buffer-pointer form behind the public `Span` and array forms (see
    /// `StreamingAnalyzer+Buffers.swift`). Never allocates.
    /// - Parameters:
    ///   - left: left-channel samples (linear full scale, ±1 = 0 dBFS).
    ///   - right: right-channel samples (the same count as `left`).
    ///   - emit: called once per completed frame, in order, with the frame's record.
    package func process<E: Error>(
        left newLeft: UnsafeBufferPointer<Float>, right newRight: UnsafeBufferPointer<Float>,
        emit: (AnalysisRecord) throws(E) -> Void
    ) throws(E) {
        try process(left: newLeft, right: newRight) { (record, _) throws(E) in try emit(record) }
    }

    /// Takes in a block of samples like ``process(left:right:emit:)``, and also hands `emit`
    /// each frame's broadband estimate, with every cue as measured (no profile offset
    /// removed): what a calibration fits. Never allocates.
    /// - Parameters:
    ///   - left: left-channel samples (linear full scale, ±1 = 0 dBFS).
    ///   - right: right-channel samples (the same count as `left`).
    ///   - emit: called once per completed frame, in order, with the frame's record and the
    ///     broadband estimate behind it.
    package func process<E: Error>(
        left newLeft: UnsafeBufferPointer<Float>, right newRight: UnsafeBufferPointer<Float>,
        emitWithEstimate emit: (AnalysisRecord, FrameEstimate) throws(E) -> Void
    ) throws(E) {
        precondition(newLeft.count == newRight.count, "channel blocks differ in length")
        let frameLength = configuration.frameLength
        let hop = configuration.hopLength
        var index = 0
        let count = newLeft.count
        while index < count {
            let take = min(frameLength - filled, count - index)
            let l = left.baseAddress + filled, r = right.baseAddress + filled
            sanitize(newLeft, from: index, count: take, into: l)
            sanitize(newRight, from: index, count: take, into: r)
            if decodesMidSide {
                // Mid-Side: the channels are M and S; the pair is L = M + S, R = M − S.
                for i in 0..<take {
                    let mid = l[i], side = r[i]
                    l[i] = mid + side
                    r[i] = mid - side
                }
            }
            blocker.filter(left: l, right: r, count: take)
            subbands.append(left: l, right: r, count: take)
            filled += take
            index += take
            samplesProcessed += take
            if filled == frameLength {
                let (record, estimate) = analyzeFrame()
                try emit(record, estimate)
                // Keep the overlap for the next frame.
                let keep = frameLength - hop
                if keep > 0 {
                    left.baseAddress.update(from: left.baseAddress + hop, count: keep)
                    right.baseAddress.update(from: right.baseAddress + hop, count: keep)
                }
                subbands.advance(hop: hop)
                filled = keep
                frameStartSample += hop
            }
        }
    }

    /// Copies `count` samples from `source[start...]` to `target`, NaN and ±Inf as 0 (counted),
    /// the rest clamped to ±``sampleLimit``: eight samples at a time while none is
    /// non-finite.
    private func sanitize(_ source: UnsafeBufferPointer<Float>, from start: Int, count: Int, into target: UnsafeMutablePointer<Float>) {
        guard count > 0, let base = source.baseAddress else { return }
        let input = UnsafeRawPointer(base + start)
        let high = SIMD8<Float>(repeating: Self.sampleLimit), low = -high
        var i = 0
        while i + 8 <= count {
            let x = input.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            // x − x is 0 for a finite x and NaN for NaN and ±Inf.
            guard all((x - x) .== SIMD8<Float>()) else { break }
            let clamped = x.replacing(with: high, where: x .> high).replacing(with: low, where: x .< low)
            UnsafeMutableRawPointer(target + i).storeBytes(of: clamped, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            let x = base[start + i]
            if x.isFinite {
                target[i] = max(-Self.sampleLimit, min(Self.sampleLimit, x))
            } else {
                target[i] = 0
                nonFiniteSampleCount += 1
            }
            i += 1
        }
    }

    /// Analyses the frame in the buffers: each stage in turn, every stage's output kept in the
    /// frame's ``FrameResult``, then the record written once.
    /// - Returns: the frame's record and the broadband estimate behind it.
    private func analyzeFrame() -> (AnalysisRecord, FrameEstimate) {
        let config = configuration
        // 1. The broadband measurement: levels, GCC-PHAT (its correlation rides in the spectra's
        //    view), the two cues and their confidence; the direction is fused once, in 3.
        var (estimate, spectra) = estimator.measure(
            left: UnsafeBufferPointer(start: left.baseAddress, count: config.frameLength),
            right: UnsafeBufferPointer(start: right.baseAddress, count: config.frameLength))
        var frame = FrameResult(estimate: estimate)
        frame.frame = framesAnalyzed
        frame.time = timeOrigin + (Double(frameStartSample) + Double(config.frameLength) / 2) / config.sampleRate
        // 2. Activity against the learned floor; until the phase consistency has a few frames of
        //    history, a confident time cue stands in for it.
        frame.active = activity.update(
            levelDBFS: estimate.levels.levelDBFS,
            speechBandLevelDBFS: spectra.levelDBFS(bins: speechBand),
            consistency: estimate.delay.consistency.map(Double.init) ?? estimate.fused.confidence,
            aboveGate: estimate.aboveGate)
        frame.noiseFloorDBFS = activity.floorDBFS
        // 3. The bands (their records; a measured head reads the time cue's direction from the
        //    broadband and the bands' delays together, against its own tables), then the
        //    frame's one fusion of the two cues' directions.
        subbands.estimate(spectra: spectra, broadband: estimate, active: frame.active, into: &bandResults)
        let headLateral = config.array.measuredHead.flatMap { head in
            head.lateral(
                broadband: (estimate.delay.lagSamples / config.sampleRate, estimate.lowFrequencyShare ?? 0,
                            Double(estimate.delay.confidence)),
                levelDBFS: estimate.levels.levelDBFS, bands: subbands.measurements,
                delayOffsetSeconds: config.array.delayOffsetSeconds,
                outlierSpanSeconds: 2 * config.array.lagWindowSeconds, gateDBFS: config.silenceGateDBFS)
        }
        estimator.fuse(&estimate, timeLateral: headLateral)
        frame.estimate = estimate
        frame.tailWeight = tail.weight(levelDBFS: estimate.levels.levelDBFS)
        // A frame active by the speech band alone holds speech below 1 kHz under noise that
        // rules the rest of the spectrum: its broadband bearing is mostly the noise's.
        let evidenceWeight = activity.activeByBandOnly ? min(1, max(0, config.activity.speechBandOnlyWeight)) : 1
        frame.confidence = frame.active ? estimate.fused.confidence * frame.tailWeight * evidenceWeight : 0
        // 4. With an IMU, the listener's own turning moves a source of known hemisphere across
        //    the array: the shift the broadband tracker is told (the hemisphere as known before
        //    this frame). The multi-source tracker takes the yaw and moves each source in its own.
        frame.yaw = orientation?.yaw(at: frame.time)
        frame.shift = frame.yaw.map { headTurn.shift(yaw: $0, hemisphere: frontBack.expectedHemisphere(yaw: $0)) }
            ?? headTurn.shift(yaw: nil, hemisphere: .unknown)
        // 5. Several sources: the frame's candidate directions into the multi-source tracker
        //    (before the broadband tracker, which may take the onset average's bearing).
        if let sourceCandidates, let sourceTracker {
            sourceCandidates.update(
                spectra: spectra, levelDBFS: estimate.levels.levelDBFS, aboveGate: estimate.aboveGate,
                weight: frame.tailWeight, yaw: frame.yaw)
            // The candidates come from correlations averaged over the source window: they place
            // each source as heard at the yaw averaged alike, which lags a turning head by about
            // the window. The tracker's turn prediction and each source's front/back take that yaw.
            sourceYaw = sourceCandidates.averageYaw
            sourceCandidates.find(lowFrequencyShare: estimate.lowFrequencyShare)
            sourceTracker.update(
                candidates: sourceCandidates.candidates, count: sourceCandidates.count,
                averageLevelDBFS: sourceCandidates.averageLevelDBFS, yaw: sourceYaw, into: &sourceResults)
            // Each source's own front/back, from a histogram of the candidates' world bearings;
            // the tracker moves each source by the next frames' turning in its own hemisphere.
            if orientation != nil {
                sourceFrontBack.update(
                    yaw: sourceYaw, active: frame.active, candidates: sourceCandidates.candidates,
                    count: sourceCandidates.count, sources: sourceResults,
                    heardAzimuths: sourceTracker.heardAzimuths, heardShares: sourceTracker.heardShares)
                for i in 0..<min(sourceResults.count, sourceFrontBack.hemispheres.count) {
                    sourceTracker.setHemisphere(sourceFrontBack.hemispheres[i], ofSourceWithID: sourceResults[i].id)
                }
            }
        }
        // 6. The broadband tracker. A frame that is active but whose own bearing carries no
        //    confidence (noise as loud as the source rules most of its bins) hands the tracker
        //    the bearing of the candidates' onset average instead, gated (see OnsetBearing).
        //    Not with an IMU: the average places a source where it was heard over the last
        //    0.3 s, behind a turning head, which the tracker's known shift already follows.
        let rawAzimuth = estimate.azimuthDegrees
        var measurement = rawAzimuth, measurementConfidence = frame.confidence, gate: Double? = nil
        if orientation == nil, frame.active, frame.confidence < AzimuthTracker.minimumConfidence,
           let bearing = sourceCandidates?.onsetBearing {
            measurement = bearing
            measurementConfidence = OnsetBearing.confidence
            if tracker.isTracking { gate = OnsetBearing.gateDegrees }
        }
        let tracked = tracker.update(
            measurement: measurement, confidence: measurementConfidence, shift: frame.shift, gate: gate)
        frame.trackedAzimuth = tracker.isTracking ? tracked : rawAzimuth
        frame.lateral = tracker.isTracking ? sin(frame.trackedAzimuth * Double.pi / 180) : estimate.fused.lateral
        // 7. Front/back, from the turning (without an IMU the hemisphere stays unknown).
        frame.frontBack = orientation == nil
            ? FrontBackResolver.Resolution(hemisphere: .unknown, azimuth: frame.trackedAzimuth)
            : frontBack.update(
                time: frame.time, yaw: frame.yaw, measurement: rawAzimuth, confidence: frame.confidence,
                tracked: frame.trackedAzimuth)
        // 8. The record, written once.
        write(frame)
        framesAnalyzed += 1
        return (record, estimate)
    }

    /// Writes the frame's record from its result and the bands' and sources' results.
    private func write(_ frame: FrameResult) {
        let config = configuration, estimate = frame.estimate
        record.frame = frame.frame
        record.time = frame.time
        record.rawAzimuth = estimate.azimuthDegrees
        record.azimuth = frame.frontBack.azimuth
        record.lateral = frame.lateral
        record.confidence = frame.confidence
        record.hemisphere = frame.frontBack.hemisphere
        // The cues as the array model sees them: with a calibration profile's hardware offsets
        // removed (both are 0 by default).
        record.ildDecibels = estimate.levels.ildDecibels - config.array.gainOffsetDecibels
        record.itdMicroseconds = (estimate.delay.lagSamples / config.sampleRate - config.array.delayOffsetSeconds) * 1e6
        record.levelDBFS = estimate.levels.levelDBFS
        record.active = frame.active
        record.itdConfidence = estimate.timeCue.confidence
        record.ildConfidence = estimate.levelCue.confidence
        record.dominantHz = frame.active ? estimate.dominantFrequency : 0
        record.noiseFloorDBFS = frame.noiseFloorDBFS
        record.yaw = orientation == nil ? nil : frame.yaw.map(YawTimeline.wrap)
        record.worldAzimuth = frame.worldAzimuth(frame.frontBack.azimuth)
        // A band's name and edges never change: only what the frame measured is copied.
        for i in bandResults.indices {
            let band = bandResults[i]
            record.bands[i].azimuth = frame.resolved(band.azimuth)
            record.bands[i].confidence = band.confidence
            record.bands[i].levelDBFS = band.levelDBFS
            record.bands[i].loudest = band.loudest
        }
        record.sources.removeAll(keepingCapacity: true)
        for (i, source) in sourceResults.enumerated() {
            var resolved = source
            var hemisphere = orientation == nil ? Hemisphere.unknown : sourceFrontBack.hemispheres[i]
            var lateral = source.azimuth
            // Tracked at the candidates' (lagging) yaw: moved by the turn since then to where
            // the source is heard at the frame's yaw, in its hemisphere (unknown: unmoved).
            if let yaw = frame.yaw, let sourceYaw, yaw != sourceYaw {
                (lateral, hemisphere) = MultiSourceTracker.turned(lateral, hemisphere: hemisphere, by: yaw - sourceYaw)
            }
            resolved.hemisphere = hemisphere
            resolved.azimuth = frame.resolved(lateral, hemisphere: hemisphere)
            resolved.worldAzimuth = frame.worldAzimuth(resolved.azimuth, hemisphere: hemisphere)
            record.sources.append(resolved)
        }
        sourceCalibration.calibrate(&record.sources, time: record.time, frameLevelDBFS: record.levelDBFS)
    }
}
