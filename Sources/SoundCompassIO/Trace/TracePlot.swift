import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Renders a ``TraceRecorder`` as one self-contained SVG: the tracked azimuth over time with
/// the frames' own estimates as dots shaded by confidence, activity shaded, one line per band,
/// the truth and the error when known, and panels for ILD, ITD, level and (with an IMU)
/// yaw and front/back. Long recordings are decimated per pixel column, so an hour stays a few
/// megabytes and draws what the full data would.
public enum TracePlot {
    /// What the plot says besides the data.
    public struct Options: Sendable {
        /// The recording's name, in the title.
        public var title: String
        /// The analysis settings, one line under the title.
        public var settings: String
        /// The ground truth, drawn with the error it implies.
        public var truth: TruthTrack?
        /// Physical limit of the time difference, µs (dashed lines on the ITD panel).
        public var maximumITDMicroseconds: Double
        /// The silence gate, dBFS (dotted on the level panel).
        public var gateDBFS: Double?
        /// Legend labels of the bands, in order (default: their names).
        public var bandLabels: [String]?
        /// Length of the recording, seconds (default: the last frame's end).
        public var duration: Double?
        /// Width of the picture, pixels (height follows from the panels).
        public var width: Double

        public init(
            title: String, settings: String, truth: TruthTrack? = nil, maximumITDMicroseconds: Double, gateDBFS: Double? = nil,
            bandLabels: [String]? = nil, duration: Double? = nil, width: Double = 1200
        ) {
            self.title = title
            self.settings = settings
            self.truth = truth
            self.maximumITDMicroseconds = maximumITDMicroseconds
            self.gateDBFS = gateDBFS
            self.bandLabels = bandLabels
            self.duration = duration
            self.width = width
        }
    }

    static let bandColors = ["#e67e22", "#2ca02c", "#9467bd", "#d62728", "#8c564b", "#17becf", "#bcbd22", "#7f7f7f"]
    static let dotColor = "#1f5fbf"
    static let truthColor = "#c2185b"
    static let left = 78.0, right = 215.0, top = 64.0, gap = 16.0
    /// The dashed and dotted reference lines, drawn and shown in the legend with the same stroke.
    static let truthStroke = "stroke=\"\(truthColor)\" stroke-dasharray=\"6 4\""
    static let itdLimitStroke = "stroke=\"#999\" stroke-dasharray=\"4 3\""
    static let gateStroke = "stroke=\"#b71c1c\" stroke-dasharray=\"2 3\""
    static let noiseFloorStroke = "stroke=\"#999\" stroke-dasharray=\"5 3\""

    /// One stacked panel with its own value axis.
    struct Panel {
        var id: String
        var label: String
        var y0: Double
        var height: Double
        var low: Double
        var high: Double
        var ticks: [Double]
        /// The side a positive value means ("R" or "L"), written on the tick labels; `nil` for none.
        var positiveSide: String? = nil
        /// The unit written after each tick value ("°" on the azimuth panel).
        var tickUnit = ""
        /// A line above the panel that says how to read it (`nil` for none).
        var note: String? = nil

        /// The label of the tick at `value`: its magnitude and side, e.g. `45° L`, `0°`, `500 L`;
        /// on a full circle 0 reads `0° ahead` and ±180 `180° behind`.
        func tickLabel(_ value: Double) -> String {
            guard let positiveSide else { return TracePlot.formatTick(value) + tickUnit }
            let number = TracePlot.formatTick(abs(value)) + tickUnit
            let fullCircle = tickUnit == "°" && high >= 180
            if value == 0 { return fullCircle ? number + " ahead" : number }
            if fullCircle && abs(value) >= 180 { return number + " behind" }
            return number + " " + (value > 0 ? positiveSide : (positiveSide == "R" ? "L" : "R"))
        }

        func y(_ value: Double) -> Double {
            let clamped = max(low, min(high, value))
            return y0 + (high - clamped) / (high - low) * height
        }
    }

