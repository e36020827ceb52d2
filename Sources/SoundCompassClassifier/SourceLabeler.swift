import SoundCompassEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names what each tracked source is: the stream resampled to 16 kHz, YAMNet's spectra of both
/// channels kept for the last 0.96 s, and every 0.48 s each heard source's own patch, made of
/// the time-frequency bins that point at it, classified.
///
/// It is made of four parts, each owning its buffers (Docs/Classification.md tells the whole
/// method and why):
/// 1. ``StereoFrames16k``: both channels resampled to 16 kHz, windowed and transformed every
///    10 ms.
/// 2. ``OnsetDelayHistory``: per bin, where its sound comes from. For a far source at bearing θ
///    the right channel lags the left by `τ(θ)` (``ArrayModel/delay(lateral:)``), so bin k's
///    cross-spectrum `L·R*` has phase `ωₖ·τ(θ)`; in a room that holds only in the first frames
///    after an onset (the precedence effect), so each bin holds the delay of its onsets, pooled
///    over the frame's onset bins, while its sound goes on. The last 96 frames are kept.
/// 3. ``SourceMasks``: each heard source's patch, the bins that point at it (a held delay near
///    its own, else the nearest expected phase, none where phases alias), the others at −30 dB
///    of its own bins, scaled to one level, mel and log.
/// 4. ``TrackLabels``: class scores pooled per track with hysteresis, a track labelled once it
///    has been heard at two patch rounds, carried over to a new id at the same bearing.
///
/// What is classified at a patch round (every 0.48 s):
/// - **none heard**: the mixture as it is, unscaled (the record's label; silence stays silence);
/// - **one heard**: the mixture unmasked, raised to the patch level if quieter and classified
///   twice, so raised and ``SourceMasks/quieterCopyRatio`` quieter (never below as heard), the
///   scores averaged (no mask can make a lone sound read better than the sound itself; no one
///   level suits every class), unless more than ``maximumForeignShare`` of its energy holds onsets far
///   from the heard source (a louder sound the tracker does not list): then its one-source mask;
/// - **two or more heard**: each source's masked patch and the unmasked mixture, at its own level
///   (the unseparated sound as YAMNet hears it), in one batch; the mixture's pooled label is the
///   record's ``AnalysisRecord/label``, and a separated source's alert starts only when the
///   mixture supports it (``TrackLabels``: a mask can make a reflection of applause read
///   "Siren"); an alert the mixture starts beside a sound it had named goes to the new track
///   that carries it (``TrackLabels/leadAlert(round:)``); the mixture is classified at every
///   round while a heard track may alert or, with alerts asked for, is new; a source that
///   holds most of the sound is named by its masked patch and the mixture together (2/3 and
///   1/3 of its scores), the mixture then in the batch whatever its schedule (``dominantPowerRatio``);
///   a quieter source that looks like a reflection of the loudest (on its side, nearer the front,
///   its onsets and its spectrum the loudest one's) is not classified, and carries no label for
///   ``imageHoldRounds`` rounds (``imagePowerRatio``);
/// - a coincident pair has no delay to go by: the scaled mixture names every heard source.
/// A labelled track that raises no alert has a patch built every other round, on patches that do
/// not overlap (``TrackLabels/isDue(id:round:)``), and classified only when its sound has
/// changed since its last classified patch (``PatchSignature``), or ``TrackLabels/maximumUnchangedRounds``
/// rounds after it; the mixture's patch the same.
///
/// With `asynchronous` the patches are built and classified on a ``ClassificationWorker``
/// thread, from a copy of the history's last 96 frames: the caller's thread only plans the round
/// and copies the ring (0.5 MB).
///
/// Life cycle: `init` allocates everything; ``append(left:right:)`` and ``label(_:emit:)``
/// never allocate.
public final class SourceLabeler: RecordLabeler, PatchRoundBuilder {
    /// The classifier.
    public let classifier: SoundClassifier
    /// The analysis's settings (sample rate, array).
    public let configuration: AnalysisConfiguration
    /// Patches classified so far (sources and mixture).
    public private(set) var patchesClassified = 0
    /// Patches built but not classified because their sound had not changed since the last one
    /// of their track (or of the mixture) classified, so far.
    public private(set) var patchesUnchanged = 0
    /// Patches of a lone heard source classified on the unmasked mixture (see
    /// ``maximumForeignShare``), so far.
    public private(set) var unmaskedLonePatches = 0
    /// Of those, the ones also classified quieter (a raised patch;
    /// ``SourceMasks/quieterCopyRatio``), so far: each one more forward pass.
    public private(set) var quieterCopies = 0
    /// Masked patches of a dominant source (``dominantPowerRatio``) whose scores took in the
    /// unmasked mixture's, so far.
    public private(set) var dominantWithMixture = 0
    /// Patch rounds skipped because the worker was still classifying the one before (with
    /// `asynchronous` only) and was still busy at the next round, so far (a round the worker
    /// was busy for runs once it is free: ``roundsDeferred``).
    public private(set) var roundsSkipped = 0
    /// Patch rounds that came while the worker was busy and ran as soon as it was free, on the
    /// latest 0.96 s (with `asynchronous` only), so far.
    public private(set) var roundsDeferred = 0
    /// Heard sources taken for reflections of the loudest heard source (``imagePowerRatio``),
    /// counted once per patch round, so far.
    public private(set) var imagesTaken = 0
    /// A round came while the worker was busy: it runs as soon as the worker is free.
    private var roundPending = false
    /// Patch rounds at which nothing was classified because every heard track was labelled and
    /// classified at the round before, so far.
    public private(set) var roundsRested = 0

