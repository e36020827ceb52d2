import ArgumentParser
import SoundCompass
#if Classifier
import SoundCompassClassifier
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `--classifier-arithmetic`: the products the classifier's forward passes run on.
enum ClassifierArithmetic: String, ExpressibleByArgument, CaseIterable {
    /// 8-bit products on a CPU with AVX-512 VNNI, float elsewhere (the faster of the two).
    case fast
    /// YAMNet's float graph on every machine (within 1e-3 of it in logits, whatever the
    /// instruction set): labels that differ between CPUs only where two scores all but tie.
    case float
}

/// What the sound is: `--classify`, `--labels`, `--alert`, `--model-dir`,
/// `--classifier-arithmetic` (Docs/Classification.md).
struct ClassifierOptions: ParsableArguments {
    @Flag(help: "Name what each source is (YAMNet; fetch the model first with scripts/fetch-model).")
    var classify = false

    @Option(help: ArgumentHelp(
        "Names to report with --classify: all (YAMNet's 521 classes), everyday (speech, music, vehicle, horn, siren, alarm, dog, doorbell, knock, baby cry, glass, silence), or a comma list of those and class names.",
        valueName: "names"))
    var labels: String?

    @Option(help: ArgumentHelp(
        "Mark records where one of these sounds appears, with its bearing (everyday groups or class names, e.g. siren,alarm,horn); implies --classify.",
        valueName: "names"))
    var alert: String?

    @Option(help: ArgumentHelp("Directory of yamnet.weights and yamnet_class_map.csv (default: ~/.cache/soundcompass).", valueName: "dir"))
    var modelDir: String?

    @Option(help: ArgumentHelp(
        "The classifier's arithmetic: fast (8-bit products on a CPU with AVX-512 VNNI, float elsewhere) or float (YAMNet's float graph on every machine, whether or not its CPU has VNNI).",
        valueName: "fast|float"))
    var classifierArithmetic: ClassifierArithmetic = .fast

    /// True when classification is asked for.
    var enabled: Bool { classify || alert != nil || labels != nil }

    func validate() throws {
        #if Classifier
        // A list that names nothing is a usage error before the model is read.
        if let labels, LabelSet.namesNothing(labels) {
            throw ValidationError(ClassifierError.noLabels(option: "--labels", text: labels).description)
        }
        if let alert, LabelSet.namesNothing(alert) {
            throw ValidationError(ClassifierError.noLabels(option: "--alert", text: alert).description)
        }
        #else
        if enabled {
            throw ValidationError(
                "--classify, --labels and --alert: this soundcompass was built without the sound classifier (the Classifier trait); build it with the default traits: swift build -c release --product soundcompass")
        }
        #endif
    }

    #if Classifier
    /// Gives `session` a sound classifier when asked for, and tells `writer` to write labels.
    /// - Parameters:
    ///   - asynchronous: run the forward passes off the analysis thread (`live`: the bearing
    ///     never waits for the classifier); offline, inline (the same file gives the same records).
    /// - Throws: a ``CLIFailure``: the model missing (66), damaged (65), an unknown name (64).
    func attach(to session: AnalysisSession, writer: RecordWriter?, asynchronous: Bool = false) throws(CLIFailure) {
        guard enabled else { return }
        do {
            let classifier = try SoundClassifier(
                directory: modelDir ?? YAMNetWeights.defaultDirectory(environment: { getenv($0).map { String(cString: $0) } }), labels: labels ?? "all", alerts: alert ?? "",
                maximumBatch: SourceLabeler.batchSize(for: session.configuration),
                arithmetic: classifierArithmetic == .float ? .float32 : YAMNet.fastestArithmetic)
            session.labeler = try SourceLabeler(
                classifier: classifier, configuration: session.configuration, asynchronous: asynchronous)
            writer?.labels = true
        } catch {
            let status: ExitStatus = switch error {
            case .modelMissing, .unreadable: .noInput
            case .unknownLabel, .noLabels: .usage
            case .badWeights, .badClassMap, .resampler: .dataError
            }
            throw CLIFailure(error.description, status: status)
        }
    }

    /// A warning when the classifier's thread could not keep up (`live`): rounds skipped.
    func fellBehindWarning(_ session: AnalysisSession) -> String? {
        guard let labeler = session.labeler as? SourceLabeler, labeler.roundsSkipped > 0 else { return nil }
        let all = labeler.roundsRun + labeler.roundsSkipped
        return "the sound classifier fell behind: \(labeler.roundsSkipped) of \(all) patch rounds skipped (every 0.48 s "
            + "of sound is one), so labels came late; this machine is too busy or slow for it (a debug build is about 10× slower)"
    }
    #else
    func attach(to session: AnalysisSession, writer: RecordWriter?, asynchronous: Bool = false) throws(CLIFailure) {
        precondition(!enabled, "--classify is refused by validate() when the Classifier trait is off")
    }

    func fellBehindWarning(_ session: AnalysisSession) -> String? { nil }
    #endif
}
