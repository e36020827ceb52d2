/// What a sound is, as a classifier named it: the best class and the next two, with their
/// scores. The engine never fills it (it knows no classifier); the `SoundCompassClassifier`
/// module writes it into ``SourceRecord/label`` and ``AnalysisRecord/label`` when
/// classification is on (the command-line tool's `--classify`, Docs/Classification.md).
public struct SoundLabel: Sendable, Equatable {
    /// The best class's name (an AudioSet display name such as "Speech", or the name of a
    /// merged group such as "siren").
    public var name: String
    /// The best class's score, 0…1 (the model's sigmoid output; a merged group's is the largest
    /// of its classes').
    public var score: Double
    /// The second-best class's name.
    public var secondName: String
    /// The second-best class's score, 0…1.
    public var secondScore: Double
    /// The third-best class's name.
    public var thirdName: String
    /// The third-best class's score, 0…1.
    public var thirdScore: Double
    /// True when one of the classes asked to alert on (`--alert`) is this sound's best class or
    /// scores at least the alert threshold.
    public var alert: Bool
    /// The name of the alerting class (empty when ``alert`` is false).
    public var alertName: String

    public init(
        name: String, score: Double, secondName: String = "", secondScore: Double = 0, thirdName: String = "",
        thirdScore: Double = 0, alert: Bool = false, alertName: String = ""
    ) {
        self.name = name
        self.score = score
        self.secondName = secondName
        self.secondScore = secondScore
        self.thirdName = thirdName
        self.thirdScore = thirdScore
        self.alert = alert
        self.alertName = alertName
    }

    /// The three names, best first.
    public var names: [String] { [name, secondName, thirdName] }
}
