/// The names a classification reports: every one of YAMNet's 521 classes, or groups of them
/// merged (a group scores the largest of its classes' scores).
///
/// `--labels all` (the default) reports the model's classes; `--labels everyday` the short set
/// of ``everydayGroups``; `--labels speech,siren,Dog` any mix of everyday groups and class names.
public struct LabelSet: Sendable {
    /// A named group of YAMNet classes (AudioSet display names).
    public struct Group: Sendable {
        /// The group's name as reported.
        public let name: String
        /// The AudioSet display names it merges.
        public let classes: [String]
    }

    /// The everyday set: what a listener wants named in a street or a home.
    public static let everydayGroups: [Group] = [
        Group(name: "speech", classes: [
            "Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue", "Babbling",
            "Speech synthesizer", "Shout", "Whispering",
        ]),
        Group(name: "music", classes: ["Music", "Musical instrument"]),
        Group(name: "vehicle", classes: [
            "Vehicle", "Motor vehicle (road)", "Car", "Car passing by", "Truck", "Bus", "Motorcycle",
            "Traffic noise, roadway noise", "Train",
        ]),
        Group(name: "horn", classes: ["Vehicle horn, car horn, honking", "Air horn, truck horn", "Train horn", "Foghorn"]),
        Group(name: "siren", classes: [
            "Siren", "Civil defense siren", "Police car (siren)", "Ambulance (siren)", "Fire engine, fire truck (siren)",
            "Emergency vehicle",
        ]),
        // Not AudioSet's "Alarm" itself: the ontology's parent of telephones, bells and buzzers,
        // which YAMNet gives to many everyday sounds (with it, everyday sounds beside a talker
        // raised 68 false alarm alerts per 10 minutes in Benchmarks/accuracy/labels_real.py; 12
        // without it). Name it in --alert or --labels to have it. "Beep, bleep" is in: alarm
        // clocks, smoke alarms' chirps and appliances' timers beep (YAMNet's best name for the
        // recorded alarm clock of sound-theme-freedesktop), and it raised no false alert there.
        Group(name: "alarm", classes: ["Smoke detector, smoke alarm", "Fire alarm", "Car alarm", "Alarm clock", "Buzzer", "Beep, bleep"]),
        Group(name: "dog", classes: ["Dog", "Bark", "Yip", "Howl", "Bow-wow", "Growling", "Whimper (dog)", "Canidae, dogs, wolves"]),
        Group(name: "doorbell", classes: ["Doorbell", "Ding-dong"]),
        Group(name: "knock", classes: ["Knock"]),
        Group(name: "baby cry", classes: ["Baby cry, infant cry"]),
        Group(name: "glass", classes: ["Glass", "Shatter", "Chink, clink"]),
        Group(name: "silence", classes: ["Silence"]),
    ]

    /// The reported names, in order.
    public private(set) var names: [String]
    /// Class indices merged into each reported name.
    private(set) var members: [[Int]]

    /// Every class of `classes` under its own name.
    public init(all classes: ClassMap) {
        self.init(names: classes.names, members: classes.names.indices.map { [$0] })
    }

    private init(names: [String], members: [[Int]]) {
        self.names = names
        self.members = members
    }

    /// The groups and classes `text` names: `all`, `everyday`, or a comma-separated list of
    /// everyday group names and YAMNet class names (case-insensitive).
    /// - Throws: ``ClassifierError/unknownLabel(_:)`` for a name that is neither,
    ///   ``ClassifierError/noLabels(option:text:)`` for a list that names nothing.
    public init(parsing text: String, classes: ClassMap) throws(ClassifierError) {
        let trimmed = text.trimmingSpaces
        if trimmed.lowercased() == "all" { self.init(all: classes); return }
        if Self.namesNothing(text) { throw .noLabels(option: "--labels", text: text) }
        let groups = trimmed.lowercased() == "everyday"
            ? Self.everydayGroups
            : try Self.split(trimmed).map { (name) throws(ClassifierError) in try Self.group(named: name, classes: classes) }
        var names: [String] = [], members: [[Int]] = []
        for group in groups {
            names.append(group.name)
            members.append(try group.classes.map { (name) throws(ClassifierError) in
                guard let i = classes.names.firstIndex(of: name) else { throw .unknownLabel(name) }
                return i
            })
        }
        self.init(names: names, members: members)
    }

    /// An everyday group by name, or a single class by its display name (case-insensitive).
    static func group(named name: String, classes: ClassMap) throws(ClassifierError) -> Group {
        let key = name.lowercased()
        if let group = everydayGroups.first(where: { $0.name == key }) { return group }
        if let cls = classes.names.first(where: { $0.lowercased() == key }) { return Group(name: cls, classes: [cls]) }
        throw .unknownLabel(name)
    }

    /// Whether `text` names nothing: no item once split (blank, only commas, empty quotes). An
    /// empty list of names would leave the classifier nothing to report (`--labels ' '` used to
    /// trap on its first patch).
    /// - Parameter text: a `--labels` or `--alert` value.
    package static func namesNothing(_ text: String) -> Bool {
        split(text).isEmpty
    }

    /// A comma-separated list's items; a class name with a comma inside ("Vehicle horn, car
    /// horn, honking") is written with `;` for its commas or quoted with `"…"`.
    static func split(_ text: String) -> [String] {
        ClassMap.fields(text).map { $0.replacingSemicolons.trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// The classes an alert name covers (an everyday group's or one class).
    static func alertClasses(_ names: String, classes: ClassMap) throws(ClassifierError) -> [(name: String, classes: [Int])] {
        try split(names).map { (name) throws(ClassifierError) in
            let group = try group(named: name, classes: classes)
            return (group.name, group.classes.compactMap { classes.names.firstIndex(of: $0) })
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

    var replacingSemicolons: String { String(map { $0 == ";" ? "," : $0 }) }
}
