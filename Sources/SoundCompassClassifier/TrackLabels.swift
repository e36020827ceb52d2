import SoundCompassEngine

/// Names a score vector, favouring one name (hysteresis): what ``TrackLabels`` needs of a
/// classifier (``SoundClassifier`` in use; a stand-in in the tests, which need no model).
protocol ScoreNaming: AnyObject {
    /// The label of `scores` (``YAMNet/classCount`` of them); `favoured` ranks as if its score
    /// were `margin` times what it is; `alerting`: whether the owner's previous label alerted
    /// (an alert holds on weaker evidence than it starts on); `best` is set to the reported
    /// name's index.
    func label(scores: UnsafePointer<Float>, favouring favoured: Int, by margin: Float, alerting: Bool, best: inout Int) -> SoundLabel
    /// Whether an alert class is near in `scores`: among the three best of all with at least
    /// the score that holds an alert (it may start at the next patch). False with no alerts.
    func isAlertNear(scores: UnsafePointer<Float>) -> Bool
    /// Whether the alert named `name` has one of its classes at ``SoundClassifier/alertHoldScore``
    /// or more in `scores`, wherever it ranks: the unseparated mixture's support for a separated
    /// source's alert.
    func supportsAlert(named name: String, scores: UnsafePointer<Float>) -> Bool
    /// The index of the first alert that `scores` start (``SoundClassifier/alertStartScore``'s
    /// rule), or nil.
    func startedAlert(scores: UnsafePointer<Float>) -> Int?
    /// Whether alert `index` holds in `scores`: one of its classes among the three best with at
    /// least ``SoundClassifier/alertHoldScore``.
    func holdsAlert(_ index: Int, scores: UnsafePointer<Float>) -> Bool
    /// The largest score of alert `index`'s classes in `scores`.
    func alertScore(_ index: Int, scores: UnsafePointer<Float>) -> Float
    /// The name of alert `index`.
    func alertName(_ index: Int) -> String
}

extension SoundClassifier: ScoreNaming {}

/// What each tracked source is, as a property of its track: class scores pooled over its
/// patches, with hysteresis, a gate on the track's age, and carry-over to a new id at the same
/// bearing; and the unmasked mixture's pooled label. The fourth of ``SourceLabeler``'s parts.
///
/// - **Pooling**: the first two patches averaged, then an exponential average in which each new
///   patch weighs 1/``poolPatches`` (a time constant of three patch rounds, 1.44 s).
/// - **Hysteresis**: the name reported keeps its place until another name's pooled score is
///   ``switchMargin`` times its own.
/// - **Gate**: a track carries a label (and can alert) once it has been heard at
///   ``establishedRounds`` rounds; a track not heard for more than ``inheritRounds`` rounds
///   starts again. A label scoring under ``minimumLabelScore`` is withheld unless it alerts.
/// - **Corroboration**: with several sources heard, a track's patch is cut from the mixture by
///   masks, and a mask can make a sound of what is not one (a reflection of applause masked to a
///   tone reads "Siren"). So a separated track's alert starts only when the unmasked mixture
///   supports it: one of the alert's classes scores ``SoundClassifier/alertHoldScore`` or more in
///   the mixture's patch of the same round, or in its pooled scores. Unsupported, the track's
///   label is withheld for that round. A lone source's patch is the mixture: it needs none.
/// - **Lead**: the other way round, an alert that the mixture starts beside a sound it had
///   already named goes to the new track that carries it, before the track's own masked patches
///   name it (``leadAlert(round:)``).
/// - **Carry-over**: a source listed under a new id within ``inheritDegrees`` of a labelled
///   track the record no longer lists, heard within ``inheritRounds`` rounds, takes its slot.
/// - **Refresh**: a labelled track that raises no alert, nor is near one, has a patch built
///   every other round, on patches that do not overlap (``isDue(id:round:)``); a new,
///   unlabelled, alerting or nearly alerting one at every round. A labelled track's patch whose
///   sound has not changed since its last classified one (``PatchSignature``) is not classified
///   again, for at most ``maximumUnchangedRounds`` rounds: that patch's scores are pooled again
///   in its place (``unchangedReference(id:round:)``, ``keep(id:azimuth:round:separated:)``).
///
/// Rounds are the labeler's patch rounds run (one every 0.48 s; fewer when its thread cannot
/// keep up, whose skipped rounds do not count). Life cycle: `init` allocates everything; no
/// method allocates.
final class TrackLabels {
    // MARK: - Constants