    /// A lone heard source is classified on the unmasked mixture unless more than this share of
    /// the patch's energy lies in bins holding onsets far from it (a louder sound the tracker
    /// does not list); then on its one-source mask.
    static let maximumForeignShare: Float = 0.5
    /// With two or more heard, a source whose mask holds at least this many times the power of
    /// every other heard source's together (over the patch) is named by its masked patch and the
    /// unmasked mixture (as heard) together (``dominantMixtureWeight``). The mixture is then
    /// mostly that source, while its mask loses to the others' masks its share of the room's
    /// reflections and of the bins whose direction is unsure: a running tap beside its own floor
    /// and ceiling images listed as a second source read "Music" masked, "Water tap, faucet" in
    /// the mixture. On `Benchmarks/accuracy/labels_real.py` (seeds 44–53) the masked patches
    /// of sources this dominant named their class among their three best in 177 of 307 patches
    /// alone and 294 of 624 beside a talker, the mixture's in 240 and 333; with a ratio of 1 the
    /// sources' first names were right less often beside a talker (Docs/Classification.md, "A
    /// dominant source named with the mixture too").
    static let dominantPowerRatio: Float = 2
    /// The mixture's share of a dominant source's scores (``dominantPowerRatio``): the masked
    /// patch's weigh 2/3, the mixture's 1/3. Not the mixture alone, nor half: where the mask is
    /// right and the mixture wrong, the source keeps its own name. In `SourceLabelTests`'
    /// synthetic rooms (direct-to-reverberant −4 dB) the mixture of a two-tone siren 10 dB over
    /// a talker reads "Music" and "Bagpipes" where its masked patch reads "Siren" and "Alarm": half
    /// took the siren's share of patches naming it from 84 % to 52 %, a third to 80 %. On the real
    /// recordings a third kept most of half's gain (beside a talker 189 sources labelled against
    /// 195 with half and 181 with none).
    static let dominantMixtureWeight: Float = 1.0 / 3
    /// With two or more heard, a quieter heard source is taken for a reflection of the loudest
    /// (the tracker lists a room's images of a sound now and then as sources of their own) when,
    /// over the patch:
    /// - it lies on the loudest one's side and nearer the front (`|sin θ|` smaller): a horizontal
    ///   pair hears a floor, ceiling, front- or back-wall image of a source at lateral `s` at
    ///   `s·cos ε`, ε the image's elevation or extra depth, on the same side and nearer 0°;
    /// - its mask holds less than this share of the loudest one's power;
    /// - its onsets are not its own: the bins holding onset delays from its direction
    ///   (``SourceMasks/heldPower(history:ofSource:)``) hold less than
    ///   ``imageHeldRatio`` times the share of its masked power that the loudest one's hold of
    ///   the loudest one's, or less than ``imageHeldShare`` of the power the loudest one's hold
    ///   (an image arrives after its source, in bins that already hold the source's delay);
    /// - its spectrum has the loudest one's shape: the correlation of their band powers
    ///   (``SourceMasks/spectralSimilarity(history:_:_:)``) is at least ``imageSimilarity``. A
    ///   reflection carries its source's sound; a steady siren 6 dB under a talker, on its side
    ///   and nearer the front, has few onsets of its own too, but not the talker's spectrum
    ///   (−0.6 to 0.3 in `SourceLabelTests`, the talker's reflection there 0.5 to 0.9).
    /// Such a source is not classified at that round, pools nothing, and carries no label for
    /// ``imageHoldRounds`` rounds. On `Benchmarks/accuracy/labels_real.py` the sources listed
    /// more than 15° from every real one carried a label in 13.5 % of the records of a lone
    /// sound and 9.1 % beside a talker (seeds 44–47); a reflection's track is taken for one in
    /// some of its rounds only, and was named from its masked patch in the others
    /// (Docs/Classification.md, "A reflection's track carries no label").
    static let imagePowerRatio: Float = 0.7
    /// See ``imagePowerRatio``.
    static let imageHeldRatio: Float = 0.5
    /// See ``imagePowerRatio``.
    static let imageHeldShare: Float = 0.05
    /// See ``imagePowerRatio``.
    static let imageSimilarity: Float = 0.5
    /// Rounds (0.48 s each: 1.92 s) for which a track taken for a reflection carries no label.
    static let imageHoldRounds = 4
    /// Frames between patch rounds (0.48 s).
    private static let hop = YAMNet.patchFrames / 2

