import SoundCompass
import TestSignals

extension SoundCompassCommand.Synth {
    /// The per-source truth next to the truth: `x.truth.csv` gives `x.truth.sources.csv`.
    static func sourceTruthPath(for truthPath: String) -> String {
        truthPath.hasSuffix(".csv") ? String(truthPath.dropLast(4)) + ".sources.csv" : truthPath + ".sources.csv"
    }

    /// Writes the per-source truth (``Scene/sourceTruthCSV(step:_:)``) when the scene has
    /// several sources, the truth is written and the listener does not turn.
    /// - Returns: the path written, or `nil`.
    func writeSourceTruth(_ scene: Scene, truthPath: String, turning: Bool) throws -> String? {
        guard scene.sources.count > 1, truthPath != "none", !turning else { return nil }
        let path = Self.sourceTruthPath(for: truthPath)
        if path == outputFile || LineSink.isSameFile(path, outputFile) {
            throw CLIFailure("\(path): the per-source truth would overwrite the output sound file", status: .usage)
        }
        try Self.writeStaged(path) { piece in try scene.sourceTruthCSV(piece) }
        return path
    }
}