    /// A label whose best reported score is below this is withheld (`null`) unless it alerts.
    /// The floor lies in the gap measured on TestSignals' sounds (NumPy YAMNet, `--labels
    /// everyday`, patches every 0.48 s): a sound of the set scored 0.21 or more for its own
    /// group (beeps 0.21–0.94, the siren 0.24–0.86, speech 0.56–1.0, silence 1.0), a sound
    /// outside it 0.06 or less (pink noise of RMS 0.1: 0.001–0.010, white noise: 0.004–0.057).
    static let minimumLabelScore: Double = 0.1
    /// A new patch's weight in a track's pooled scores, from the third patch on: 1/3.
    static let poolPatches: Float = 3
    /// Rounds a track must have been heard at before it carries a label: its first label comes
    /// 0.5–1 s after its onset, and a track that lives less (a reflection's, a ghost's) carries none.
    static let establishedRounds = 2
    /// The factor by which another name's pooled score must exceed the reported one's to take
    /// its place.
    static let switchMargin: Float = 1.25
    /// A new source within this many degrees of a labelled track no longer listed takes it.
    static let inheritDegrees = 20.0
    /// How many rounds (0.48 s each: 1.92 s) a track may go unheard and still be pooled on, or
    /// be taken over by a new id.
    static let inheritRounds = 4
    /// A labelled track whose sound has not changed is classified again after this many rounds
    /// (0.48 s each: 7.68 s) all the same. A safety net only: a patch is compared with the last
    /// one classified, so a sound that drifts is classified once it has drifted 0.35 away.
    static let maximumUnchangedRounds = 16
    /// A track first heard within this many rounds (0.48 s each) counts as new: the mixture's
    /// alert may be handed to it (``leadAlert(round:)``). The police siren beside a talker of
    /// `labels_real.py` is listed 0.5–0.9 s after its onset and named by the mixture 1.4 s
    /// after it: its track is then 1–2 rounds old, the talker's 3 or more.
    static let leadRounds = 3
    /// Pooled scores whose best reported name raises no alert and scores at least this name
    /// another sound (the talker's "Speech" 0.68–0.75 beside the rising siren; the siren's own
    /// masked patches 0.08–0.28 for whatever they read).
    static let otherSoundScore: Double = 0.5

    // MARK: - State

    private let classifier: any ScoreNaming
    /// Per slot (reused as ids go away): its source id (−1: free), label, last round heard (a
    /// patch built: classified, or kept as unchanged), last round classified, bearing when last
    /// heard, rounds pooled, favoured name (an index into the reported names), pooled scores
    /// (``YAMNet/classCount`` a slot), and the signature of the last patch classified
    /// (``PatchSignature/count`` a slot).
    private var ids: [Int], labels: [SoundLabel?], lastRound: [Int], classifiedRound: [Int], azimuths: [Double]
    private var rounds: [Int], favoured: [Int]
    private let scores: OwnedBuffer<Float>
    private let signatures: OwnedBuffer<Float>
    /// Per slot the scores of its last classified patch (unpooled).
    private let latest: OwnedBuffer<Float>
    /// The ids the latest record lists.
    private var listed: [Int]
    private var listedCount = 0
    /// Whether each of them is active (heard) in that record.
    private var listedActive: [Bool]
    /// The unmasked mixture's pooled scores and label, and its bookkeeping.
    private let broadbandScores: OwnedBuffer<Float>
    private(set) var broadbandLabel: SoundLabel?
    private var broadbandRounds = 0, broadbandFavoured = -1, broadbandRound = Int.min / 2
    private var broadbandClassified = Int.min / 2
    private let broadbandSignature: OwnedBuffer<Float>
    /// The mixture's latest classified patch's scores (unpooled), of round `broadbandClassified`.
    private let broadbandLatest: OwnedBuffer<Float>
    /// Alerts of separated tracks withheld because the mixture did not support them.
    private(set) var alertsWithheld = 0
    /// Per slot: the round its source was first heard (its track's latest start, or the round
    /// its id took the slot over), and the alert (an index into the classifier's) that the
    /// mixture hands it (``leadAlert(round:)``; −1: none).
    private var firstRound: [Int], mixtureAlert: [Int]
    /// The mixture's pooled scores before its latest patch was pooled in.
    private let broadbandBefore: OwnedBuffer<Float>
    /// Alerts the mixture handed to a new track (``leadAlert(round:)``).
    private(set) var alertsLed = 0

