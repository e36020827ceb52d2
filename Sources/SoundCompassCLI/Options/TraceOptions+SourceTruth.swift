import SoundCompass

extension TraceOptions {
    /// Reads `--truth`: a truth track (`time,azimuth`), or a per-source truth (with an `id`
    /// column, see ``SourceTruth``); with a track at `NAME.truth.csv`, the per-source truth at
    /// `NAME.truth.sources.csv` too when that file exists.
    /// - Throws: ``TruthError`` naming the file.
    static func readTruth(_ path: String) throws(TruthError) -> (TruthTrack?, SourceTruth?) {
        let beside = path.hasSuffix(".truth.csv") ? SoundCompassCommand.Synth.sourceTruthPath(for: path) : nil
        return try SourceTruth.read(path: path, besidePath: beside)
    }
}
