import SoundCompassEngine

extension TracePlot {
    /// Colours of the source tracks by id (id 1 the first, repeating after seven): the
    /// Okabe–Ito palette, told apart with the common colour-vision deficiencies, without its
    /// black (the tracked azimuth) and with its yellow last (faint on white).
    static let sourceColors = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442"]
    /// Source tracks listed in the legend at most; the rest are summed up in one note.
    static let sourceLegendLimit = 8

    /// The colour of source `id`'s track.
    static func sourceColor(_ id: Int32) -> String { sourceColors[Int(max(0, id - 1)) % sourceColors.count] }

    /// A source's id is written again where its track resumes after at least this long
    /// unheard, seconds: the tracker's ``MultiSourceTracker/deathSeconds``, after which a
    /// source is dropped, so an id that comes back later is a source recognised at its old
    /// bearing.
    static let sourceRelabelSeconds = Float(MultiSourceTracker.deathSeconds)

    /// Each tracked source (``AnalysisRecord/sources``) as its own line on the azimuth panel,
    /// in its colour, broken where it is not heard, with its id written at the start of the
    /// track and again where it resumes after ``sourceRelabelSeconds`` or more; from the
    /// decimation's buckets (a mean azimuth per source and bucket), so a long recording draws
    /// in the same bounded memory. Drawn under the tracked azimuth.
    static func drawSourceTracks(_ layout: Layout, into svg: inout SVGWriter) {
        let trace = layout.trace
        guard trace.hasSources else { return }
        let panel = layout.panels[0]
        let buckets = trace.decimation, tracks = buckets.sources
        let step = layout.circle ? 180.0 : .infinity
        svg.raw("<g id=\"source-tracks\" class=\"source-tracks\">\n")
        for id in tracks.ids(buckets: buckets.used) {
            let color = sourceColor(id)
            var path = DecimatedPath(maximumStep: step, y: panel.y)
            // Where the id is written: the track's start and each return after a long gap.
            var starts: [(x: Double, value: Float)] = []
            var lastHeard = -Float.infinity
            for i in 0..<buckets.used where buckets.firstTime[i].isFinite {
                let px = layout.x(buckets.time(of: i))
                guard let azimuth = tracks.azimuth(of: id, in: i) else {
                    path.add(x: px, value: .nan)
                    continue
                }
                let shown = layout.circle ? azimuth : Float(TruthTrack.lateral(Double(azimuth)))
                if buckets.firstTime[i] - lastHeard >= sourceRelabelSeconds { starts.append((px, shown)) }
                lastHeard = buckets.lastTime[i]
                path.add(x: px, value: Double(shown))
            }
            let data = path.finish()
            svg.raw("<path id=\"source-\(id)\" class=\"line source\" stroke=\"\(color)\" stroke-width=\"3.2\" stroke-opacity=\"0.85\" d=\"")
            if data.isEmpty { svg.raw("M0 0") }
            svg.rawAppend(data); svg.raw("\"/>\n")
            for start in starts {
                svg.text(start.x - 4, panel.y(Double(start.value)) - 5, "\(id)",
                    attributes: "class=\"source-label\" text-anchor=\"end\" font-weight=\"bold\" font-size=\"12\" fill=\"\(color)\"")
            }
        }
        svg.raw("</g>\n")
        drawSourceLabels(layout, into: &svg)
    }

    /// What each source is (with `--classify`): its label written along its track where it
    /// changes, in the track's colour, under the line.
    static func drawSourceLabels(_ layout: Layout, into svg: inout SVGWriter) {
        let trace = layout.trace
        guard !trace.labelEvents.isEmpty else { return }
        let panel = layout.panels[0]
        svg.raw("<g id=\"source-sounds\" class=\"source-sounds\">\n")
        var lastX: [Int32: Double] = [:]
        for event in trace.labelEvents {
            let x = layout.x(event.time)
            // Not closer than 60 px to the same track's previous label, so labels stay legible.
            if let previous = lastX[event.id], x - previous < 60 { continue }
            lastX[event.id] = x
            let shown = layout.circle ? event.azimuth : Float(TruthTrack.lateral(Double(event.azimuth)))
            svg.text(x + 2, panel.y(Double(shown)) + 12, event.name,
                attributes: "class=\"source-sound\" font-size=\"10\" fill=\"\(sourceColor(event.id))\"")
        }
        svg.raw("</g>\n")
    }
}