    // MARK: - Parts

    private let frames16k: StereoFrames16k
    private let history: OnsetDelayHistory
    /// With `asynchronous`, the copy of the history's ring that the worker builds a round from.
    private let snapshot: OnsetDelayHistory?
    private let masks: SourceMasks
    private let tracks: TrackLabels
    /// With `asynchronous`, the thread that runs the forward passes.
    private let worker: ClassificationWorker?

    // MARK: - The sources of the latest record, and the round

    private let capacity: Int
    private var sourceCount = 0
    private var sourceIDs: [Int], sourceLateral: [Double], sourceAzimuth: [Double], sourceActive: [Bool]
    /// The heard sources of a round: indexes into the latest record's sources, and laterals.
    private var heard: [Int], heardLateral: [Double]
    private var framesSincePatch = 0
    /// Patch rounds run so far, not counting ``roundsSkipped`` (the latest is the round being
    /// classified, or last classified): the rounds ``TrackLabels`` counts in. A round skipped
    /// because the worker was busy is not one, so a machine too slow for a round every 0.48 s
    /// labels later, never not at all (counted in patch times, a worker that needed more than
    /// four of them for a round left every track unheard for longer than
    /// ``TrackLabels/inheritRounds`` between its rounds: no label ever).
    public private(set) var roundsRun = 0
    /// What a patch round classifies (see the type's documentation).
    private enum RoundKind { case silence, coincident, lone, several }
    /// The round being classified (or last classified): its kind, patch number, the due heard
    /// sources' ids and bearings, and whether the mixture is in its batch.
    private var roundKind = RoundKind.silence
    private var roundPatch = 0, roundCount = 0, roundMixture = false
    /// The round's number of heard sources, its batch size once built (its patches classified,
    /// not counting a quieter copy), whether its lone source was classified unmasked, and
    /// whether a quieter copy of that patch follows it in the batch.
    private var roundHeard = 0, roundBatch = 0, roundUnmaskedLone = false, roundQuieterCopy = false
    private var roundIDs: [Int], roundAzimuths: [Double]
    /// Per heard source of the round, the position of its patch in the batch (−1: not
    /// classified this round).
    private var patchPosition: [Int]
    /// The round's patches planned (the due sources', then the mixture's), and how many of them
    /// were classified (the rest kept their labels, unchanged).
    private var roundPlanned = 0
    /// Per planned patch: whether it may keep its label if unchanged, the signature of its
    /// track's (or the mixture's) last classified patch, its own signature, and its index in the
    /// classified batch (−1: unchanged, not classified).
    private var roundMayKeep: [Bool]
    private let roundReferences: OwnedBuffer<Float>, roundSignatures: OwnedBuffer<Float>
    private var roundBatchIndex: [Int]
    /// Per due source of the round (by batch position), whether it holds most of the sound
    /// (``dominantPowerRatio``): its scores take in the mixture's.
    private var roundDominant: [Bool]
    /// Per due source of the round (by batch position), whether it was taken for a reflection
    /// of the loudest heard source (``imagePowerRatio``): not classified, nothing pooled.
    private var roundImage: [Bool]
    /// The heard sources' ids (as the round was planned), and whether the round took each for a
    /// reflection, due or not.
    private var heardIDs: [Int], heardImage: [Bool]
    /// The ids of the tracks lately taken for reflections, and the round until which each
    /// carries no label (``imageHoldRounds``).
    private var imageIDs: [Int], imageUntil: [Int]
    /// The number of sources heard at the latest patch round.
    private var heardAtLastRound = 0
    /// The unscaled mixture's label, from the latest round with no source heard.
    private var mixtureLabel: SoundLabel?
    /// One patch's class scores, and its quieter copy's.
    private let currentScores: OwnedBuffer<Float>, copyScores: OwnedBuffer<Float>
    /// The sources array of the records handed on (swapped in and out so that it is never shared).
    private var sourcesBuffer: [SourceRecord]

