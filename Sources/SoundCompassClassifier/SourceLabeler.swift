import SoundCompassEngine
import SoundCompassIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names what each tracked source is: the stream resampled to 16 kHz, YAMNet's spectra of both
/// channels kept for the last 0.96 s, and every 0.48 s each heard source's own patch, made of
/// the time-frequency bins that point at it, classified.
///
/// **Where a bin points.** For a far source at bearing θ the right channel lags the left by
/// `τ(θ)` (``ArrayModel/delay(lateral:)``), so bin k's cross-spectrum `L·R*` has phase `ωₖ·τ(θ)`.
/// In a room a steady sound's bins carry the phase of the room's transfer functions, not the
/// direct path's; only the first frames after an onset carry the direct path (the precedence
/// effect). So each bin keeps, frame by frame, the evidence of its onsets:
/// - an **onset** is a frame whose power exceeds ``onsetRise`` times the bin's recent peak (a
///   peak envelope that falls by ``onsetEnvelopeDecay`` per frame);
/// - the onsets of one frame are **pooled**: the delay that best fits them all (the peak of
///   their power-weighted cross-correlation, ``delayGridCount`` delays across the array's lag
///   window) is the frame's **onset delay**, and each onset bin whose phase agrees with it
///   (within 90°) holds that delay: spatial aliasing, which makes a single bin's phase fit
///   several bearings, does not reach a delay read from many bins at once;
/// - a bin **holds** its delay while the sound goes on: the evidence decays by
///   ``evidenceDecay`` per frame and is kept at most ``evidenceCeiling`` times the bin's power,
///   a stronger onset replaces it, a weaker one is averaged in, and it is let go when the bin's
///   power falls ``releaseShare`` (−15 dB) below its peak since (the sound has ended);
/// - onsets that disagree with the frame's onset delay are held as phase, and a bin without
///   held onsets falls back on its current phase (weight ``currentPhaseWeight``).
///
/// **The mask.** A bin that holds a delay goes to the heard source whose delay is nearest, if
/// it is within ``delayTolerance`` of the array's largest delay (else to none: a sound the
/// tracker does not list); any other bin to the heard source whose expected phase is nearest
/// its direction (the largest `cos(φₖ − ωₖτ)`), unless another heard source's expected phase
/// is within ``ambiguitySine`` of it there (spatial aliasing: then to none). A source's patch is
/// the mixture's magnitude in its bins and, elsewhere, at most ``rejectedBinGain`` (−30 dB) of
/// the RMS of its own bins in that frame (a low floor with no holes, which does not carry the
/// other sources' structure), scaled so that its loud frames sit at ``patchLevel``, then mel and
/// log as YAMNet's front end. A lone heard source is classified on the unmasked mixture (scaled
/// the same way): no mask can make it read better than the signal itself. With two or more
/// heard, the scaled unmasked mixture is classified beside their masked patches, in the same
/// batch, for the record's own label. With none heard the whole mixture is classified as it is
/// (silence stays silence). A coincident pair has no delay to go by: each source gets the
/// scaled mixture.
///
/// **A label is a property of a track.** Each source's class scores are pooled over its
/// patches (the first two averaged, then each new patch weighs 1/``poolPatches``: a 1.44 s time
/// constant), and a name keeps its place until another's pooled score exceeds its own by
/// ``switchMargin`` (hysteresis). A source carries a label, and can raise an alert, only once it
/// has been heard in ``establishedPatches`` patch rounds (a track that lives less than about
/// 0.5 s, such as a reflection's or a ghost's, carries none); a label scoring under
/// ``minimumLabelScore`` is withheld. A source the tracker lists under a new id within
/// ``inheritDegrees`` of a labelled source it no longer lists, heard within ``inheritSeconds``,
/// takes that source's pooled scores (the tracker often gives a steady sound in a room a new
/// id). The record's ``AnalysisRecord/label`` is the unmasked mixture's (pooled the same way)
/// when two or more sources are heard, the lone heard source's when one is, and the unscaled
/// mixture's when none is.
///
/// Life cycle: `init` allocates everything; ``append(left:right:)`` and ``label(_:emit:)``
/// never allocate.
public final class SourceLabeler: RecordLabeler {
    /// The classifier.
    public let classifier: SoundClassifier
    /// The analysis's settings (sample rate, array).
    public let configuration: AnalysisConfiguration
    /// Patches classified so far (sources and mixture).
    public private(set) var patchesClassified = 0
    /// Patches of a lone heard source classified on the unmasked mixture (see
    /// ``maximumForeignShare``), so far.
    public private(set) var unmaskedLonePatches = 0
    /// Patch rounds skipped because the worker was still classifying the one before (with
    /// `asynchronous` only), so far.
    public private(set) var roundsSkipped = 0
    /// Patch rounds at which nothing was classified because every heard track was steady and
    /// classified at the round before (``isDue(id:)``), so far.
    public private(set) var roundsRested = 0

    private static let bins = LogMelFrontEnd.binCount
    /// Bins rounded up to whole SIMD vectors of 8: the per-bin arrays' stride (the bins past
    /// 257 stay zero).
    private static let stride = (bins + 7) / 8 * 8
    private static let frames = YAMNet.patchFrames
    private static let hop = YAMNet.patchFrames / 2
    private typealias V = SIMD8<Float>

    // MARK: - Constants

