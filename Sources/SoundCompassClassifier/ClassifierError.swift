/// Why the sound classifier cannot start. Each description is one line naming the file.
public enum ClassifierError: Error, CustomStringConvertible, Equatable {
    /// The weights file or class map is not there: the model has not been fetched.
    case modelMissing(path: String)
    /// The weights file or class map cannot be read as a file: a directory, a FIFO, a device, no
    /// permission (the system's reason).
    case unreadable(path: String, problem: String)
    /// The weights file is not a YAMNet weights file of the expected layout.
    case badWeights(path: String, problem: String)
    /// The class map is not YAMNet's (521 rows of `index,mid,display_name`).
    case badClassMap(path: String, problem: String)
    /// A name given to `--labels` or `--alert` is neither a group of the everyday set nor a
    /// class of the model.
    case unknownLabel(String)
    /// A list given to `--labels` or `--alert` names nothing (empty, blank, only commas or
    /// empty quotes): the option, and the text as given.
    case noLabels(option: String, text: String)
    /// libsoxr refused to make a resampler (its own message).
    case resampler(String)

    public var description: String {
        switch self {
        case .modelMissing(let path):
            "\(path): no such file; the classifier's model is not fetched (run scripts/fetch-model, see Docs/Classification.md)"
        case .unreadable(let path, let problem): "\(path): cannot read the classifier's model file: \(problem)"
        case .badWeights(let path, let problem): "\(path): not a SoundCompass YAMNet weights file: \(problem)"
        case .badClassMap(let path, let problem): "\(path): not a YAMNet class map: \(problem)"
        case .unknownLabel(let name):
            "unknown label \"\(name)\": not a group of the everyday set (\(LabelSet.everydayGroups.map(\.name).joined(separator: ", "))) nor a YAMNet class name"
        case .noLabels(let option, let text):
            "\(option) names no class (\"\(text)\"): give all, everyday, or a comma list of everyday groups and class names"
        case .resampler(let message): "libsoxr: \(message)"
        }
    }
}