    /// - Parameters:
    ///   - classifier: the model and the names to report. With `asynchronous`, its network
    ///     belongs to the labeler's thread: use it for nothing else.
    ///   - configuration: the analysis's settings (its sample rate, array and ``AnalysisConfiguration/maxSources``).
    ///   - asynchronous: run the forward passes on a thread of the labeler's own, so that
    ///     ``append(left:right:)`` and ``label(_:emit:)`` never wait for them (live capture): a
    ///     round's labels then reach the records a few milliseconds later, and a round that comes
    ///     while the one before is still classified runs as soon as that one is done, on the
    ///     latest patch (``roundsDeferred``; skipped if the next round comes first,
    ///     ``roundsSkipped``). Without it
    ///     (the default) the passes run inline, and the same input gives the same records.
    /// - Throws: ``ClassifierError/resampler(_:)``.
    /// - Precondition: the classifier takes batches of ``batchSize(for:)`` patches
    ///   (``SoundClassifier/init(directory:labels:alerts:maximumBatch:arithmetic:)``).
    public init(classifier: SoundClassifier, configuration: AnalysisConfiguration, asynchronous: Bool = false) throws(ClassifierError) {
        precondition(
            classifier.network.maximumBatch >= Self.batchSize(for: configuration),
            "the classifier must take a batch of every source's patch and the mixture's")
        self.classifier = classifier
        self.configuration = configuration
        capacity = max(1, configuration.maxSources)
        frames16k = try StereoFrames16k(sampleRate: configuration.sampleRate)
        history = OnsetDelayHistory(array: configuration.array)
        snapshot = asynchronous ? OnsetDelayHistory(array: configuration.array) : nil
        masks = SourceMasks(array: configuration.array, capacity: capacity)
        tracks = TrackLabels(classifier: classifier, capacity: capacity)
        sourceIDs = [Int](repeating: 0, count: capacity)
        sourceLateral = [Double](repeating: 0, count: capacity)
        sourceAzimuth = [Double](repeating: 0, count: capacity)
        sourceActive = [Bool](repeating: false, count: capacity)
        heard = []
        heard.reserveCapacity(capacity)
        heardLateral = [Double](repeating: 0, count: capacity)
        roundIDs = [Int](repeating: 0, count: capacity)
        roundAzimuths = [Double](repeating: 0, count: capacity)
        patchPosition = [Int](repeating: -1, count: capacity)
        roundMayKeep = [Bool](repeating: false, count: capacity + 1)
        roundReferences = OwnedBuffer(zeros: (capacity + 1) * PatchSignature.count)
        roundSignatures = OwnedBuffer(zeros: (capacity + 1) * PatchSignature.count)
        roundBatchIndex = [Int](repeating: -1, count: capacity + 1)
        roundDominant = [Bool](repeating: false, count: capacity)
        roundImage = [Bool](repeating: false, count: capacity)
        heardIDs = [Int](repeating: 0, count: capacity)
        heardImage = [Bool](repeating: false, count: capacity)
        imageIDs = [Int](repeating: -1, count: capacity)
        imageUntil = [Int](repeating: Int.min / 2, count: capacity)
        currentScores = OwnedBuffer(zeros: YAMNet.classCount)
        copyScores = OwnedBuffer(zeros: YAMNet.classCount)
        sourcesBuffer = []
        sourcesBuffer.reserveCapacity(capacity)
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
    }