    /// Where everything goes: the panels stacked top to bottom, the time axis, and the truth
    /// and errors per frame.
    struct Layout {
        let trace: TraceRecorder
        let frameCount: Int
        let plotWidth: Double
        /// Seconds the time axis spans.
        let duration: Double
        /// True when the azimuth panel shows the full circle (front/back was resolved).
        let circle: Bool
        /// Half the hop between frames, seconds (the width a frame covers).
        let halfHop: Double
        /// The true azimuth per frame, drawn on the azimuth panel (NaN where unknown; empty without a truth).
        var truthValues: [Float] = []
        /// The error per active frame (NaN elsewhere; empty without a truth).
        var errors: [Float] = []
        var panels: [Panel] = []
        /// The bottom of the last panel.
        var plotBottom = 0.0
        /// The picture's height.
        var height = 0.0

        init(_ trace: TraceRecorder, options: Options) {
            self.trace = trace
            let n = trace.count
            frameCount = n
            plotWidth = options.width - left - right
            let lastTime = n > 0 ? Double(trace.lastTime) : 0
            duration = max(options.duration ?? lastTime, lastTime, 1e-3)
            circle = trace.hasResolvedHemisphere
            halfHop = n > 1 ? Double(trace.firstTimes[1] - trace.firstTimes[0]) / 2 : 0.01
            stackPanels(options)
        }

        /// The gate, dBFS, when it falls inside the level panel (so it is drawn).
        func drawnGate(_ options: Options) -> Double? {
            options.gateDBFS.flatMap { $0 > panel("level").low ? $0 : nil }
        }

        /// The x coordinate of time `t`, seconds.
        func x(_ t: Float) -> Double { left + Double(t) / duration * plotWidth }

        /// The panel named `id`.
        func panel(_ id: String) -> Panel { panels.first { $0.id == id }! }

        /// Panels, top to bottom: azimuth, error (with a truth), ILD, ITD, level, yaw (with an IMU).
        private mutating func stackPanels(_ options: Options) {
            var cursor = top
            func add(
                _ id: String, _ label: String, _ height: Double, _ low: Double, _ high: Double, _ ticks: [Double],
                positiveSide: String? = nil, unit: String = "", note: String? = nil
            ) {
                panels.append(Panel(
                    id: id, label: label, y0: cursor, height: height, low: low, high: high, ticks: ticks,
                    positiveSide: positiveSide, tickUnit: unit, note: note))
                cursor += height + gap
            }
            let n = frameCount
            add("azimuth", "azimuth (°)", 300, circle ? -180 : -90, circle ? 180 : 90,
                circle ? [-180, -135, -90, -45, 0, 45, 90, 135, 180] : [-90, -60, -30, 0, 30, 60, 90],
                positiveSide: "R", unit: "°")
            if let truth = options.truth {
                let q: Double
                if trace.isDecimated {
                    q = trace.errorMagnitudes.quantile(0.95) ?? 5
                } else {
                    compare(with: truth)
                    q = Quantile.nearestRank(errors.filter { $0.isFinite }.map { abs(Double($0)) }, 0.95) ?? 5
                }
                let range = [5.0, 10, 20, 45, 90, 180].first { $0 >= q } ?? 180
                add("error", "error (°)", 90, -range, range, [-range, -range / 2, 0, range / 2, range])
            }
            let ildQuantile = trace.isDecimated ? trace.ildMagnitudes.quantile(0.98)
                : Quantile.nearestRank((0..<n).filter { trace.active[$0] }.map { abs(Double(trace.ild[$0])) }, 0.98)
            let ildRange = niceCeiling(max(3, ildQuantile ?? 3))
            add("ild", "ILD (dB)", 90, -ildRange, ildRange, [-ildRange, 0, ildRange], positiveSide: "R",
                note: "ILD = right minus left level: positive = right louder = source on the right, as the azimuth")
            let itdRange = niceCeiling(max(10, options.maximumITDMicroseconds * 1.05))
            add("itd", "ITD (µs)", 90, -itdRange, itdRange, [-itdRange, 0, itdRange], positiveSide: "L",
                note: "ITD = right minus left arrival: positive = right later = source on the LEFT (runs opposite to the azimuth)")
            let levels = trace.isDecimated ? [] : (0..<n).map { Double(trace.level[$0]) }.filter { $0 > -159 }
            func levelQuantile(_ q: Double) -> Double? {
                trace.isDecimated ? trace.levels.quantile(q) : Quantile.nearestRank(levels, q)
            }
            let levelHigh = min(0, (((levelQuantile(1) ?? -20) + 3) / 10).rounded(.up) * 10)
            let levelLow = max(-160, min(levelHigh - 20, (((levelQuantile(0.01) ?? -80) - 3) / 10).rounded(.down) * 10))
            add("level", "level (dBFS)", 90, levelLow, levelHigh, niceTicks(levelLow, levelHigh, 4))
            if trace.hasOrientation {
                add("yaw", "yaw (°)", 90, -180, 180, [-180, -90, 0, 90, 180])
            }
            plotBottom = cursor - gap
            height = plotBottom + 56
        }