    /// - Parameters:
    ///   - classifier: names the pooled scores (its label set and alerts).
    ///   - capacity: the most sources a record lists.
    init(classifier: any ScoreNaming, capacity: Int) {
        self.classifier = classifier
        let slots = capacity + 4
        ids = [Int](repeating: -1, count: slots)
        labels = [SoundLabel?](repeating: nil, count: slots)
        lastRound = [Int](repeating: Int.min / 2, count: slots)
        classifiedRound = [Int](repeating: Int.min / 2, count: slots)
        azimuths = [Double](repeating: 0, count: slots)
        rounds = [Int](repeating: 0, count: slots)
        favoured = [Int](repeating: -1, count: slots)
        scores = OwnedBuffer(zeros: slots * YAMNet.classCount)
        signatures = OwnedBuffer(zeros: slots * PatchSignature.count)
        latest = OwnedBuffer(zeros: slots * YAMNet.classCount)
        listed = [Int](repeating: 0, count: capacity)
        listedActive = [Bool](repeating: false, count: capacity)
        broadbandScores = OwnedBuffer(zeros: YAMNet.classCount)
        broadbandSignature = OwnedBuffer(zeros: PatchSignature.count)
        broadbandLatest = OwnedBuffer(zeros: YAMNet.classCount)
        broadbandBefore = OwnedBuffer(zeros: YAMNet.classCount)
        firstRound = [Int](repeating: Int.min / 2, count: slots)
        mixtureAlert = [Int](repeating: -1, count: slots)
    }

    /// `label`, or nil when its best score is below ``minimumLabelScore`` and it raises no alert.
    static func reported(_ label: SoundLabel) -> SoundLabel? {
        label.score >= minimumLabelScore || label.alert ? label : nil
    }

    /// Pools a patch's scores into a track's (see the type's documentation).
    static func pool(_ current: UnsafePointer<Float>, into pooled: UnsafeMutablePointer<Float>, rounds: Int) {
        let weight = 1 / min(Float(rounds), poolPatches)
        for c in 0..<YAMNet.classCount { pooled[c] += weight * (current[c] - pooled[c]) }
    }

    /// The sources the latest record lists (a track they no longer list can be taken over).
    func setListed(_ sources: [SourceRecord]) {
        listedCount = min(sources.count, listed.count)
        for i in 0..<listedCount {
            listed[i] = sources[i].id
            listedActive[i] = sources[i].active
        }
    }

    private func isListed(_ id: Int) -> Bool {
        for i in 0..<listedCount where listed[i] == id { return true }
        return false
    }

    /// Whether the latest record lists source `id` as active.
    private func isActiveNow(_ id: Int) -> Bool {
        for i in 0..<listedCount where listed[i] == id { return listedActive[i] }
        return false
    }