    /// With `asynchronous`, whether a round is being built or classified on the labeler's thread
    /// (a round that comes meanwhile is deferred). For tests that feed it faster than real time.
    var isRoundRunning: Bool {
        guard let worker else { return false }
        return !worker.isIdle && !worker.isDone
    }

    /// With `asynchronous`, makes every round take at least `seconds` more on the labeler's
    /// thread: a machine too slow for a round every 0.48 s, for tests.
    func slowWorker(by seconds: Double) {
        worker?.slowDown(by: UInt32(seconds * 1e6))
    }

    // MARK: - Samples in

    public func append(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) {
        collectRound()
        if roundPending, let worker, worker.isIdle {
            // A round came while the worker was busy: it runs now, on the latest patch, instead
            // of waiting 0.48 s for the next (on a loaded machine, the onset of a siren beside a
            // talker was alerted 4 s late when its rounds were skipped).
            roundPending = false
            roundsDeferred += 1
            runRound()
        }
        frames16k.append(left: left, right: right) {
            history.add(spectrumLeft: frames16k.spectrumLeft.baseAddress, spectrumRight: frames16k.spectrumRight.baseAddress)
            framesSincePatch += 1
            if history.framesStored == OnsetDelayHistory.frames && framesSincePatch >= Self.hop {
                framesSincePatch = 0
                classifyPatches()
            }
        }
    }

    // MARK: - Patch rounds

    /// A patch round, planned here (which sources are heard and due, and what kind of round),
    /// then built (``SourceMasks``) and classified: inline, or on the ``worker`` from a snapshot
    /// of the history, so that the caller's thread only copies the ring. ``finishRound()`` then
    /// reads the scores.
    private func classifyPatches() {
        if let worker, !worker.isIdle {
            // The previous round is still being built or classified: this round is never waited
            // for, it runs once the worker is free (`append`); one still pending is skipped.
            if roundPending { roundsSkipped += 1 }
            roundPending = true
            return
        }
        roundPending = false
        runRound()
    }

