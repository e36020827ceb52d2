extension Scene {
    /// Ground truth per source as CSV text (`time,id,azimuth,active` header): every `step`
    /// seconds one row per source, `id` its 1-based place in ``sources``, `azimuth` where its
    /// path is then (degrees), `active` 1 inside its time window (`start` up to `end`) and 0
    /// outside. Pauses inside the window (a speech-like source's between words) count as
    /// active. As `soundcompass synth` writes it next to the truth of a scene of several sources.
    public func sourceTruthCSV(step: Double = 0.01) -> String {
        var text = ""
        sourceTruthCSV(step: step) { text += $0 }
        return text
    }

    /// ``sourceTruthCSV(step:)`` in pieces of whole lines (about 64 kB each), passed to
    /// `write` in order, for a long scene.
    public func sourceTruthCSV(step: Double = 0.01, _ write: (String) throws -> Void) rethrows {
        try writeTimeGridCSV(header: "time,id,azimuth,active\n", duration: duration, step: step, write) { t, text in
            let time = formatted(t, 3)
            for (k, source) in sources.enumerated() {
                let on = t >= source.start && t < (source.end ?? duration)
                text += "\(time),\(k + 1),\(formatted(source.path.azimuth(at: t), 3)),\(on ? 1 : 0)\n"
            }
        }
    }
}