        /// The truth per frame and the error of every active frame.
        private mutating func compare(with truth: TruthTrack) {
            errors = [Float](repeating: .nan, count: frameCount)
            truthValues = [Float](repeating: .nan, count: frameCount)
            for i in 0..<frameCount {
                guard let value = truth.azimuth(at: Double(trace.time[i])) else { continue }
                let known = trace.hemisphere[i] != .unknown
                truthValues[i] = Float(circle ? YawTimeline.wrap(value) : TruthTrack.lateral(value))
                if trace.active[i] {
                    errors[i] = Float(TruthTrack.error(azimuth: Double(trace.azimuth[i]), truth: value, hemisphereKnown: known))
                }
            }
        }
    }

    /// The SVG document, UTF-8.
    public static func render(_ trace: TraceRecorder, options: Options) -> [UInt8] {
        let layout = Layout(trace, options: options)
        var svg = SVGWriter(capacity: 1 << 20)
        drawHead(layout, options: options, into: &svg)
        drawActivity(layout, into: &svg)
        drawAxes(layout, into: &svg)
        drawAzimuthPanel(layout, options: options, into: &svg)
        drawCuePanels(layout, options: options, into: &svg)
        drawLegend(layout, options: options, x: left + layout.plotWidth + 16, y: top, into: &svg)
        svg.raw("</svg>\n")
        return svg.bytes
    }