    /// Plans the next round (``roundsRun``) and builds and classifies it (see
    /// ``classifyPatches()``).
    private func runRound() {
        roundsRun += 1
        heard.removeAll(keepingCapacity: true)
        for i in 0..<sourceCount where sourceActive[i] { heard.append(i) }
        let count = heard.count
        heardAtLastRound = count
        // The heard sources due at this round (a labelled track every other round), in order.
        roundPatch = roundsRun
        roundCount = 0
        roundHeard = count
        for (j, i) in heard.enumerated() {
            heardLateral[j] = sourceLateral[i]
            heardIDs[j] = sourceIDs[i]
            patchPosition[j] = -1
            guard tracks.isDue(id: sourceIDs[i], round: roundsRun) else { continue }
            patchPosition[j] = roundCount
            roundIDs[roundCount] = sourceIDs[i]
            roundAzimuths[roundCount] = sourceAzimuth[i]
            roundCount += 1
        }
        if count == 0 {
            roundKind = .silence
        } else if roundCount == 0
            && (count == 1 || configuration.array.kind == .coincident || !tracks.isBroadbandDue(round: roundsRun)) {
            // Every heard source is labelled and was classified at the round before (and the
            // mixture too, or there is none to classify apart: a coincident pair).
            roundsRested += 1
            return
        } else if configuration.array.kind == .coincident {
            roundKind = .coincident
        } else if count == 1 {
            roundKind = .lone
        } else {
            roundKind = .several
            // The mixture at every round while a due track may alert (its support starts the
            // alert) or, with alerts asked for, is new (the mixture may hand it its alert).
            roundMixture = tracks.isBroadbandDue(round: roundsRun)
            let leads = !classifier.alerts.isEmpty
            for j in 0..<roundCount where !roundMixture {
                let id = roundIDs[j]
                if tracks.isAlertPossible(id: id) || (leads && tracks.isNew(id: id, round: roundsRun)) { roundMixture = true }
            }
        }
        planUnchanged()
        if let worker, let snapshot {
            history.copyRing(into: snapshot)
            worker.submit(self)
        } else {
            let batch = buildRound()
            classifier.classify(patches: batch.patches, count: batch.count)
            finishRound()
        }
    }

    /// Which of the round's patches may keep their track's (or the mixture's) label if their
    /// sound has not changed, with the signature to compare against: copied here, on the
    /// caller's thread, so that the worker reads nothing of ``tracks``.
    private func planUnchanged() {
        let n = PatchSignature.count
        // With several heard, the mixture's too: a dominant source may bring it into the batch
        // (``buildRound()`` settles the count).
        roundPlanned = roundKind == .several ? roundCount + 1 : 1
        for p in 0..<roundPlanned {
            roundMayKeep[p] = false
            let reference: UnsafePointer<Float>?
            switch roundKind {
            case .silence, .coincident:
                reference = nil
            case .lone, .several:
                reference = p < roundCount
                    ? tracks.unchangedReference(id: roundIDs[p], round: roundsRun)
                    : tracks.unchangedBroadbandReference(round: roundsRun)
            }
            guard let reference else { continue }
            (roundReferences.pointer + p * n).update(from: reference, count: n)
            roundMayKeep[p] = true
        }
    }