    /// Pools a patch's scores into source `id`'s track (heard at `azimuth` at `round`) and labels
    /// it from its pooled scores once it is established; `signature` is the patch's
    /// (``PatchSignature``). `separated`: the patch was cut from the mixture by masks (several
    /// heard), so an alert starts only with the mixture's support (store the round's mixture
    /// patch first).
    func store(
        id: Int, azimuth: Double, scores current: UnsafePointer<Float>, signature: UnsafePointer<Float>, round: Int,
        separated: Bool = false
    ) {
        let s = slot(for: id, azimuth: azimuth, round: round)
        (latest.pointer + s * YAMNet.classCount).update(from: current, count: YAMNet.classCount)
        poolAndLabel(slot: s, scores: current, round: round, separated: separated)
        classifiedRound[s] = round
        azimuths[s] = azimuth
        (signatures.pointer + s * PatchSignature.count).update(from: signature, count: PatchSignature.count)
    }

    /// Pools `current` into slot `s`'s scores at `round` and labels the track from them
    /// (``store(id:azimuth:scores:signature:round:separated:)``, ``keep(id:azimuth:round:separated:)``).
    private func poolAndLabel(slot s: Int, scores current: UnsafePointer<Float>, round: Int, separated: Bool) {
        let pooled = scores.pointer + s * YAMNet.classCount
        if round - lastRound[s] <= Self.inheritRounds {
            rounds[s] += 1
        } else {
            rounds[s] = 1
            favoured[s] = -1
            firstRound[s] = round
            mixtureAlert[s] = -1
        }
        Self.pool(current, into: pooled, rounds: rounds[s])
        var best = favoured[s]
        let alerting = rounds[s] > 1 && labels[s]?.alert == true
        let label = classifier.label(scores: pooled, favouring: best, by: Self.switchMargin, alerting: alerting, best: &best)
        favoured[s] = best
        var reported = rounds[s] >= Self.establishedRounds ? Self.reported(label) : nil
        if separated, !alerting, let starting = reported, starting.alert, !mixtureSupports(starting.alertName, round: round) {
            reported = nil
            alertsWithheld += 1
        }
        labels[s] = reported
        lastRound[s] = round
    }

    /// The signature of the last patch classified of source `id`'s track, when the track may
    /// keep its label without classifying a patch whose sound has not changed: it is labelled,
    /// raises no alert nor is near one, and was classified fewer than ``maximumUnchangedRounds``
    /// rounds before `round`. Else nil.
    func unchangedReference(id: Int, round: Int) -> UnsafePointer<Float>? {
        guard let s = ids.firstIndex(of: id), isSettled(labels[s], scores: scores.pointer + s * YAMNet.classCount),
            round - classifiedRound[s] < Self.maximumUnchangedRounds
        else { return nil }
        return UnsafePointer(signatures.pointer + s * PatchSignature.count)
    }

    /// Source `id`'s track was heard at `round`, at `azimuth`, and its patch was not classified
    /// (its sound unchanged: ``unchangedReference(id:round:)``). The same sound gives the same
    /// scores, so its last classified patch's are pooled again: the label follows what the track
    /// sounds like now, not what its first patches heard (a running tap whose first patch, its
    /// onset, read "Dishes, pots, and pans" kept that name for the whole file while every later
    /// patch was judged unchanged from the second). `separated`: as in ``store(id:azimuth:scores:signature:round:separated:)``.
    func keep(id: Int, azimuth: Double, round: Int, separated: Bool = false) {
        guard let s = ids.firstIndex(of: id) else { return }
        poolAndLabel(slot: s, scores: latest.pointer + s * YAMNet.classCount, round: round, separated: separated)
        azimuths[s] = azimuth
    }

    /// Whether the unmasked mixture supports alert `name` at `round`: its patch of that round, or
    /// its pooled scores while recent (see the type's documentation).
    private func mixtureSupports(_ name: String, round: Int) -> Bool {
        if broadbandClassified == round, classifier.supportsAlert(named: name, scores: broadbandLatest.pointer) { return true }
        return round - broadbandRound <= Self.inheritRounds && classifier.supportsAlert(named: name, scores: broadbandScores.pointer)
    }