    /// The document's head, its style, the background, the title and the settings line.
    private static func drawHead(_ layout: Layout, options: Options, into svg: inout SVGWriter) {
        let height = layout.height
        svg.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"")
        svg.number(options.width); svg.raw("\" height=\""); svg.number(height)
        svg.raw("\" viewBox=\"0 0 "); svg.number(options.width); svg.raw(" "); svg.number(height); svg.raw("\"")
        svg.raw(" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n")
        svg.raw("<title>"); svg.escaped("SoundCompass trace — \(options.title)"); svg.raw("</title>\n")
        svg.raw("<desc>"); svg.escaped("\(layout.frameCount) frames over \(formatFixed(layout.duration, 2)) s. \(options.settings)"); svg.raw("</desc>\n")
        svg.raw("<style>.grid{stroke:#e3e3e3;stroke-width:1}.frame{fill:none;stroke:#888;stroke-width:1}"
            + ".tick{fill:#444}.axis-label{fill:#222;font-size:12px}.line{fill:none;stroke-linejoin:round}"
            + ".dots{fill:none;stroke:\(dotColor);stroke-width:4;stroke-linecap:round}</style>\n")
        svg.rect(0, 0, options.width, height, attributes: "fill=\"#ffffff\"")
        svg.text(left, 26, "SoundCompass trace — \(options.title)", attributes: "class=\"title\" font-size=\"18\" font-weight=\"bold\" fill=\"#111\"")
        svg.text(left, 46, options.settings, attributes: "class=\"settings\" font-size=\"12\" fill=\"#555\"")
    }

    /// Activity, shaded behind everything in the azimuth panel: one box per run of active frames.
    private static func drawActivity(_ layout: Layout, into svg: inout SVGWriter) {
        let trace = layout.trace
        let azimuthPanel = layout.panels[0]
        svg.raw("<g id=\"activity\" class=\"activity\" fill=\"#dbe9f9\">\n")
        var runStart: Double?
        var runEnd = 0.0
        func add(_ first: Float, _ last: Float) {
            let a = layout.x(Float(Double(first) - layout.halfHop)), b = layout.x(Float(Double(last) + layout.halfHop))
            if runStart != nil, a - runEnd <= 1 { runEnd = max(runEnd, b) } else {
                if let start = runStart { svg.rect(start, azimuthPanel.y0, runEnd - start, azimuthPanel.height, attributes: "") }
                runStart = a; runEnd = b
            }
        }
        if trace.isDecimated {
            let buckets = trace.decimation
            for i in 0..<buckets.used where buckets.firstActive[i].isFinite { add(buckets.firstActive[i], buckets.lastActive[i]) }
        } else {
            for i in 0..<layout.frameCount where trace.active[i] { add(trace.time[i], trace.time[i]) }
        }
        if let start = runStart { svg.rect(start, azimuthPanel.y0, runEnd - start, azimuthPanel.height, attributes: "") }
        svg.raw("</g>\n")
    }

    /// The frame, grid and value axis of every panel, and the time axis under the last one.
    private static func drawAxes(_ layout: Layout, into svg: inout SVGWriter) {
        let plotWidth = layout.plotWidth
        let ticks = timeTicks(layout.duration)
        for panel in layout.panels {
            svg.raw("<g id=\"\(panel.id)-axes\" class=\"axes\">\n")
            for tick in panel.ticks {
                let y = panel.y(tick)
                svg.line(left, y, left + plotWidth, y, attributes: "class=\"grid\"")
                svg.text(left - 6, y + 4, panel.tickLabel(tick), attributes: "class=\"tick\" text-anchor=\"end\"")
            }
            for tick in ticks.values {
                svg.line(layout.x(Float(tick)), panel.y0, layout.x(Float(tick)), panel.y0 + panel.height, attributes: "class=\"grid\"")
            }
            svg.rect(left, panel.y0, plotWidth, panel.height, attributes: "class=\"frame\"")
            if let note = panel.note {
                svg.text(left + plotWidth, panel.y0 - 4, note,
                    attributes: "id=\"\(panel.id)-note\" class=\"panel-note\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\"")
            }
            let cy = panel.y0 + panel.height / 2
            svg.text(18, cy, panel.label, attributes: "class=\"axis-label\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(formatFixed(cy, 1)))\"")
            svg.raw("</g>\n")
        }
        let plotBottom = layout.plotBottom
        svg.raw("<g id=\"time-axis\" class=\"axes\">\n")
        for (tick, label) in zip(ticks.values, ticks.labels) {
            svg.line(layout.x(Float(tick)), plotBottom, layout.x(Float(tick)), plotBottom + 4, attributes: "stroke=\"#888\"")
            svg.text(layout.x(Float(tick)), plotBottom + 17, label, attributes: "class=\"tick\" text-anchor=\"middle\"")
        }
        svg.text(left + plotWidth / 2, plotBottom + 38, ticks.title, attributes: "class=\"axis-label\" text-anchor=\"middle\"")
        svg.raw("</g>\n")
    }

    /// The azimuth panel: the frames' dots, the bands, the truth and the tracked azimuth.
    private static func drawAzimuthPanel(_ layout: Layout, options: Options, into svg: inout SVGWriter) {
        let trace = layout.trace
        let panel = layout.panels[0]
        let x = layout.x
        drawDots(trace, panel: panel, x: x, columns: layout.plotWidth, into: &svg)
        let step = layout.circle ? 180.0 : .infinity
        for (b, name) in trace.bandNames.enumerated() {
            let color = bandColors[b % bandColors.count]
            series(trace, panel: panel, x: x, step: step, id: "band-\(name)", cls: "band",
                style: "stroke=\"\(color)\" stroke-width=\"1.2\" stroke-opacity=\"0.85\"", into: &svg, buckets: { $0.bands[b] }) { trace.bandAzimuth[b][$0] }
        }
        if options.truth != nil {
            series(trace, panel: panel, x: x, step: step, id: "truth", cls: "truth",
                style: "\(truthStroke) stroke-width=\"1.6\"", into: &svg, buckets: { $0.truth },
                bucketValue: { layout.circle ? $0 : Float(TruthTrack.lateral(Double($0))) }) { layout.truthValues[$0] }
        }
        drawSourceTracks(layout, into: &svg)
        // The tracker holds its bearing through pauses: drawn faint there, strong where active.
        series(trace, panel: panel, x: x, step: step, id: "tracked-idle", cls: "tracked-idle",
            style: "stroke=\"#999\" stroke-width=\"1\"", into: &svg, buckets: { $0.azimuth }) { trace.azimuth[$0] }
        series(trace, panel: panel, x: x, step: step, id: "tracked", cls: "tracked",
            style: "stroke=\"#111\" stroke-width=\"1.8\"", into: &svg, buckets: { $0.tracked }) { trace.active[$0] ? trace.azimuth[$0] : .nan }
    }

    /// The panels under the azimuth: error (with a truth), ILD, ITD with its physical limits,
    /// level with the noise floor and the gate, and yaw with front/back (with an IMU).
    private static func drawCuePanels(_ layout: Layout, options: Options, into svg: inout SVGWriter) {
        let trace = layout.trace
        let x = layout.x
        let plotWidth = layout.plotWidth
        if options.truth != nil {
            series(trace, panel: layout.panel("error"), x: x, step: .infinity, id: "error", cls: "error",
                style: "stroke=\"\(truthColor)\" stroke-width=\"1.2\"", into: &svg, buckets: { $0.error }) { layout.errors[$0] }
        }
        series(trace, panel: layout.panel("ild"), x: x, step: .infinity, id: "ild", cls: "ild",
            style: "stroke=\"#00838f\" stroke-width=\"1\"", into: &svg, buckets: { $0.ild }) { trace.active[$0] ? trace.ild[$0] : .nan }
        let itdPanel = layout.panel("itd")
        for limit in [-options.maximumITDMicroseconds, options.maximumITDMicroseconds] {
            svg.line(left, itdPanel.y(limit), left + plotWidth, itdPanel.y(limit),
                attributes: "class=\"itd-limit\" \(itdLimitStroke)")
        }
        series(trace, panel: itdPanel, x: x, step: .infinity, id: "itd", cls: "itd",
            style: "stroke=\"#6a1b9a\" stroke-width=\"1\"", into: &svg, buckets: { $0.itd }) { trace.active[$0] ? trace.itd[$0] : .nan }
        let levelPanel = layout.panel("level")
        if let gate = layout.drawnGate(options) {
            svg.line(left, levelPanel.y(gate), left + plotWidth, levelPanel.y(gate),
                attributes: "class=\"gate\" \(gateStroke)")
        }
        series(trace, panel: levelPanel, x: x, step: .infinity, id: "noise-floor", cls: "noise-floor",
            style: "\(noiseFloorStroke) stroke-width=\"1.2\"", into: &svg, buckets: { $0.noiseFloor }) { trace.noiseFloor[$0] }
        series(trace, panel: levelPanel, x: x, step: .infinity, id: "level", cls: "level",
            style: "stroke=\"#333\" stroke-width=\"1\"", into: &svg, buckets: { $0.level }) { trace.level[$0] }
        if trace.hasOrientation {
            let yawPanel = layout.panel("yaw")
            drawHemispheres(trace, panel: yawPanel, x: x, halfHop: layout.halfHop, into: &svg)
            series(trace, panel: yawPanel, x: x, step: 180, id: "yaw", cls: "yaw",
                style: "stroke=\"#444\" stroke-width=\"1.4\"", into: &svg, buckets: { $0.yaw }) { trace.yaw[$0] }
        }
    }

    /// One decimated line: `value` of each frame, or of a long recording the points of its
    /// `buckets` (through `bucketValue`).
    private static func series(
        _ trace: TraceRecorder, panel: Panel, x: (Float) -> Double, step: Double, id: String, cls: String, style: String,
        into svg: inout SVGWriter, buckets: (TraceDecimation) -> DecimatedSeries, bucketValue: (Float) -> Float = { $0 },
        value: (Int) -> Float
    ) {
        var path = DecimatedPath(maximumStep: step, y: panel.y)
        if trace.isDecimated {
            let decimation = trace.decimation, line = buckets(decimation)
            for i in 0..<decimation.used where decimation.firstTime[i].isFinite {
                let px = x(decimation.time(of: i))
                line.forEachValue(in: i) { path.add(x: px, value: Double($0.isFinite ? bucketValue($0) : $0)) }
            }
        } else {
            for i in 0..<trace.count { path.add(x: x(trace.time[i]), value: Double(value(i))) }
        }
        let data = path.finish()
        svg.raw("<path id=\"\(id)\" class=\"line \(cls)\" \(style) d=\"")
        if data.isEmpty { svg.raw("M0 0") }
        svg.rawAppend(data); svg.raw("\"/>\n")
    }

    /// The frames' own estimates: dots in five shades of confidence. Short recordings get a
    /// dot per active frame; long ones one per pixel column and 2-pixel row, as confident as
    /// the most confident frame in it.
    private static func drawDots(
        _ trace: TraceRecorder, panel: Panel, x: (Float) -> Double, columns: Double, into svg: inout SVGWriter
    ) {
        let shades: [(low: Float, opacity: String)] = [(0, "0.12"), (0.2, "0.3"), (0.4, "0.5"), (0.6, "0.72"), (0.8, "0.95")]
        var paths = shades.map { _ in SVGWriter(capacity: 1 << 12) }
        func shade(_ c: Float) -> Int { shades.lastIndex { c >= $0.low } ?? 0 }
        func dot(_ px: Double, _ py: Double, _ c: Float) {
            let s = shade(c)
            paths[s].raw("M"); paths[s].number(px); paths[s].raw(" "); paths[s].number(py); paths[s].raw("h0")
        }
        let activeCount = trace.active.reduce(0) { $0 + ($1 ? 1 : 0) }
        if trace.isDecimated {
            // The buckets keep the best confidence per degree: binned the same way.
            let rows = Int(panel.height / 2) + 1
            var best = [Float](repeating: -1, count: (Int(columns) + 2) * rows)
            let buckets = trace.decimation, bins = TraceDecimation.azimuthBins
            for i in 0..<buckets.used where buckets.firstActive[i].isFinite {
                let c = Int(x(buckets.time(of: i)) - left)
                for k in 0..<bins where buckets.dots[i * bins + k] > 0 {
                    let r = Int((panel.y(Double(k - 180)) - panel.y0) / 2)
                    let key = max(0, min(best.count - 1, c * rows + r))
                    best[key] = max(best[key], Float(buckets.dots[i * bins + k] - 1) / 254)
                }
            }
            for key in best.indices where best[key] >= 0 {
                dot(left + Double(key / rows) + 0.5, panel.y0 + Double(key % rows) * 2 + 1, best[key])
            }
        } else if Double(activeCount) <= 3 * columns {
            for i in 0..<trace.count where trace.active[i] {
                dot(x(trace.time[i]), panel.y(Double(trace.rawAzimuth[i])), trace.confidence[i])
            }
        } else {
            // Bin: key = column × rows + row, value = best confidence.
            let rows = Int(panel.height / 2) + 1
            var best = [Float](repeating: -1, count: (Int(columns) + 2) * rows)
            for i in 0..<trace.count where trace.active[i] {
                let c = Int(x(trace.time[i]) - left), r = Int((panel.y(Double(trace.rawAzimuth[i])) - panel.y0) / 2)
                let key = max(0, min(best.count - 1, c * rows + r))
                best[key] = max(best[key], trace.confidence[i])
            }
            for key in best.indices where best[key] >= 0 {
                dot(left + Double(key / rows) + 0.5, panel.y0 + Double(key % rows) * 2 + 1, best[key])
            }
        }
        svg.raw("<g id=\"frame-dots\" class=\"frame-dots\">\n")
        for (s, path) in paths.enumerated() where !path.bytes.isEmpty {
            svg.raw("<path class=\"dots\" stroke-opacity=\"\(shades[s].opacity)\" d=\"")
            svg.rawAppend(path.bytes)
            svg.raw("\"/>\n")
        }
        svg.raw("</g>\n")
    }

    /// Front/back as a strip of color along the top of the yaw panel.
    private static func drawHemispheres(
        _ trace: TraceRecorder, panel: Panel, x: (Float) -> Double, halfHop: Double, into svg: inout SVGWriter
    ) {
        svg.raw("<g id=\"hemisphere\" class=\"hemisphere\">\n")
        if trace.isDecimated {
            // Per bucket the state most of its frames were in.
            let buckets = trace.decimation
            func state(_ i: Int) -> Hemisphere {
                let c = buckets.hemisphereCounts[i]
                return c.front >= c.back && c.front >= c.unknown ? .front : c.back >= c.unknown ? .back : .unknown
            }
            var i = 0
            while i < buckets.used {
                guard buckets.firstTime[i].isFinite else { i += 1; continue }
                let s = state(i)
                var j = i
                while j + 1 < buckets.used && buckets.firstTime[j + 1].isFinite && state(j + 1) == s { j += 1 }
                let a = x(buckets.firstTime[i] - Float(halfHop)), b = x(buckets.lastTime[j] + Float(halfHop))
                let color = s == .front ? "#2ca02c" : s == .back ? "#e67e22" : "#d0d0d0"
                svg.rect(max(left, a), panel.y0 + 1, b - max(left, a), 12, attributes: "class=\"\(s.rawValue)\" fill=\"\(color)\"")
                i = j + 1
            }
            svg.raw("</g>\n")
            return
        }
        var i = 0
        while i < trace.count {
            let state = trace.hemisphere[i]
            var j = i
            while j + 1 < trace.count && trace.hemisphere[j + 1] == state { j += 1 }
            let a = x(trace.time[i] - Float(halfHop)), b = x(trace.time[j] + Float(halfHop))
            let color = state == .front ? "#2ca02c" : state == .back ? "#e67e22" : "#d0d0d0"
            svg.rect(max(left, a), panel.y0 + 1, b - max(left, a), 12, attributes: "class=\"\(state.rawValue)\" fill=\"\(color)\"")
            i = j + 1
        }
        svg.raw("</g>\n")
    }

    /// The legend: every line, dot and box drawn, dashed reference lines with the stroke they are drawn with.
    private static func drawLegend(_ layout: Layout, options: Options, x: Double, y: Double, into svg: inout SVGWriter) {
        let trace = layout.trace
        // kind "line"/"box"/"dot": color is a fill or stroke color; kind "dash": color is the stroke attributes.
        var items: [(kind: String, color: String, label: String)] = [
            ("line", "#111", "tracked azimuth"),
            ("line", "#999", "tracked, no sound"),
            ("dot", dotColor, "frame estimate"),
            ("note", "", "(darker: more confident)"),
            ("box", "#dbe9f9", "active"),
        ]
        for (b, name) in trace.bandNames.enumerated() {
            let label = options.bandLabels.flatMap { b < $0.count ? $0[b] : nil } ?? name
            items.append(("line", bandColors[b % bandColors.count], "band \(label)"))
        }
        let sourceIDs = trace.hasSources ? trace.decimation.sources.ids(buckets: trace.decimation.used) : []
        for id in sourceIDs.prefix(sourceLegendLimit) {
            items.append(("line", sourceColor(id), "source \(id)"))
        }
        if sourceIDs.count > sourceLegendLimit {
            items.append(("note", "", "(and \(sourceIDs.count - sourceLegendLimit) more sources)"))
        }
        if options.truth != nil {
            items.append(("dash", truthStroke, "truth"))
            items.append(("line", truthColor, "error (tracked − truth)"))
        }
        if trace.hasOrientation {
            items += [("box", "#2ca02c", "front"), ("box", "#e67e22", "behind"), ("box", "#d0d0d0", "unknown"), ("line", "#444", "yaw")]
        }
        items.append(("dash", itdLimitStroke, "ITD limit ±\(Int(options.maximumITDMicroseconds.rounded())) µs"))
        items.append(("note", "", "(the pair's largest delay)"))
        items.append(("dash", noiseFloorStroke, "noise floor (level)"))
        if let gate = layout.drawnGate(options) {
            items.append(("dash", gateStroke, "silence gate \(formatTick(gate)) dBFS"))
        }
        svg.raw("<g id=\"legend\" class=\"legend\">\n")
        svg.text(x, y + 10, "Legend", attributes: "font-weight=\"bold\" fill=\"#222\"")
        for (k, item) in items.enumerated() {
            let cy = y + 28 + Double(k) * 18
            switch item.kind {
            case "line": svg.line(x, cy, x + 22, cy, attributes: "stroke=\"\(item.color)\" stroke-width=\"2\"")
            case "dash": svg.line(x, cy, x + 22, cy, attributes: "class=\"legend-dash\" \(item.color) stroke-width=\"2\"")
            case "dot":
                for (i, opacity) in ["0.3", "0.6", "0.95"].enumerated() {
                    svg.raw("<circle cx=\""); svg.number(x + 3 + Double(i) * 8); svg.raw("\" cy=\""); svg.number(cy)
                    svg.raw("\" r=\"2.2\" fill=\"\(item.color)\" fill-opacity=\"\(opacity)\"/>\n")
                }
            case "box": svg.rect(x, cy - 6, 22, 12, attributes: "fill=\"\(item.color)\"")
            default: break
            }
            svg.text(item.kind == "note" ? x : x + 28, cy + 4, item.label, attributes: "fill=\"#222\"" + (item.kind == "note" ? " font-size=\"10\" fill-opacity=\"0.7\"" : ""))
        }
        svg.raw("</g>\n")
    }

    // MARK: Axes

    /// Ticks for a time axis of `duration` seconds: values, their labels and the axis title.
    static func timeTicks(_ duration: Double) -> (values: [Double], labels: [String], title: String) {
        let steps: [Double] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400]
        let step = steps.first { duration / $0 <= 10 } ?? steps.last!
        var values: [Double] = []
        var t = 0.0
        while t <= duration + 1e-9 { values.append(t); t += step }
        let title: String
        let labels: [String]
        if duration < 120 {
            title = "time (s)"
            labels = values.map { formatTick($0) }
        } else if duration < 3600 {
            title = "time (min:s)"
            labels = values.map { v in
                let s = Int(v.rounded())
                return "\(s / 60):" + (s % 60 < 10 ? "0" : "") + "\(s % 60)"
            }
        } else {
            title = "time (h:min:s)"
            labels = values.map { v in
                let s = Int(v.rounded())
                let m = (s / 60) % 60, sec = s % 60
                return "\(s / 3600):" + (m < 10 ? "0" : "") + "\(m):" + (sec < 10 ? "0" : "") + "\(sec)"
            }
        }
        return (values, labels, title)
    }

    /// About `count` round ticks between `low` and `high`.
    static func niceTicks(_ low: Double, _ high: Double, _ count: Int) -> [Double] {
        let raw = (high - low) / Double(max(1, count))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        var ticks: [Double] = []
        var v = (low / step).rounded(.up) * step
        while v <= high + 1e-9 { ticks.append(v); v += step }
        return ticks
    }

    /// The smallest of 1, 2, 2.5, 5 × 10ᵏ at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        let magnitude = pow(10, (log10(value)).rounded(.down))
        return [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= value - 1e-9 } ?? 10 * magnitude
    }

    static func formatTick(_ value: Double) -> String {
        let r = (value * 100).rounded() / 100
        if r == r.rounded() { return r == 0 ? "0" : "\(Int(r))" }
        return formatFixed(r, abs(r * 10 - (r * 10).rounded()) < 1e-9 ? 1 : 2)
    }
}