    /// Builds the planned round's patches (``classifyPatches()``): on the worker's thread from
    /// the snapshot, or inline from the history. Touches only the round's plan, the masks and
    /// the history it reads.
    func buildRound() -> (patches: UnsafePointer<Float>, count: Int) {
        let source = snapshot ?? history
        let frontEnd = frames16k.frontEnd  // its mel weights only: read-only, shared safely
        let count = roundHeard
        let batch: Int
        roundUnmaskedLone = false
        roundQuieterCopy = false
        for j in 0..<count { heardImage[j] = false }
        for p in 0..<roundCount { roundImage[p] = false }
        switch roundKind {
        case .silence:
            masks.build(history: source, frontEnd: frontEnd, sources: 0, positions: patchPosition, mixtureAt: 0, normalised: false)
            batch = 1
        case .coincident:
            masks.build(history: source, frontEnd: frontEnd, sources: 0, positions: patchPosition, mixtureAt: 0, normalised: true)
            batch = 1
        case .lone:
            masks.prepare(laterals: heardLateral, count: 1)
            if masks.foreignShare(history: source) <= Self.maximumForeignShare {
                // Raised to the patch level when quiet, never lowered: a lone source is the
                // unseparated signal (on labels_real.py's everyday sounds, lowering loud ones
                // named no more of them, and lifted a telephone's bell into an alarm).
                masks.build(
                    history: source, frontEnd: frontEnd, sources: 0, positions: patchPosition, mixtureAt: 0,
                    normalised: true, raiseOnly: true)
                roundUnmaskedLone = true
            } else {
                masks.build(history: source, frontEnd: frontEnd, sources: 1, positions: patchPosition, mixtureAt: -1, normalised: true)
            }
            batch = 1
        case .several:
            // The due sources' masked patches, and the mixture's, as heard, after them when it
            // is due: one batch.
            masks.prepare(laterals: heardLateral, count: count)
            masks.build(
                history: source, frontEnd: frontEnd, sources: count, positions: patchPosition,
                mixtureAt: roundCount, normalised: true, mixtureAsHeard: true)
            markReflections(history: source, count: count)
            // A due source that holds most of the sound is also named by the mixture, which
            // joins the batch for it (``dominantPowerRatio``).
            var total: Float = 0
            for j in 0..<count { total += masks.maskedPower(ofSource: j) }
            for j in 0..<count where patchPosition[j] >= 0 {
                let own = masks.maskedPower(ofSource: j)
                let dominant = own > 0 && own >= Self.dominantPowerRatio * (total - own)
                roundDominant[patchPosition[j]] = dominant
                if dominant { roundMixture = true }
            }
            batch = roundCount + (roundMixture ? 1 : 0)
            roundPlanned = batch
        }
        // Each patch's signature; a patch whose sound has not changed leaves the batch.
        let n = PatchSignature.count, patchSize = YAMNet.patchFrames * YAMNet.melBands
        var classified = 0
        for p in 0..<batch {
            if p < roundCount && roundImage[p] {
                roundBatchIndex[p] = -1  // a reflection's: not classified
                continue
            }
            let signature = roundSignatures.pointer + p * n
            PatchSignature.compute(patch: masks.patches + p * patchSize, frames: YAMNet.patchFrames, into: signature)
            if roundMayKeep[p],
                PatchSignature.distance(signature, roundReferences.pointer + p * n) < PatchSignature.unchangedDistance
            {
                roundBatchIndex[p] = -1
                continue
            }
            if classified != p { masks.movePatch(p, to: classified) }
            roundBatchIndex[p] = classified
            classified += 1
        }
        roundBatch = classified
        // A lone source's unmasked patch, raised, is also classified quieter: its scores are
        // the two copies' average (``SourceMasks/quieterCopyRatio``).
        roundQuieterCopy = roundUnmaskedLone && classified == 1 && masks.writeQuieterCopy(of: 0, gainIndex: 0, to: 1)
        return (masks.patches, classified + (roundQuieterCopy ? 1 : 0))
    }

    /// Marks the heard sources taken for reflections of the loudest (``imagePowerRatio``), once
    /// the masks of a round of several are built.
    private func markReflections(history source: OnsetDelayHistory, count: Int) {
        var loudest = 0
        for j in 1..<count where masks.maskedPower(ofSource: j) > masks.maskedPower(ofSource: loudest) { loudest = j }
        let power = masks.maskedPower(ofSource: loudest), side = heardLateral[loudest]
        guard power > 0 else { return }
        var held: Float = -1  // the loudest one's onset hold, once a source needs it
        for j in 0..<count where j != loudest {
            let lateral = heardLateral[j], own = masks.maskedPower(ofSource: j)
            guard lateral * side > 0, abs(lateral) < abs(side), own < Self.imagePowerRatio * power else { continue }
            if held < 0 { held = masks.heldPower(history: source, ofSource: loudest) }
            let ownHeld = masks.heldPower(history: source, ofSource: j)
            guard ownHeld < Self.imageHeldRatio * (held / power) * own || ownHeld < Self.imageHeldShare * held,
                masks.spectralSimilarity(history: source, loudest, j) >= Self.imageSimilarity
            else { continue }
            heardImage[j] = true
            if patchPosition[j] >= 0 { roundImage[patchPosition[j]] = true }
        }
    }

    /// The tracks the round took for reflections carry no label for ``imageHoldRounds`` rounds.
    private func holdReflections() {
        for j in 0..<roundHeard where heardImage[j] {
            let id = heardIDs[j]
            // Its entry, else the one whose hold ended first.
            var entry = 0
            for e in 0..<imageIDs.count {
                if imageIDs[e] == id { entry = e; break }
                if imageUntil[e] < imageUntil[entry] { entry = e }
            }
            imageIDs[entry] = id
            imageUntil[entry] = roundPatch + Self.imageHoldRounds
            imagesTaken += 1
        }
    }