    /// Whether source `id`'s track may start or holds an alert: its label alerts, or an alert
    /// class is near in its pooled scores. The mixture is then classified at every round, so
    /// that a separated alert finds its support (``store(id:azimuth:scores:signature:round:separated:)``).
    func isAlertPossible(id: Int) -> Bool {
        guard let s = ids.firstIndex(of: id) else { return false }
        return labels[s]?.alert == true || classifier.isAlertNear(scores: scores.pointer + s * YAMNet.classCount)
    }

    /// The mixture's alert handed to the new track that carries it. Call at the end of a round
    /// with two or more heard, after ``storeBroadband(scores:signature:round:)`` and every
    /// ``store(id:azimuth:scores:signature:round:separated:)`` of `round`.
    ///
    /// A masked patch of a sound that has just started beside a louder one reads as the louder
    /// one: a police siren rising beside a talker at its level read "Speech" or "Music" in its
    /// first masked patches while the unmasked mixture already named it. So when the mixture's
    /// patch of this round starts an alert (``SoundClassifier/alertStartScore``'s rule) while
    /// its pooled scores before it held none and named another sound (at least
    /// ``otherSoundScore``), the alert goes to a source active in the latest record, its patch
    /// built at this round or the one before, that does not name another sound itself (the
    /// talker does): the one first heard earliest (precedence: a reflection, or a phantom
    /// between two sources, is listed after the direct sound), and of those first heard at the
    /// same round the one whose pooled scores give the alert's classes most; provided that
    /// track is new (first heard within ``leadRounds`` rounds): the new sound's onset made a new
    /// track. Else no track takes it: an established one alerts on its own evidence. The handed
    /// alert holds while the mixture's patches hold it (its class among their three best at
    /// ``SoundClassifier/alertHoldScore``) and the source is active and heard; the track's own
    /// alert, once its patches name the sound, goes on by the usual rule.
    func leadAlert(round: Int) {
        guard broadbandClassified == round else { return }
        let latest = UnsafePointer(broadbandLatest.pointer)
        for s in ids.indices where mixtureAlert[s] >= 0 {
            let a = mixtureAlert[s]
            guard ids[s] >= 0, isActiveNow(ids[s]), round - lastRound[s] <= 1, classifier.holdsAlert(a, scores: latest) else {
                mixtureAlert[s] = -1
                continue
            }
            markAlert(slot: s, alert: a)
        }
        guard let a = classifier.startedAlert(scores: latest), !classifier.isAlertNear(scores: broadbandBefore.pointer),
            namesOtherSound(broadbandBefore.pointer)
        else { return }
        let name = classifier.alertName(a)
        // The earliest heard (precedence: a reflection or a phantom is listed after the direct
        // sound), of equals the one whose scores give the alert's classes most.
        var pick = -1, pickScore: Float = -1
        for s in ids.indices where ids[s] >= 0 && isActiveNow(ids[s]) && round - lastRound[s] <= 1 {
            let pooled = scores.pointer + s * YAMNet.classCount
            if labels[s]?.alert == true && labels[s]?.alertName == name { return }  // alerting on its own
            guard mixtureAlert[s] < 0, !namesOtherSound(pooled) else { continue }
            let score = classifier.alertScore(a, scores: pooled)
            if pick < 0 || firstRound[s] < firstRound[pick] || (firstRound[s] == firstRound[pick] && score > pickScore) {
                pickScore = score
                pick = s
            }
        }
        guard pick >= 0, round - firstRound[pick] < Self.leadRounds else { return }
        mixtureAlert[pick] = a
        alertsLed += 1
        markAlert(slot: pick, alert: a)
    }

    /// Whether `scores` name a sound that raises no alert with at least ``otherSoundScore``.
    private func namesOtherSound(_ scores: UnsafePointer<Float>) -> Bool {
        var best = -1
        let label = classifier.label(scores: scores, favouring: -1, by: 1, alerting: false, best: &best)
        return !label.alert && label.score >= Self.otherSoundScore
    }

