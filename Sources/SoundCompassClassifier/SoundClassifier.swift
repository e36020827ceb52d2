import SoundCompassEngine

/// YAMNet with its class names, a ``LabelSet`` and the alert classes: turns a log-mel patch
/// into a ``SoundLabel``.
///
/// Life cycle: `init` reads the model and allocates; ``label(patch:)``,
/// ``classify(patches:count:)``, ``label(ofPatch:)``, ``scores(ofPatch:into:)`` and
/// ``label(scores:)`` never allocate.
public final class SoundClassifier {
    /// The network.
    public let network: YAMNet
    /// The model's class names.
    public let classes: ClassMap
    /// The names reported.
    public let labels: LabelSet
    /// The alert names and the classes each covers (`--alert`).
    public let alerts: [(name: String, classes: [Int])]
    /// An alert starts when one of its classes is the best of all 521 with at least this score,
    /// or scores at least ``alertStrongScore`` wherever it ranks; once raised, it holds while
    /// the class stays among the three best with at least ``alertHoldScore`` (hysteresis: an
    /// alert does not flicker). Scores are a track's pooled ones (``SourceLabeler``). Measured
    /// on `Benchmarks/accuracy/labels_real.py`'s everyday sounds over seeds 44–50 (29 minutes
    /// each way): the rule before (among the three best at 0.15) raised 14.6 false alerts per
    /// 10 minutes alone and 4.1 beside a talker; the best of all at 0.3 raises 2.7 and 0.3, and
    /// alerts the same sirens and horns within 1.5 s (asking for the best at 0.3 at two rounds
    /// in a row leaves 1.0 alone, but catches 10 of 14 sirens in time instead of 14). The
    /// strong score, 0.7, lets a class alert behind a broader one of the same sound ("Vehicle"
    /// above "Vehicle horn"); at 0.5 it added a false "Fire alarm" on applause.
    /// With several sources heard, ``TrackLabels`` also asks the unmasked mixture to support a
    /// separated source's alert before it starts (``supportsAlert(named:scores:)``).
    public static let alertStartScore: Float = 0.3
    /// See ``alertStartScore``.
    public static let alertStrongScore: Float = 0.7
    /// See ``alertStartScore``.
    public static let alertHoldScore: Float = 0.15

    private let logits: UnsafeMutablePointer<Float>
    private let scores: UnsafeMutablePointer<Float>

    /// Reads the model from `directory` (`yamnet.weights` and `yamnet_class_map.csv`).
    /// - Parameters:
    ///   - directory: the model directory (``YAMNetWeights/defaultDirectory(environment:)`` gives
    ///     the one `scripts/fetch-model` fills).
    ///   - labels: what to report: `all`, `everyday` or a list (see ``LabelSet``).
    ///   - alerts: comma-separated everyday groups or class names to alert on (empty: none).
    ///   - maximumBatch: most patches per ``classify(patches:count:)``.
    ///   - arithmetic: the network's products (``YAMNet/Arithmetic``): by default the faster on
    ///     this machine.
    /// - Throws: ``ClassifierError``.
    public init(
        directory: String, labels: String = "all", alerts: String = "",
        maximumBatch: Int = 1, arithmetic: YAMNet.Arithmetic = YAMNet.fastestArithmetic
    ) throws(ClassifierError) {
        let weights = try YAMNetWeights(path: directory + "/" + YAMNetWeights.fileName)
        let classes = try ClassMap(path: directory + "/" + YAMNetWeights.classMapFileName)
        self.network = YAMNet(weights: weights, maximumBatch: maximumBatch, arithmetic: arithmetic)
        self.classes = classes
        self.labels = try LabelSet(parsing: labels, classes: classes)
        self.alerts = try LabelSet.alertClasses(alerts, classes: classes)
        logits = .allocate(capacity: YAMNet.classCount * maximumBatch)
        logits.initialize(repeating: 0, count: YAMNet.classCount * maximumBatch)
        scores = .allocate(capacity: YAMNet.classCount)
        scores.initialize(repeating: 0, count: YAMNet.classCount)
    }