    /// Whether track `id` was taken for a reflection within the last ``imageHoldRounds`` rounds.
    private func isHeldAsReflection(id: Int) -> Bool {
        for e in 0..<imageIDs.count where imageIDs[e] == id { return roundsRun < imageUntil[e] }
        return false
    }

    /// The results of a round that the worker has finished, if any, taken in.
    private func collectRound() {
        guard let worker, worker.isDone else { return }
        finishRound()
        worker.collect()
    }

    /// Reads the classified round's scores into the labels of its sources and of the record.
    private func finishRound() {
        patchesClassified += roundBatch
        patchesUnchanged += roundPlanned - roundBatch
        if roundUnmaskedLone && roundBatch > 0 { unmaskedLonePatches += 1 }
        let scores = currentScores.pointer, n = PatchSignature.count
        switch roundKind {
        case .silence:
            mixtureLabel = TrackLabels.reported(classifier.label(ofPatch: 0))
        case .coincident, .lone:
            // A sound is heard: the silent mixture's label no longer stands for the record.
            mixtureLabel = nil
            guard roundBatchIndex[0] >= 0 else {
                for j in 0..<roundCount { tracks.keep(id: roundIDs[j], azimuth: roundAzimuths[j], round: roundPatch) }
                return
            }
            classifier.scores(ofPatch: 0, into: scores)
            if roundQuieterCopy {
                let copy = copyScores.pointer
                classifier.scores(ofPatch: 1, into: copy)
                for c in 0..<YAMNet.classCount { scores[c] = 0.5 * (scores[c] + copy[c]) }
                quieterCopies += 1
            }
            for j in 0..<roundCount {
                tracks.store(
                    id: roundIDs[j], azimuth: roundAzimuths[j], scores: scores, signature: roundSignatures.pointer,
                    round: roundPatch)
            }
        case .several:
            mixtureLabel = nil
            holdReflections()
            var mixtureScores: UnsafePointer<Float>? = nil
            // The mixture first: a separated track's alert starts only with its support.
            if roundMixture {
                if roundBatchIndex[roundCount] >= 0 {
                    classifier.scores(ofPatch: roundBatchIndex[roundCount], into: scores)
                    tracks.storeBroadband(scores: scores, signature: roundSignatures.pointer + roundCount * n, round: roundPatch)
                } else {
                    tracks.keepBroadband(round: roundPatch)
                }
                // Its latest classified patch: this round's, or the one its unchanged sound kept.
                mixtureScores = tracks.broadbandLatestScores
            }
            for j in 0..<roundCount where !roundImage[j] {
                guard roundBatchIndex[j] >= 0 else {
                    tracks.keep(id: roundIDs[j], azimuth: roundAzimuths[j], round: roundPatch, separated: true)
                    continue
                }
                classifier.scores(ofPatch: roundBatchIndex[j], into: scores)
                if roundDominant[j], let mixtureScores {
                    let w = Self.dominantMixtureWeight
                    for c in 0..<YAMNet.classCount { scores[c] = (1 - w) * scores[c] + w * mixtureScores[c] }
                    dominantWithMixture += 1
                }
                tracks.store(
                    id: roundIDs[j], azimuth: roundAzimuths[j], scores: scores, signature: roundSignatures.pointer + j * n,
                    round: roundPatch, separated: true)
            }
            tracks.leadAlert(round: roundPatch)
        }
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
        tracks.setListed(record.sources)
        var out = record
        swap(&out.sources, &sourcesBuffer)
        out.sources.removeAll(keepingCapacity: true)
        var loudest = -1
        for i in 0..<record.sources.count {
            var source = record.sources[i]
            source.label = isHeldAsReflection(id: source.id)
                ? nil : tracks.label(of: source.id, azimuth: source.azimuth, round: roundsRun)
            out.sources.append(source)
            if source.active, source.label != nil, loudest < 0 || source.levelDBFS > out.sources[loudest].levelDBFS {
                loudest = i
            }
        }
        // Two or more heard: the unmasked mixture's pooled label, never worse than no separation.
        out.label = heardAtLastRound >= 2 && tracks.broadbandLabel != nil
            ? tracks.broadbandLabel : loudest >= 0 ? out.sources[loudest].label : mixtureLabel
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
