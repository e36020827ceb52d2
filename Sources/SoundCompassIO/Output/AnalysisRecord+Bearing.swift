import SoundCompassEngine

extension AnalysisRecord {
    /// What is at the record's bearing, for a view that writes a label beside it: the label of
    /// the heard source nearest ``azimuth`` (within 20°) when sources are tracked, else the
    /// record's own ``label``. With two or more sources heard the record's own label is the
    /// whole mixture's (Docs/Classification.md), which need not be the sound the bearing
    /// points at.
    package var labelAtBearing: SoundLabel? {
        guard !sources.isEmpty else { return label }
        var best: SoundLabel?, distance = 20.0
        for source in sources where source.active && source.label != nil {
            let d = abs(source.azimuth - azimuth)
            if d <= distance { distance = d; best = source.label }
        }
        return best
    }
}