    deinit {
        logits.deallocate()
        scores.deallocate()
    }

    /// The logits of the last ``label(patch:)``, by class index.
    public var lastLogits: UnsafeBufferPointer<Float> { UnsafeBufferPointer(start: logits, count: YAMNet.classCount) }

    /// Classifies one patch.
    /// - Parameter patch: `96 × 64` log-mel values, frame-major (``LogMelFrontEnd``).
    /// - Returns: the three best of ``labels`` and whether an alert class appears.
    public func label(patch: UnsafePointer<Float>) -> SoundLabel {
        classify(patches: patch, count: 1)
        return label(ofPatch: 0)
    }

    /// Runs the network on `count` patches at once (see ``YAMNet``); ``label(ofPatch:)`` then
    /// names each.
    /// - Parameters:
    ///   - patches: `count` patches of `96 × 64` log-mel values one after another.
    ///   - count: 0…``YAMNet/maximumBatch`` (0: nothing is run).
    public func classify(patches: UnsafePointer<Float>, count: Int) {
        guard count > 0 else { return }
        network.logits(patches: patches, count: count, into: logits)
    }

    /// The label of patch `index` of the last ``classify(patches:count:)``.
    public func label(ofPatch index: Int) -> SoundLabel {
        scores(ofPatch: index, into: scores)
        return label(scores: scores)
    }

    /// The 521 class scores (sigmoids, 0…1, by class index) of patch `index` of the last
    /// ``classify(patches:count:)``.
    /// - Parameters:
    ///   - index: the patch, 0..<count.
    ///   - out: ``YAMNet/classCount`` values.
    public func scores(ofPatch index: Int, into out: UnsafeMutablePointer<Float>) {
        let logits = self.logits + index * YAMNet.classCount
        for c in 0..<YAMNet.classCount { out[c] = YAMNet.score(logit: logits[c]) }
    }

    /// The label of a score vector (``scores(ofPatch:into:)``, or an average of several): the
    /// three best of ``labels`` (a group scores its best class) and whether an alert class
    /// appears (see ``alertStartScore``).
    /// - Parameter scores: ``YAMNet/classCount`` scores, by class index.
    public func label(scores: UnsafePointer<Float>) -> SoundLabel {
        var best = -1
        return label(scores: scores, favouring: -1, by: 1, alerting: false, best: &best)
    }

    /// The label of a score vector, with hysteresis: reported name `favoured` (an index into
    /// ``LabelSet/names``; −1 for none) ranks as if its score were `margin` times what it is, so
    /// that another name takes its place only when it scores clearly more. The scores reported
    /// are the real ones. The alert follows ``alertStartScore``'s rule: `alerting` says whether
    /// the previous label of the same scores' owner alerted (then it holds on weaker evidence).
    /// - Parameters:
    ///   - scores: ``YAMNet/classCount`` scores, by class index.
    ///   - favoured: the name to favour, or −1.
    ///   - margin: its ranking factor (≥ 1).
    ///   - alerting: whether an alert stands.
    ///   - best: set to the index of the best name reported.
    func label(
        scores: UnsafePointer<Float>, favouring favoured: Int, by margin: Float, alerting: Bool, best bestIndex: inout Int
    ) -> SoundLabel {
        // The three best reported names.
        var best = (-1, -1, -1), bestScore: (Float, Float, Float) = (-1, -1, -1)
        var real: (Float, Float, Float) = (0, 0, 0)
        labels.members.withUnsafeBufferPointer { members in
            for i in 0..<members.count {
                var score: Float = 0
                for c in members[i] { score = max(score, scores[c]) }
                let s = i == favoured ? score * margin : score
                if s > bestScore.0 {
                    real = (score, real.0, real.1)
                    best = (i, best.0, best.1); bestScore = (s, bestScore.0, bestScore.1)
                } else if s > bestScore.1 {
                    real = (real.0, score, real.1)
                    best = (best.0, i, best.1); bestScore = (bestScore.0, s, bestScore.1)
                } else if s > bestScore.2 {
                    real.2 = score
                    best.2 = i; bestScore.2 = s
                }
            }
        }
        bestIndex = best.0
        let names = labels.names
        var label = SoundLabel(
            name: names[best.0], score: Double(real.0),
            secondName: best.1 >= 0 ? names[best.1] : "", secondScore: Double(max(0, real.1)),
            thirdName: best.2 >= 0 ? names[best.2] : "", thirdScore: Double(max(0, real.2)))
        guard !alerts.isEmpty else { return label }
        let top = Self.threeBest(scores)
        for alert in alerts {
            for c in alert.classes {
                if Self.starts(c, top: top, scores: scores) || (alerting && Self.isNear(c, top: top, scores: scores)) {
                    label.alert = true
                    label.alertName = alert.name
                    return label
                }
            }
        }
        return label
    }