    /// A bin's frame is an onset when its power `(|L|²+|R|²)/2` exceeds this many times the
    /// bin's recent peak (4.8 dB); the onset's weight is the excess. The build-up of a room's
    /// reverberation after an onset rises more slowly and is not taken for one.
    public static let onsetRise: Float = 3
    /// Per frame (10 ms), the factor by which a bin's peak envelope falls (−0.7 dB).
    public static let onsetEnvelopeDecay: Float = 0.85
    /// Per frame, the factor by which a bin's held onset evidence decays (1 s time constant).
    public static let evidenceDecay: Float = 0.99
    /// A bin's held evidence is at most this many times its current power (15 dB): when the
    /// sound that made the onset fades, so does its evidence.
    public static let evidenceCeiling: Float = 30
    /// A bin lets go of its held delay when its power falls this far below its peak since the
    /// delay was taken (−15 dB): the sound that made the onset has ended, and what follows in
    /// that bin (a talker after a siren's tone) is judged afresh.
    public static let releaseShare: Float = 0.03
    /// The weight of a bin's current phase, times its power, beside its held phase evidence.
    public static let currentPhaseWeight: Float = 0.1
    /// Delays tried for a frame's pooled onset delay, evenly across ±1.05 times the array's lag
    /// window (``ArrayModel/lagWindowSeconds``; 14 µs apart for a 15 cm pair).
    public static let delayGridCount = 65
    /// A bin holding a delay goes to no source when the nearest heard source's delay is further
    /// than this share of the array's largest delay (±11.5° at the front of a spaced pair).
    public static let delayTolerance: Float = 0.2
    /// A bin decided by phase goes to no source when two heard sources' expected phases there
    /// differ by less than `2·asin(0.2)` (±23°) modulo 2π, above the frequency where they
    /// first part (where they differ by more than π): spatial aliasing.
    public static let ambiguitySine: Float = 0.2
    /// The magnitude of a bin that is not a source's, in that source's patch, at most: this
    /// share (−30 dB) of the RMS over all bins of the source's own bins in that frame (and never
    /// more than the mixture's). Neither a zero (`log(0.001)` after mel: between a tone's
    /// harmonics holes make YAMNet hear a telephone or a doorbell) nor a share of the mixture
    /// (which carries the other sources' structure: a siren's partials 20–40 dB above a talker
    /// stayed above the talker at −30 dB, and the talker read as "Music").
    public static let rejectedBinGain: Float = 0.03
    /// The level a source's patch is scaled to before it is classified: the 90th percentile of
    /// its frames' power `Σₖ|Xₖ|²` (the 257 bins of YAMNet's unnormalised 512-point FFT of a
    /// 400-sample Hann-windowed frame at 16 kHz), 10^4.5 (45 dB; white noise of RMS 0.91 has
    /// this power). YAMNet's scores depend on level (AudioSet's clips are loud), and a masked
    /// patch keeps only part of its source's energy: normalising makes a source's label
    /// independent of the recording's gain and of how much of its energy the mask kept.
    public static let patchLevel: Float = 31_622.8
    /// The largest gain (magnitude) ``patchLevel`` may apply: +30 dB.
    public static let maximumLevelGain: Float = 31.62
    /// A label whose best reported score is below this is withheld (`null`) unless it alerts:
    /// see ``reported(_:)``.
    public static let minimumLabelScore: Double = 0.1
    /// A lone heard source is classified on the unmasked mixture unless more than this share of
    /// the patch's energy lies in bins holding onsets far from it (a louder sound the tracker
    /// does not list); then on its one-source mask.
    static let maximumForeignShare: Float = 0.5
    /// A source's pooled class scores: the first two patches averaged, then each new patch
    /// weighs 1/3 (an exponential average with a time constant of 3 patches, 1.44 s).
    static let poolPatches: Float = 3
    /// A source is labelled, and can alert, once it has been heard in this many patch rounds
    /// (0.48 s apart, none of them more than ``inheritSeconds`` after the one before): its first
    /// label comes 0.5–1 s after its onset, and a track that lives less (a reflection's, a
    /// ghost's) carries none.
    static let establishedPatches = 2
    /// The name a source reports keeps its place until another name's pooled score is this many
    /// times its own (hysteresis: two classes scoring alike do not trade places every patch).
    static let switchMargin: Float = 1.25
    /// A track whose best name has held for this many rounds in a row is classified every other
    /// round (see ``isDue(id:)``).
    static let steadyRounds = 3
    /// ... and whose best name's pooled score is at least this.
    static let steadyScore = 0.5
    /// A new source within this many degrees of a labelled source no longer listed takes its
    /// label and scores.
    public static let inheritDegrees = 20.0
    /// How recent (seconds) a label must be to be inherited by a new source, or averaged with
    /// the next patch's: four patch hops.
    public static let inheritSeconds = 1.92