    /// Slot `s`'s label raised to alert `a` (its own names kept; made from its pooled scores
    /// when it has no label yet).
    private func markAlert(slot s: Int, alert a: Int) {
        var label: SoundLabel
        if let own = labels[s] {
            label = own
        } else {
            var best = favoured[s]
            label = classifier.label(
                scores: scores.pointer + s * YAMNet.classCount, favouring: best, by: Self.switchMargin, alerting: false,
                best: &best)
        }
        if !label.alert {
            label.alert = true
            label.alertName = classifier.alertName(a)
        }
        labels[s] = label
    }

    /// Whether source `id`'s track is new: first heard within ``leadRounds`` rounds of `round`,
    /// or not yet heard (the mixture is then classified at every round, so that its alert can
    /// be handed to it: ``leadAlert(round:)``).
    func isNew(id: Int, round: Int) -> Bool {
        guard let s = ids.firstIndex(of: id) else { return true }
        return round - firstRound[s] < Self.leadRounds
    }

    /// Pools a patch of the unmasked mixture (two or more heard) into the record's own label;
    /// `signature` is the patch's.
    func storeBroadband(scores current: UnsafePointer<Float>, signature: UnsafePointer<Float>, round: Int) {
        broadbandLatest.pointer.update(from: current, count: YAMNet.classCount)
        poolBroadband(current, round: round)
        broadbandClassified = round
        broadbandSignature.pointer.update(from: signature, count: PatchSignature.count)
    }

    /// Pools a patch's scores into the mixture's and labels it (``storeBroadband(scores:signature:round:)``,
    /// ``keepBroadband(round:)``).
    private func poolBroadband(_ current: UnsafePointer<Float>, round: Int) {
        let recent = round - broadbandRound <= Self.inheritRounds
        if recent {
            broadbandBefore.pointer.update(from: broadbandScores.pointer, count: YAMNet.classCount)
        } else {
            broadbandBefore.pointer.update(repeating: 0, count: YAMNet.classCount)
        }
        broadbandRounds = recent ? broadbandRounds + 1 : 1
        Self.pool(current, into: broadbandScores.pointer, rounds: broadbandRounds)
        broadbandRound = round
        var best = recent ? broadbandFavoured : -1
        let alerting = recent && broadbandLabel?.alert == true
        broadbandLabel = Self.reported(
            classifier.label(
                scores: broadbandScores.pointer, favouring: best, by: Self.switchMargin, alerting: alerting, best: &best))
        broadbandFavoured = best
    }

    /// The label of source `id` (heard at `azimuth`): its track's, or that of a track it takes
    /// over (``inheritDegrees``), or nil.
    func label(of id: Int, azimuth: Double, round: Int) -> SoundLabel? {
        if let s = ids.firstIndex(of: id) { return labels[s] }
        guard let s = inheritableSlot(azimuth: azimuth, round: round) else { return nil }
        take(slot: s, id: id, round: round)
        return labels[s]
    }

    /// Whether source `id`'s track has a patch built at `round` (classified, unless its sound
    /// has not changed: ``unchangedReference(id:round:)``): at every round while it is new
    /// (not yet labelled), weak (no label reported), alerting (an alert must end as soon as its
    /// sound) or near an alert (an alert class among its three best at 0.15 or more: a siren
    /// whose first label scores just under the start of an alert is alerted 0.48 s later, not
    /// 0.96 s); once labelled, every other round, on patches that then do not overlap (0.96 s
    /// apart: its label refreshes every 0.96 s, each patch new evidence). On
    /// `Benchmarks/accuracy/labels_real.py` (seeds 44–46) this named as many sources as
    /// classifying every round (alone 86 against 83 of 132, beside a talker 48 against 50) with a
    /// third fewer patches; every third round named fewer beside a talker (45).
    func isDue(id: Int, round: Int) -> Bool {
        guard let s = ids.firstIndex(of: id), isSettled(labels[s], scores: scores.pointer + s * YAMNet.classCount)
        else { return true }
        return round - lastRound[s] >= 2
    }