    /// Whether one of the alert classes is among the three best of all 521 with at least
    /// ``alertHoldScore``: an alert that may start at the next patch (or holds). False without
    /// `--alert`.
    /// - Parameter scores: ``YAMNet/classCount`` scores, by class index.
    func isAlertNear(scores: UnsafePointer<Float>) -> Bool {
        guard !alerts.isEmpty else { return false }
        let top = Self.threeBest(scores)
        return alerts.contains { $0.classes.contains { Self.isNear($0, top: top, scores: scores) } }
    }

    /// Whether alert `name` has one of its classes at ``alertHoldScore`` or more in `scores`,
    /// wherever it ranks (``TrackLabels``: the mixture's support for a separated alert).
    /// - Parameters:
    ///   - name: an alert's name (``alerts``).
    ///   - scores: ``YAMNet/classCount`` scores, by class index.
    func supportsAlert(named name: String, scores: UnsafePointer<Float>) -> Bool {
        for alert in alerts where alert.name == name {
            for c in alert.classes where scores[c] >= Self.alertHoldScore { return true }
        }
        return false
    }

    /// The index (into ``alerts``) of the first alert that `scores` start by
    /// ``alertStartScore``'s rule (one of its classes the best of all 521 with at least
    /// ``alertStartScore``, or at ``alertStrongScore`` wherever it ranks), or nil.
    /// - Parameter scores: ``YAMNet/classCount`` scores, by class index.
    func startedAlert(scores: UnsafePointer<Float>) -> Int? {
        guard !alerts.isEmpty else { return nil }
        let top = Self.threeBest(scores)
        for (i, alert) in alerts.enumerated() {
            for c in alert.classes where Self.starts(c, top: top, scores: scores) { return i }
        }
        return nil
    }

    /// Whether alert `index` (into ``alerts``) holds in `scores`: one of its classes among the
    /// three best of all 521 with at least ``alertHoldScore``.
    func holdsAlert(_ index: Int, scores: UnsafePointer<Float>) -> Bool {
        let top = Self.threeBest(scores)
        return alerts[index].classes.contains { Self.isNear($0, top: top, scores: scores) }
    }

    /// The largest score of alert `index`'s classes (into ``alerts``) in `scores`.
    func alertScore(_ index: Int, scores: UnsafePointer<Float>) -> Float {
        var best: Float = 0
        for c in alerts[index].classes { best = max(best, scores[c]) }
        return best
    }

    /// The name of alert `index` (into ``alerts``).
    func alertName(_ index: Int) -> String { alerts[index].name }

    /// The indices of the three best of all 521 scores, best first.
    private static func threeBest(_ scores: UnsafePointer<Float>) -> (Int, Int, Int) {
        var top = (-1, -1, -1), topScore: (Float, Float, Float) = (-1, -1, -1)
        for c in 0..<YAMNet.classCount {
            let s = scores[c]
            if s > topScore.0 { top = (c, top.0, top.1); topScore = (s, topScore.0, topScore.1) }
            else if s > topScore.1 { top = (top.0, c, top.1); topScore = (topScore.0, s, topScore.1) }
            else if s > topScore.2 { top.2 = c; topScore.2 = s }
        }
        return top
    }