    private let frontEnd = LogMelFrontEnd()
    private let resampler: Resampler
    private let clean: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)
    /// 16 kHz samples waiting to fill a window.
    private let pending: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)
    private let pendingCapacity: Int
    private var pendingCount = 0
    /// Both channels' spectra of the latest frame, interleaved complex (``stride`` bins).
    private let spectrumLeft: UnsafeMutablePointer<Float>, spectrumRight: UnsafeMutablePointer<Float>
    /// The last 96 frames, in rings of ``stride`` bins a frame: per bin the mixture's magnitude
    /// (RMS of the channels), its direction (a unit vector, re and im: the held phase evidence
    /// plus the current phase) and the delay it holds (seconds; NaN when it holds none).
    private let magnitudes: UnsafeMutablePointer<Float>
    private let directionRe: UnsafeMutablePointer<Float>, directionIm: UnsafeMutablePointer<Float>
    private let heldDelays: UnsafeMutablePointer<Float>
    private var ringHead = 0, framesStored = 0, framesSincePatch = 0

    /// Per bin: the peak envelope of its power, its held phase evidence (re, im, weight), its
    /// held delay, that delay's weight and the bin's peak power since the delay was taken.
    private let envelope: UnsafeMutablePointer<Float>
    private let phaseRe: UnsafeMutablePointer<Float>, phaseIm: UnsafeMutablePointer<Float>
    private let phaseWeight: UnsafeMutablePointer<Float>
    private let delayHeld: UnsafeMutablePointer<Float>
    private let delayWeight: UnsafeMutablePointer<Float>
    private let heldPeak: UnsafeMutablePointer<Float>
    /// Scratch for one frame: per bin power, unit cross-spectrum (re, im), onset weight; the
    /// onset bins.
    private let framePowerScratch: UnsafeMutablePointer<Float>
    private let unitRe: UnsafeMutablePointer<Float>, unitIm: UnsafeMutablePointer<Float>
    private let onsetWeight: UnsafeMutablePointer<Float>
    private let onsetBins: UnsafeMutablePointer<Int32>
    /// The delays tried for a frame's onsets (seconds), `cos` and `sin` of `ωₖ·τ` for each
    /// (bin-major: ``gridStride`` delays a bin) and the fit of each.
    private let gridDelays: UnsafeMutablePointer<Float>
    private let gridCos: UnsafeMutablePointer<Float>, gridSin: UnsafeMutablePointer<Float>
    private let gridFit: UnsafeMutablePointer<Float>
    private static let gridStride = (delayGridCount + 7) / 8 * 8
    /// The largest distance (seconds) between a held delay and its source's.
    private let toleranceSeconds: Float

    /// The sources of the latest record.
    private let capacity: Int
    private var sourceCount = 0
    private var sourceIDs: [Int], sourceLateral: [Double], sourceAzimuth: [Double], sourceActive: [Bool]
    /// Per heard source: expected phase rotation per bin (cos, sin), its delay, the bins where
    /// another heard source's phase is too near (1, else 0) and its patch.
    private let rotationRe: UnsafeMutablePointer<Float>, rotationIm: UnsafeMutablePointer<Float>
    private let sourceDelays: UnsafeMutablePointer<Float>
    private let ambiguous: UnsafeMutablePointer<Float>
    private let patches: UnsafeMutablePointer<Float>
    /// Per frame and bin the source it goes to (its index as a Float; −1: none); per source and frame the floor of
    /// its other bins.
    private let winners: UnsafeMutablePointer<Float>
    private let floors: UnsafeMutablePointer<Float>
    private let masked: UnsafeMutablePointer<Float>
    /// Per patch its frames' power, its gain; scratch for the percentile.
    private let framePower: UnsafeMutablePointer<Float>
    private let gains: UnsafeMutablePointer<Float>
    private let sortScratch: UnsafeMutablePointer<Float>
    private var heard: [Int]
    /// Label slots by source id (reused as ids go away): the label, the pooled class scores,
    /// the patch rounds pooled, the name favoured by hysteresis, when (patch number) and at what
    /// bearing it was last heard.
    private var slotIDs: [Int], slotLabels: [SoundLabel?], slotPatch: [Int], slotAzimuth: [Double]
    private var slotRounds: [Int], slotFavoured: [Int]
    /// Per slot, the rounds in a row its best name has not changed: a track steady for
    /// ``steadyRounds`` is classified every other round (``isDue(_:)``).
    private var slotSteady: [Int]
    private let slotScores: UnsafeMutablePointer<Float>
    private let currentScores: UnsafeMutablePointer<Float>
    private var patchNumber = 0
    private static let inheritPatches = Int((inheritSeconds / (Double(hop) * 0.01)).rounded())
    /// The unscaled mixture's label, from the latest round with no source heard.
    private var mixtureLabel: SoundLabel?
    /// The scaled mixture's pooled scores and label, from the rounds with two or more heard
    /// (the record's label then); its rounds, favoured name and last round.
    private let broadbandScores: UnsafeMutablePointer<Float>
    private var broadbandLabel: SoundLabel?
    private var broadbandRounds = 0, broadbandFavoured = -1, broadbandPatch = Int.min / 2, broadbandSteady = 0
    /// The number of sources heard at the latest patch round.
    private var heardAtLastRound = 0
    /// The round being classified (or last classified): its kind, patch number, and heard
    /// sources' ids and bearings.
    private var roundKind = RoundKind.silence
    private var roundPatch = 0, roundCount = 0, roundMixture = false
    private var roundIDs: [Int], roundAzimuths: [Double]
    /// Per heard source of the round, the position of its patch in ``patches`` (−1: not
    /// classified this round).
    private var patchPosition: [Int]
    /// With `asynchronous`, the thread that runs the forward passes.
    private let worker: ClassificationWorker?
    /// The sources array of the records handed on (swapped in and out so that it is never shared).
    private var sourcesBuffer: [SourceRecord]

    /// - Parameters:
    ///   - classifier: the model and the names to report. With `asynchronous`, its network
    ///     belongs to the labeler's thread: use it for nothing else.
    ///   - configuration: the analysis's settings (its sample rate, array and ``AnalysisConfiguration/maxSources``).
    ///   - asynchronous: run the forward passes on a thread of the labeler's own, so that
    ///     ``append(left:right:)`` and ``label(_:emit:)`` never wait for them (live capture): a
    ///     round's labels then reach the records a few milliseconds later, and a round that comes
    ///     while the one before is still classified is skipped (``roundsSkipped``). Without it
    ///     (the default) the passes run inline, and the same input gives the same records.
    /// - Throws: ``ClassifierError/resampler(_:)``.
    /// - Precondition: the classifier takes batches of ``batchSize(for:)`` patches
    ///   (``SoundClassifier/init(directory:labels:alerts:maximumBatch:)``).
    public init(classifier: SoundClassifier, configuration: AnalysisConfiguration, asynchronous: Bool = false) throws(ClassifierError) {
        precondition(
            classifier.network.maximumBatch >= Self.batchSize(for: configuration),
            "the classifier must take a batch of every source's patch and the mixture's")
        self.classifier = classifier
        self.configuration = configuration
        resampler = try Resampler(inputRate: configuration.sampleRate, outputRate: LogMelFrontEnd.sampleRate)
        func zeros<T: Numeric>(_ count: Int, _ value: T = 0) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: count)
            p.initialize(repeating: value, count: count)
            return p
        }
        let chunk = Resampler.chunk, bins = Self.bins, stride = Self.stride, frames = Self.frames
        clean = (zeros(chunk), zeros(chunk))
        pendingCapacity = LogMelFrontEnd.windowLength + resampler.outCapacity
        pending = (zeros(pendingCapacity), zeros(pendingCapacity))
        spectrumLeft = zeros(2 * stride)
        spectrumRight = zeros(2 * stride)
        magnitudes = zeros(frames * stride)
        directionRe = zeros(frames * stride)
        directionIm = zeros(frames * stride)
        heldDelays = zeros(frames * stride, Float.nan)
        envelope = zeros(stride)
        phaseRe = zeros(stride)
        phaseIm = zeros(stride)
        phaseWeight = zeros(stride)
        delayHeld = zeros(stride)
        delayWeight = zeros(stride)
        heldPeak = zeros(stride)
        framePowerScratch = zeros(stride)
        unitRe = zeros(stride)
        unitIm = zeros(stride)
        onsetWeight = zeros(stride)
        onsetBins = zeros(stride)
        // The delays tried for a frame's onsets: the array's lag window and its hardware offset.
        let model = configuration.array
        let grid = Self.delayGridCount, gridStride = Self.gridStride
        gridDelays = zeros(gridStride)
        gridCos = zeros(stride * gridStride)
        gridSin = zeros(stride * gridStride)
        let halfWidth = 1.05 * model.lagWindowSeconds
        for g in 0..<grid {
            let tau = model.delayOffsetSeconds - halfWidth + 2 * halfWidth * Double(g) / Double(grid - 1)
            gridDelays[g] = Float(tau)
            for k in 0..<bins {
                let phase = Self.omega(k) * tau
                gridCos[k * gridStride + g] = Float(cos(phase))
                gridSin[k * gridStride + g] = Float(sin(phase))
            }
        }
        gridFit = zeros(gridStride)
        toleranceSeconds = Self.delayTolerance * Float(model.maximumDelaySeconds)
        capacity = max(1, configuration.maxSources)
        sourceIDs = [Int](repeating: 0, count: capacity)
        sourceLateral = [Double](repeating: 0, count: capacity)
        sourceAzimuth = [Double](repeating: 0, count: capacity)
        sourceActive = [Bool](repeating: false, count: capacity)
        heard = []
        heard.reserveCapacity(capacity)
        rotationRe = zeros(capacity * stride)
        rotationIm = zeros(capacity * stride)
        sourceDelays = zeros(capacity)
        ambiguous = zeros(capacity * stride)
        // Every heard source's patch and the mixture's.
        patches = zeros((capacity + 1) * frames * YAMNet.melBands)
        winners = zeros(frames * stride)
        floors = zeros(capacity * frames)
        masked = zeros(stride)
        framePower = zeros((capacity + 1) * frames)
        gains = zeros(capacity + 1, 1)
        sortScratch = zeros(frames)
        let slots = capacity + 4
        slotIDs = [Int](repeating: -1, count: slots)
        slotLabels = [SoundLabel?](repeating: nil, count: slots)
        slotPatch = [Int](repeating: Int.min / 2, count: slots)
        slotAzimuth = [Double](repeating: 0, count: slots)
        slotRounds = [Int](repeating: 0, count: slots)
        slotFavoured = [Int](repeating: -1, count: slots)
        slotSteady = [Int](repeating: 0, count: slots)
        slotScores = zeros(slots * YAMNet.classCount)
        currentScores = zeros(YAMNet.classCount)
        broadbandScores = zeros(YAMNet.classCount)
        sourcesBuffer = []
        sourcesBuffer.reserveCapacity(capacity)
        roundIDs = [Int](repeating: 0, count: capacity)
        roundAzimuths = [Double](repeating: 0, count: capacity)
        patchPosition = [Int](repeating: -1, count: capacity)
        worker = asynchronous ? ClassificationWorker(classifier: classifier) : nil
    }

    /// The largest batch the labeler classifies at once: a patch for each source the analysis
    /// may track (``AnalysisConfiguration/maxSources``) and one for the mixture. Give the
    /// ``SoundClassifier`` this `maximumBatch`.
    public static func batchSize(for configuration: AnalysisConfiguration) -> Int {
        max(1, configuration.maxSources) + 1
    }

    deinit {
        worker?.stop()
        for p in [
            clean.left, clean.right, pending.left, pending.right, spectrumLeft, spectrumRight, magnitudes, directionRe,
            directionIm, heldDelays, envelope, phaseRe, phaseIm, phaseWeight, delayHeld, delayWeight, heldPeak, framePowerScratch,
            unitRe, unitIm, onsetWeight, gridDelays, gridCos, gridSin, gridFit, rotationRe, rotationIm, sourceDelays, ambiguous,
            patches, winners, floors, masked, framePower, gains, sortScratch, slotScores, currentScores, broadbandScores,
        ] {
            p.deallocate()
        }
        onsetBins.deallocate()
    }

    /// The angular frequency of bin k, radians per second.
    private static func omega(_ k: Int) -> Double {
        2 * Double.pi * LogMelFrontEnd.sampleRate * Double(k) / Double(LogMelFrontEnd.fftSize)
    }

    // MARK: - Samples in

    public func append(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) {
        precondition(left.count == right.count, "channel blocks differ in length")
        collectRound()
        var index = 0
        while index < left.count {
            let take = min(Resampler.chunk, left.count - index)
            // Finite samples clamped to ±1e4, the others 0 (eight at a time, then the rest).
            var i = 0
            if let l = left.baseAddress, let r = right.baseAddress {
                while i + 8 <= take {
                    Self.store(Self.cleaned(Self.load(l + index + i)), clean.left + i)
                    Self.store(Self.cleaned(Self.load(r + index + i)), clean.right + i)
                    i += 8
                }
            }
            while i < take {
                let l = left[index + i], r = right[index + i]
                clean.left[i] = l.isFinite ? max(-1e4, min(1e4, l)) : 0
                clean.right[i] = r.isFinite ? max(-1e4, min(1e4, r)) : 0
                i += 1
            }
            let produced = resampler.process(left: clean.left, right: clean.right, count: take)
            take16k(count: produced)
            index += take
        }
    }

    /// Appends the resampler's output to the pending samples and analyses every whole window.
    private func take16k(count: Int) {
        guard count > 0 else { return }
        let room = pendingCapacity - pendingCount
        let n = min(count, room)
        (pending.left + pendingCount).update(from: resampler.outLeft, count: n)
        (pending.right + pendingCount).update(from: resampler.outRight, count: n)
        pendingCount += n
        var start = 0
        while start + LogMelFrontEnd.windowLength <= pendingCount {
            analyzeFrame(left: pending.left + start, right: pending.right + start)
            start += LogMelFrontEnd.hopLength
        }
        if start > 0 {
            pendingCount -= start
            pending.left.update(from: pending.left + start, count: pendingCount)
            pending.right.update(from: pending.right + start, count: pendingCount)
        }
    }

    @inline(__always) private static func load(_ p: UnsafePointer<Float>) -> V {
        UnsafeRawPointer(p).loadUnaligned(as: V.self)
    }
    @inline(__always) private static func store(_ v: V, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
    }
    /// Finite samples clamped to ±1e4, the others 0.
    @inline(__always) private static func cleaned(_ x: V) -> V {
        let limit = V(repeating: 1e4)
        return vmax(vmin(x, limit), -limit).replacing(with: 0, where: .!((x - x) .== V()))
    }
    /// min and max as compare-and-blend (the generic `pointwiseMin` is not inlined).
    @inline(__always) private static func vmin(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .< x) }
    @inline(__always) private static func vmax(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .> x) }

    /// One 10 ms frame: both spectra, each bin's onset evidence and direction into the ring;
    /// every 48 frames (once 96 are there) the patches.
    private func analyzeFrame(left: UnsafePointer<Float>, right: UnsafePointer<Float>) {
        frontEnd.spectrum(of: left, into: spectrumLeft)
        frontEnd.spectrum(of: right, into: spectrumRight)
        let bins = Self.bins, stride = Self.stride
        let mag = magnitudes + ringHead * stride
        // Power, magnitude, unit cross-spectrum and onset weight per bin.
        let zero = V(), half = V(repeating: 0.5), one = V(repeating: 1)
        let envelopeDecay = V(repeating: Self.onsetEnvelopeDecay), rise = V(repeating: Self.onsetRise)
        let rawLeft = UnsafeRawPointer(spectrumLeft), rawRight = UnsafeRawPointer(spectrumRight)
        var k = 0
        while k < stride {
            let byteOffset = 2 * k * MemoryLayout<Float>.stride
            let l16 = rawLeft.loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let r16 = rawRight.loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let lr = l16.evenHalf, li = l16.oddHalf, rr = r16.evenHalf, ri = r16.oddHalf
            let power = half * (lr * lr + li * li + rr * rr + ri * ri)
            Self.store(power, framePowerScratch + k)
            Self.store(power.squareRoot(), mag + k)
            // L·R* = (lr + i·li)(rr − i·ri)
            let re = lr * rr + li * ri, im = li * rr - lr * ri
            let norm = (re * re + im * im).squareRoot()
            let inverse = (one / norm).replacing(with: 0, where: .!(norm .> zero))
            Self.store(re * inverse, unitRe + k)
            Self.store(im * inverse, unitIm + k)
            let reference = envelopeDecay * Self.load(envelope + k)
            let weight = power - rise * reference
            Self.store(Self.vmax(power, reference), envelope + k)
            Self.store(weight.replacing(with: 0, where: .!(weight .> zero)), onsetWeight + k)
            k += 8
        }
        var onsetCount = 0
        for k in 0..<bins where onsetWeight[k] > 0 && onsetWeight[k].isFinite {
            onsetBins[onsetCount] = Int32(k)
            onsetCount += 1
        }
        // The frame's onset delay: the grid delay that best fits all its onsets.
        var event = -1
        if onsetCount > 0 {
            let gridStride = Self.gridStride
            var g = 0
            while g < gridStride { Self.store(V(), gridFit + g); g += 8 }
            for i in 0..<onsetCount {
                let k = Int(onsetBins[i])
                let x = V(repeating: onsetWeight[k] * unitRe[k]), y = V(repeating: onsetWeight[k] * unitIm[k])
                let c = gridCos + k * gridStride, sn = gridSin + k * gridStride
                g = 0
                while g < gridStride {
                    Self.store(Self.load(gridFit + g) + x * Self.load(c + g) + y * Self.load(sn + g), gridFit + g)
                    g += 8
                }
            }
            var best: Float = 0
            for g in 0..<Self.delayGridCount where gridFit[g] > best {
                best = gridFit[g]
                event = g
            }
        }
        // Held delays: decay, then the onsets that agree with the frame's onset delay (a
        // stronger one replaces the held delay, a weaker one is averaged in); those are not
        // phase evidence.
        let decay = V(repeating: Self.evidenceDecay)
        k = 0
        while k < stride {
            Self.store(decay * Self.load(delayWeight + k), delayWeight + k)
            k += 8
        }
        if event >= 0 {
            let eventDelay = gridDelays[event], gridStride = Self.gridStride
            for i in 0..<onsetCount {
                let k = Int(onsetBins[i])
                let agreement = unitRe[k] * gridCos[k * gridStride + event] + unitIm[k] * gridSin[k * gridStride + event]
                guard agreement > 0 else { continue }
                let onset = onsetWeight[k], held = delayWeight[k]
                if onset >= held {
                    delayHeld[k] = eventDelay
                    delayWeight[k] = onset
                    heldPeak[k] = framePowerScratch[k]
                } else {
                    delayHeld[k] = (held * delayHeld[k] + onset * eventDelay) / (held + onset)
                    delayWeight[k] = held + onset
                }
                onsetWeight[k] = 0
            }
        }
        // Phase evidence, the ceilings, and each bin's direction and held delay into the ring.
        let ceiling = V(repeating: Self.evidenceCeiling), current = V(repeating: Self.currentPhaseWeight)
        let none = V(repeating: .nan), release = V(repeating: Self.releaseShare)
        let dirRe = directionRe + ringHead * stride, dirIm = directionIm + ringHead * stride
        let held = heldDelays + ringHead * stride
        k = 0
        while k < stride {
            let power = Self.load(framePowerScratch + k), onset = Self.load(onsetWeight + k)
            let ux = Self.load(unitRe + k), uy = Self.load(unitIm + k)
            var hx = decay * Self.load(phaseRe + k) + onset * ux
            var hy = decay * Self.load(phaseIm + k) + onset * uy
            var hw = decay * Self.load(phaseWeight + k) + onset
            let cap = ceiling * power
            let over = hw .> cap
            let scale = (cap / hw).replacing(with: 1, where: .!over)
            hx *= scale; hy *= scale
            hw.replace(with: cap, where: over)
            var dw = Self.vmin(Self.load(delayWeight + k), cap)
            // Released when the power has fallen far below its peak since the delay was taken.
            var peak = Self.vmax(Self.load(heldPeak + k), power)
            let released = power .< release * peak
            dw.replace(with: 0, where: released)
            peak.replace(with: 0, where: released)
            Self.store(hx, phaseRe + k); Self.store(hy, phaseIm + k); Self.store(hw, phaseWeight + k)
            Self.store(dw, delayWeight + k)
            Self.store(peak, heldPeak + k)
            let dx = hx + current * power * ux, dy = hy + current * power * uy
            let dn = (dx * dx + dy * dy).squareRoot()
            let inverse = (one / dn).replacing(with: 0, where: .!(dn .> zero))
            Self.store(dx * inverse, dirRe + k)
            Self.store(dy * inverse, dirIm + k)
            Self.store(Self.load(delayHeld + k).replacing(with: none, where: .!((dw .> zero) .& (dw .>= dn))), held + k)
            k += 8
        }
        ringHead = (ringHead + 1) % Self.frames
        framesStored = min(framesStored + 1, Self.frames)
        framesSincePatch += 1
        if framesStored == Self.frames && framesSincePatch >= Self.hop {
            framesSincePatch = 0
            classifyPatches()
        }
    }

    // MARK: - Patches

    /// What a patch round classifies: the mixture unscaled (none heard), the scaled mixture for
    /// every heard source (a coincident pair), one heard source (unmasked or masked), or two or
    /// more heard sources' masked patches and the scaled mixture.
    private enum RoundKind { case silence, coincident, lone, several }

    /// A patch round: its patches are built in ``patches`` and classified, inline or on the
    /// ``worker``; ``finishRound()`` then reads the scores.
    private func classifyPatches() {
        patchNumber += 1
        if let worker, !worker.isIdle {
            // The previous round's forward passes are still running: this round is skipped
            // (labels then refresh 0.96 s apart instead of 0.48 s), never waited for.
            roundsSkipped += 1
            return
        }
        heard.removeAll(keepingCapacity: true)
        for i in 0..<sourceCount where sourceActive[i] { heard.append(i) }
        let count = heard.count
        heardAtLastRound = count
        // The heard sources due at this round (a steady track every other round), in order.
        roundPatch = patchNumber
        roundCount = 0
        for (j, i) in heard.enumerated() {
            patchPosition[j] = -1
            guard isDue(id: sourceIDs[i]) else { continue }
            patchPosition[j] = roundCount
            roundIDs[roundCount] = sourceIDs[i]
            roundAzimuths[roundCount] = sourceAzimuth[i]
            roundCount += 1
        }
        let batch: Int
        if count == 0 {
            roundKind = .silence
            buildPatches(sources: 0, normalised: false, mixtureAt: 0)
            batch = 1
        } else if roundCount == 0 && (count == 1 || !isBroadbandDue) {
            // Every heard source is steady and was classified at the round before.
            roundsRested += 1
            return
        } else if configuration.array.kind == .coincident {
            // A coincident pair has no delay to go by: the scaled mixture names every heard source.
            roundKind = .coincident
            buildPatches(sources: 0, normalised: true, mixtureAt: 0)
            batch = 1
        } else {
            computeSourceDelays()
            if count == 1 {
                // One heard source: the scaled mixture, unmasked, unless most of the patch's
                // energy is in bins holding the onsets of a sound far from it (a louder sound the
                // tracker does not list), which its one-source mask then leaves out.
                roundKind = .lone
                let unmasked = foreignShare() <= Self.maximumForeignShare
                if unmasked {
                    buildPatches(sources: 0, normalised: true, mixtureAt: 0)
                    unmaskedLonePatches += 1
                } else {
                    buildPatches(sources: 1, normalised: true, mixtureAt: -1)
                }
                batch = 1
            } else {
                // The due sources' masked patches, and the scaled mixture's after them when it is
                // due: one batch.
                roundKind = .several
                roundMixture = isBroadbandDue
                buildPatches(sources: count, normalised: true, mixtureAt: roundMixture ? roundCount : -1)
                batch = roundCount + (roundMixture ? 1 : 0)
            }
        }
        patchesClassified += batch
        if let worker {
            worker.submit(patches: patches, count: batch)
        } else {
            classifier.classify(patches: patches, count: batch)
            finishRound()
        }
    }

    /// The results of a round that the worker has finished, if any, taken in.
    private func collectRound() {
        guard let worker, worker.isDone else { return }
        finishRound()
        worker.collect()
    }

    /// Reads the classified round's scores into the labels of its sources and of the record.
    private func finishRound() {
        switch roundKind {
        case .silence:
            mixtureLabel = Self.reported(classifier.label(ofPatch: 0))
        case .coincident, .lone:
            // A sound is heard: the silent mixture's label no longer stands for the record.
            mixtureLabel = nil
            classifier.scores(ofPatch: 0, into: currentScores)
            for j in 0..<roundCount { store(id: roundIDs[j], azimuth: roundAzimuths[j], patch: roundPatch) }
        case .several:
            mixtureLabel = nil
            for j in 0..<roundCount {
                classifier.scores(ofPatch: j, into: currentScores)
                store(id: roundIDs[j], azimuth: roundAzimuths[j], patch: roundPatch)
            }
            guard roundMixture else { return }
            classifier.scores(ofPatch: roundCount, into: currentScores)
            let recent = roundPatch - broadbandPatch <= Self.inheritPatches
            broadbandRounds = recent ? broadbandRounds + 1 : 1
            Self.pool(currentScores, into: broadbandScores, rounds: broadbandRounds)
            broadbandPatch = roundPatch
            var favoured = recent ? broadbandFavoured : -1
            broadbandLabel = Self.reported(
                classifier.label(scores: broadbandScores, favouring: favoured, by: Self.switchMargin, best: &favoured))
            broadbandSteady = recent && favoured == broadbandFavoured ? broadbandSteady + 1 : 0
            broadbandFavoured = favoured
        }
    }

    /// Whether the track of source `id` is classified at this round: always, unless its best
    /// name has held for ``steadyRounds`` rounds with a pooled score of at least
    /// ``steadyScore``, it raises no alert and it was classified at the round before (a
    /// steady track is classified every other round, on patches that then do not overlap: its
    /// label refreshes every 0.96 s instead of 0.48 s).
    private func isDue(id: Int) -> Bool {
        guard let s = slotIDs.firstIndex(of: id) else { return true }
        // An alerting track is followed at every round: its alert must end as soon as its sound;
        // so is a track whose name is not clearly there (it may be on its way to another).
        guard let label = slotLabels[s], !label.alert, label.score >= Self.steadyScore else { return true }
        return !(slotSteady[s] >= Self.steadyRounds && patchNumber - slotPatch[s] == 1)
    }

    /// Whether the unmasked mixture is classified at this round (two or more heard), by the
    /// same rule as a track's.
    private var isBroadbandDue: Bool {
        !(broadbandSteady >= Self.steadyRounds && patchNumber - broadbandPatch == 1)
    }

    /// Each heard source's delay and expected rotation e^{iωτ} per bin, and the bins where two
    /// heard sources' phases cannot be told apart (above their first parting).
    private func computeSourceDelays() {
        let model = configuration.array, bins = Self.bins, stride = Self.stride
        let count = heard.count
        for (j, i) in heard.enumerated() {
            let tau = model.delay(lateral: sourceLateral[i]) + model.delayOffsetSeconds
            sourceDelays[j] = Float(tau)
            for k in 0..<bins {
                rotationRe[j * stride + k] = Float(cos(Self.omega(k) * tau))
                rotationIm[j * stride + k] = Float(sin(Self.omega(k) * tau))
            }
        }
        for j in 0..<count {
            let amb = ambiguous + j * stride
            for k in 0..<stride { amb[k] = 0 }
            for i in 0..<count where i != j {
                let difference = Double(sourceDelays[i] - sourceDelays[j])
                for k in 0..<bins {
                    let phase = Self.omega(k) * difference
                    if abs(phase) > Double.pi && abs(sin(phase / 2)) < Double(Self.ambiguitySine) { amb[k] = 1 }
                }
            }
        }
    }

    /// Pools a patch's scores into a track's: the first patch as it is, the second averaged
    /// with it, then an exponential average in which the new patch weighs 1/``poolPatches``.
    private static func pool(_ current: UnsafePointer<Float>, into pooled: UnsafeMutablePointer<Float>, rounds: Int) {
        let weight = 1 / min(Float(rounds), poolPatches)
        for c in 0..<YAMNet.classCount { pooled[c] += weight * (current[c] - pooled[c]) }
    }

    /// The share of the last 96 frames' energy in bins that hold an onset delay far from the one
    /// heard source's (``delayTolerance``): the energy of sounds the tracker does not list.
    private func foreignShare() -> Float {
        let stride = Self.stride, frames = Self.frames
        var foreign = V(), total = V()
        let none = V(repeating: -1)
        for f in 0..<frames {
            let slot = (ringHead + f) % frames
            let mag = magnitudes + slot * stride
            let win = winners + f * stride
            assignBins(slot: slot, sources: 1, into: win)
            var k = 0
            while k < stride {
                let m = Self.load(mag + k)
                let power = m * m
                total += power
                foreign += power.replacing(with: 0, where: .!(Self.load(win + k) .== none))
                k += 8
            }
        }
        let sum = total.sum()
        return sum > 0 ? foreign.sum() / sum : 0
    }


    /// The patches of the last 96 frames: one per heard source from the mask (see the type's
    /// documentation; `sources` of them, none when 0), then the unmasked mixture's. Source j's
    /// patch goes to position ``patchPosition``[j] of ``patches`` (−1: not built, though its
    /// mask is still made, as every heard source's is needed for the others'), the mixture's to
    /// `mixtureAt` (−1: not built). With `normalised`, each patch's magnitudes are scaled so that
    /// its loud frames sit at ``patchLevel`` (see there).
    private func buildPatches(sources: Int, normalised: Bool, mixtureAt: Int) {
        let melBands = YAMNet.melBands, stride = Self.stride, frames = Self.frames
        let patchCount = sources + 1
        let mixturePower = framePower + sources * frames
        let floorShare = Self.rejectedBinGain / Float(Self.bins).squareRoot()
        // Pass 1: each bin's source, each patch's floor and per-frame power, for its level.
        for f in 0..<frames {
            let slot = (ringHead + f) % frames  // oldest first
            let mag = magnitudes + slot * stride
            var p = V()
            var k = 0
            while k < stride { let m = Self.load(mag + k); p += m * m; k += 8 }
            mixturePower[f] = p.sum()
            if sources == 0 { continue }
            let win = winners + f * stride
            assignBins(slot: slot, sources: sources, into: win)
            for j in 0..<sources {
                let own = V(repeating: Float(j))
                var sum = V()
                var k = 0
                while k < stride {
                    let m = Self.load(mag + k)
                    let mine = Self.load(win + k) .== own
                    sum += (m * m).replacing(with: 0, where: .!mine)
                    k += 8
                }
                let ownPower = sum.sum()
                let floor = V(repeating: floorShare * ownPower.squareRoot())
                var rest = V()
                k = 0
                while k < stride {
                    let m = Self.vmin(Self.load(mag + k), floor)
                    let mine = Self.load(win + k) .== own
                    rest += (m * m).replacing(with: 0, where: mine)
                    k += 8
                }
                floors[j * frames + f] = floor[0]
                framePower[j * frames + f] = ownPower + rest.sum()
            }
        }
        for j in 0..<patchCount {
            gains[j] = normalised ? Self.levelGain(framePowers: framePower + j * frames, scratch: sortScratch) : 1
        }
        // Pass 2: masked, scaled magnitudes into mel and log; the mixture's last.
        for f in 0..<frames {
            let slot = (ringHead + f) % frames
            let mag = magnitudes + slot * stride
            if mixtureAt >= 0 {
                let g = V(repeating: gains[sources])
                var k = 0
                while k < stride { Self.store(g * Self.load(mag + k), masked + k); k += 8 }
                frontEnd.logMel(magnitudes: masked, into: patches + mixtureAt * frames * melBands + f * melBands)
            }
            if sources == 0 { continue }
            let win = winners + f * stride
            for j in 0..<sources where patchPosition[j] >= 0 {
                let g = V(repeating: gains[j]), floor = V(repeating: floors[j * frames + f])
                let own = V(repeating: Float(j))
                var k = 0
                while k < stride {
                    let m = Self.load(mag + k)
                    let mine = Self.load(win + k) .== own
                    Self.store(g * Self.vmin(m, floor).replacing(with: m, where: mine), masked + k)
                    k += 8
                }
                frontEnd.logMel(magnitudes: masked, into: patches + patchPosition[j] * frames * melBands + f * melBands)
            }
        }
    }

    /// Each bin of ring frame `slot` to its heard source, or −1 (see the type's documentation).
    private func assignBins(slot: Int, sources: Int, into win: UnsafeMutablePointer<Float>) {
        let stride = Self.stride
        let dirRe = directionRe + slot * stride, dirIm = directionIm + slot * stride
        let held = heldDelays + slot * stride
        let tolerance = V(repeating: toleranceSeconds), minusOne = V(repeating: -1)
        var k = 0
        if sources == 1 {
            // One source: every bin but those holding a delay far from its own.
            let own = V(repeating: sourceDelays[0])
            while k < stride {
                let difference = Self.load(held + k) - own
                let far = (difference .> tolerance) .| (-difference .> tolerance)
                Self.store(V().replacing(with: minusOne, where: far), win + k)
                k += 8
            }
            return
        }
        while k < stride {
            let delay = Self.load(held + k)
            let isHeld = delay .== delay  // not NaN
            let x = Self.load(dirRe + k), y = Self.load(dirIm + k)
            // Held delays: the nearest source's, if near enough; the others: the best phase fit.
            var nearest = minusOne, nearestDistance = tolerance
            var fitted = V(), bestFit = V(repeating: -2), fittedAmbiguous = V()
            for j in 0..<sources {
                let index = V(repeating: Float(j))
                let difference = delay - V(repeating: sourceDelays[j])
                let distance = difference.replacing(with: -difference, where: difference .< V())
                let nearer = distance .<= nearestDistance
                nearest.replace(with: index, where: nearer)
                nearestDistance.replace(with: distance, where: nearer)
                let fit = x * Self.load(rotationRe + j * stride + k) + y * Self.load(rotationIm + j * stride + k)
                let better = fit .> bestFit
                fitted.replace(with: index, where: better)
                bestFit.replace(with: fit, where: better)
                fittedAmbiguous.replace(with: Self.load(ambiguous + j * stride + k), where: better)
            }
            fitted.replace(with: minusOne, where: fittedAmbiguous .> V())
            let chosen = fitted.replacing(with: nearest, where: isHeld)
            Self.store(chosen, win + k)
            k += 8
        }
    }

    /// The magnitude gain that brings a patch's level (the 90th percentile of its 96 frame
    /// powers) to ``patchLevel``, at most ``maximumLevelGain``; 1 for a patch with no power.
    static func levelGain(framePowers: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>) -> Float {
        let n = frames
        scratch.update(from: framePowers, count: n)
        // Insertion sort of 96 values (no allocation).
        for i in 1..<n {
            let v = scratch[i]
            var j = i - 1
            while j >= 0 && scratch[j] > v { scratch[j + 1] = scratch[j]; j -= 1 }
            scratch[j + 1] = v
        }
        let level = scratch[((n - 1) * 9) / 10]
        guard level > 0, level.isFinite else { return 1 }
        return min(maximumLevelGain, (patchLevel / level).squareRoot())
    }

    /// `label`, or nil when its best score is below ``minimumLabelScore`` and it raises no
    /// alert. The floor lies in the gap measured on TestSignals' sounds (NumPy YAMNet, `--labels
    /// everyday`, patches every 0.48 s): a sound of the set scored 0.21 or more for its own
    /// group (beeps 0.21–0.94, the siren 0.24–0.86, speech 0.56–1.0, silence 1.0), a sound outside
    /// it 0.06 or less (pink noise of RMS 0.1: 0.001–0.010, white noise: 0.004–0.057).
    public static func reported(_ label: SoundLabel) -> SoundLabel? {
        label.score >= minimumLabelScore || label.alert ? label : nil
    }

    /// Pools the scores in ``currentScores`` into source `id`'s track (heard at `azimuth`) and
    /// labels it from its pooled scores, once it is established (``establishedPatches``). A track
    /// last heard more than ``inheritSeconds`` ago starts again.
    private func store(id: Int, azimuth: Double, patch: Int) {
        let s = slot(for: id, azimuth: azimuth)
        let pooled = slotScores + s * YAMNet.classCount
        if patch - slotPatch[s] <= Self.inheritPatches {
            slotRounds[s] += 1
        } else {
            slotRounds[s] = 1
            slotFavoured[s] = -1
        }
        Self.pool(currentScores, into: pooled, rounds: slotRounds[s])
        var favoured = slotFavoured[s]
        let label = classifier.label(scores: pooled, favouring: favoured, by: Self.switchMargin, best: &favoured)
        slotSteady[s] = favoured == slotFavoured[s] ? slotSteady[s] + 1 : 0
        slotFavoured[s] = favoured
        slotLabels[s] = slotRounds[s] >= Self.establishedPatches ? Self.reported(label) : nil
        slotPatch[s] = patch
        slotAzimuth[s] = azimuth
    }

    /// The label slot of source `id`: its own; else that of a labelled source the latest
    /// record no longer lists, within ``inheritDegrees`` of `azimuth` and ``inheritSeconds``,
    /// which it takes over; else a fresh one (a free slot, or the stalest whose source is gone).
    private func slot(for id: Int, azimuth: Double) -> Int {
        if let s = slotIDs.firstIndex(of: id) { return s }
        if let s = inheritableSlot(azimuth: azimuth) {
            slotIDs[s] = id
            return s
        }
        var fresh = 0, freshPatch = Int.max
        for s in slotIDs.indices where slotIDs[s] < 0 || !isListed(slotIDs[s]) {
            if slotPatch[s] < freshPatch { freshPatch = slotPatch[s]; fresh = s }
        }
        slotIDs[fresh] = id
        slotLabels[fresh] = nil
        slotPatch[fresh] = Int.min / 2
        slotRounds[fresh] = 0
        slotFavoured[fresh] = -1
        slotSteady[fresh] = 0
        return fresh
    }

    /// A recent slot of a source the latest record does not list, nearest `azimuth` within ``inheritDegrees``.
    private func inheritableSlot(azimuth: Double) -> Int? {
        var found: Int?, nearest = Self.inheritDegrees
        for s in slotIDs.indices where slotIDs[s] >= 0 && slotLabels[s] != nil && !isListed(slotIDs[s]) {
            guard patchNumber - slotPatch[s] <= Self.inheritPatches else { continue }
            let distance = abs(slotAzimuth[s] - azimuth)
            if distance <= nearest { nearest = distance; found = s }
        }
        return found
    }

    private func isListed(_ id: Int) -> Bool {
        for i in 0..<sourceCount where sourceIDs[i] == id { return true }
        return false
    }

    /// The label of source `id` (heard at `azimuth`): its slot's, or the one it inherits.
    private func label(of id: Int, azimuth: Double) -> SoundLabel? {
        if let s = slotIDs.firstIndex(of: id) { return slotLabels[s] }
        guard let s = inheritableSlot(azimuth: azimuth) else { return nil }
        slotIDs[s] = id
        return slotLabels[s]
    }

    // MARK: - Records out

    public func label(_ record: AnalysisRecord, emit: (AnalysisRecord) throws -> Void) rethrows {
        collectRound()
        // The sources the next patches are cut for.
        sourceCount = min(record.sources.count, capacity)
        for i in 0..<sourceCount {
            let source = record.sources[i]
            sourceIDs[i] = source.id
            sourceLateral[i] = sin(source.azimuth * Double.pi / 180)
            sourceAzimuth[i] = source.azimuth
            sourceActive[i] = source.active
        }
        var out = record
        swap(&out.sources, &sourcesBuffer)
        out.sources.removeAll(keepingCapacity: true)
        var loudest = -1
        for i in 0..<record.sources.count {
            var source = record.sources[i]
            source.label = label(of: source.id, azimuth: source.azimuth)
            out.sources.append(source)
            if source.active, source.label != nil, loudest < 0 || source.levelDBFS > out.sources[loudest].levelDBFS {
                loudest = i
            }
        }
        // Two or more heard: the unmasked mixture's pooled label, never worse than no separation.
        out.label = heardAtLastRound >= 2 && broadbandLabel != nil
            ? broadbandLabel : loudest >= 0 ? out.sources[loudest].label : mixtureLabel
        var alerting = -1
        for i in out.sources.indices where out.sources[i].active && out.sources[i].label?.alert == true {
            if alerting < 0 || out.sources[i].levelDBFS > out.sources[alerting].levelDBFS { alerting = i }
        }
        if alerting >= 0 {
            out.alertAzimuth = out.sources[alerting].azimuth
            out.alertSource = out.sources[alerting].id
        } else if loudest < 0, out.label?.alert == true {
            out.alertAzimuth = out.azimuth
            out.alertSource = 0
        } else {
            out.alertAzimuth = nil
            out.alertSource = 0
        }
        defer { swap(&out.sources, &sourcesBuffer) }
        try emit(out)
    }
}