    /// The signature of the mixture's last patch classified, when the mixture's label may stand
    /// without classifying a patch whose sound has not changed (as
    /// ``unchangedReference(id:round:)`` for a track). Else nil.
    func unchangedBroadbandReference(round: Int) -> UnsafePointer<Float>? {
        guard isSettled(broadbandLabel, scores: broadbandScores.pointer), round - broadbandRound <= Self.inheritRounds,
            round - broadbandClassified < Self.maximumUnchangedRounds
        else { return nil }
        return UnsafePointer(broadbandSignature.pointer)
    }

    /// The scores of the mixture's last classified patch (unpooled; zeros before the first).
    var broadbandLatestScores: UnsafePointer<Float> { UnsafePointer(broadbandLatest.pointer) }

    /// The mixture's patch at `round` kept its label (its sound unchanged): its last classified
    /// patch's scores are pooled again, as for a track (``keep(id:azimuth:round:separated:)``).
    func keepBroadband(round: Int) {
        poolBroadband(broadbandLatest.pointer, round: round)
    }

    /// Whether the unmasked mixture is classified at `round` (two or more heard): every other
    /// round once it has a label that raises no alert, like a track.
    func isBroadbandDue(round: Int) -> Bool {
        guard isSettled(broadbandLabel, scores: broadbandScores.pointer) else { return true }
        return round - broadbandRound >= 2
    }

    /// Whether a track (or the mixture) with `label` and pooled `scores` is settled: labelled,
    /// raising no alert, with no alert class near. Only a settled one is classified every other
    /// round, or keeps its label over an unchanged patch.
    private func isSettled(_ label: SoundLabel?, scores: UnsafePointer<Float>) -> Bool {
        guard let label, !label.alert else { return false }
        return !classifier.isAlertNear(scores: scores)
    }

    /// The slot of source `id`: its own; else that of a labelled track the latest record no
    /// longer lists, within ``inheritDegrees`` of `azimuth` and ``inheritRounds``, which it
    /// takes over; else a fresh one (a free slot, or the stalest whose source is gone).
    private func slot(for id: Int, azimuth: Double, round: Int) -> Int {
        if let s = ids.firstIndex(of: id) { return s }
        if let s = inheritableSlot(azimuth: azimuth, round: round) {
            take(slot: s, id: id, round: round)
            return s
        }
        var fresh = 0, freshRound = Int.max
        for s in ids.indices where ids[s] < 0 || !isListed(ids[s]) {
            if lastRound[s] < freshRound { freshRound = lastRound[s]; fresh = s }
        }
        ids[fresh] = id
        labels[fresh] = nil
        lastRound[fresh] = Int.min / 2
        classifiedRound[fresh] = Int.min / 2
        rounds[fresh] = 0
        favoured[fresh] = -1
        return fresh
    }

    /// Slot `s` taken over by source `id` at `round`: its label and pooled scores carry over,
    /// but the source is first heard now (``leadAlert(round:)`` goes by when each source was
    /// first heard: a new id listed after a telephone's onset, taking over the track of a ghost
    /// listed before it, must not count as heard before the telephone).
    private func take(slot s: Int, id: Int, round: Int) {
        ids[s] = id
        firstRound[s] = round
    }

    /// A recent labelled track that the latest record does not list, nearest `azimuth` within
    /// ``inheritDegrees``.
    private func inheritableSlot(azimuth: Double, round: Int) -> Int? {
        var found: Int?, nearest = Self.inheritDegrees
        for s in ids.indices where ids[s] >= 0 && labels[s] != nil && !isListed(ids[s]) {
            guard round - lastRound[s] <= Self.inheritRounds else { continue }
            let distance = abs(azimuths[s] - azimuth)
            if distance <= nearest { nearest = distance; found = s }
        }
        return found
    }
}