    /// Whether class `c` starts an alert: the best of all 521 (`top`, ``threeBest(_:)``) with at
    /// least ``alertStartScore``, or at ``alertStrongScore`` wherever it ranks.
    private static func starts(_ c: Int, top: (Int, Int, Int), scores: UnsafePointer<Float>) -> Bool {
        scores[c] >= alertStrongScore || (c == top.0 && scores[c] >= alertStartScore)
    }

    /// Whether class `c` is among `top` (``threeBest(_:)``) with at least ``alertHoldScore``:
    /// what holds an alert, and what keeps a track classified at every round.
    private static func isNear(_ c: Int, top: (Int, Int, Int), scores: UnsafePointer<Float>) -> Bool {
        (c == top.0 || c == top.1 || c == top.2) && scores[c] >= alertHoldScore
    }

    /// The classes of a patch with their scores, best first (allocates; for tests and tools).
    /// - Parameters:
    ///   - patch: `96 × 64` log-mel values, frame-major.
    ///   - count: how many.
    public func topClasses(patch: [Float], count: Int = 3) -> [(name: String, score: Float)] {
        precondition(patch.count == YAMNet.patchFrames * YAMNet.melBands, "a patch is 96 × 64 values")
        network.logits(patch: patch, into: logits)
        let order = (0..<YAMNet.classCount).sorted { logits[$0] > logits[$1] }
        return order.prefix(count).map { (classes.names[$0], YAMNet.score(logit: logits[$0])) }
    }

    /// The patches of a 16 kHz mono signal (96 frames every 48, while whole), classified
    /// (allocates; for tests and tools).
    /// - Returns: per patch, its classes best first.
    public func classify(samples16k samples: [Float], count: Int = 3) -> [[(name: String, score: Float)]] {
        let frames = LogMelFrontEnd().logMelFrames(samples)
        let frameCount = frames.count / YAMNet.melBands
        var out: [[(name: String, score: Float)]] = []
        var start = 0
        while start + YAMNet.patchFrames <= frameCount {
            let patch = Array(frames[(start * YAMNet.melBands)..<((start + YAMNet.patchFrames) * YAMNet.melBands)])
            out.append(topClasses(patch: patch, count: count))
            start += YAMNet.patchFrames / 2
        }
        return out
    }
}

extension SoundClassifier {
    /// The patches of a mono signal at any rate, resampled to 16 kHz with libsoxr, classified
    /// (allocates; for tests and tools).
    /// - Parameters:
    ///   - samples: the signal, linear full scale.
    ///   - sampleRate: its rate, Hz.
    ///   - count: classes per patch.
    /// - Returns: per patch (96 frames every 48), its classes best first.
    /// - Throws: ``ClassifierError/resampler(_:)``.
    public func classify(samples: [Float], sampleRate: Double, count: Int = 3) throws(ClassifierError) -> [[(name: String, score: Float)]] {
        guard sampleRate != LogMelFrontEnd.sampleRate else { return classify(samples16k: samples, count: count) }
        let resampler = try Resampler(inputRate: sampleRate, outputRate: LogMelFrontEnd.sampleRate)
        var out: [Float] = []
        // The signal, then zeros to flush the resampler's delay.
        let padded = samples + [Float](repeating: 0, count: Int(sampleRate / 10))
        var index = 0
        padded.withUnsafeBufferPointer { x in
            while index < x.count {
                let take = min(Resampler.chunk, x.count - index)
                let n = resampler.process(left: x.baseAddress! + index, right: x.baseAddress! + index, count: take)
                out.append(contentsOf: UnsafeBufferPointer(start: resampler.outLeft, count: n))
                index += take
            }
        }
        return classify(samples16k: Array(out.prefix(Int((Double(samples.count) * LogMelFrontEnd.sampleRate / sampleRate).rounded()))), count: count)
    }
}
