/// A named frequency band for the per-band estimator.
public struct BandSpec: Sendable, Equatable, CustomStringConvertible {
    /// Name used in records (`bands[].name`, CSV columns `NAME_azimuth`, …).
    public var name: String
    /// Lower edge, Hz (> 0).
    public var low: Double
    /// Upper edge, Hz (> low).
    public var high: Double

    public init(name: String, low: Double, high: Double) {
        self.name = name
        self.low = low
        self.high = high
    }

    /// The default bank: low 100–500, speech 500–3000, alert 3000–8000, high 8000–16000 Hz.
    public static let defaults = [
        BandSpec(name: "low", low: 100, high: 500),
        BandSpec(name: "speech", low: 500, high: 3000),
        BandSpec(name: "alert", low: 3000, high: 8000),
        BandSpec(name: "high", low: 8000, high: 16000),
    ]

    /// The bands usable at a sample rate: those whose upper edge is at most 0.45·fs.
    public static func usable(_ bands: [BandSpec], sampleRate: Double) -> [BandSpec] {
        bands.filter { $0.high <= 0.45 * sampleRate }
    }

    /// The highest band edge any supported rate can analyse, Hz: 0.45 × the highest rate
    /// (768 kHz), 345.6 kHz.
    public static let maximumEdgeHertz = 0.45 * EngineLimits.maximumSampleRate

    /// Parses `name:low-high,name:low-high,…` (Hz), or `none` for no bands.
    /// - Throws: ``BandSpecError`` naming the part that does not parse.
    public static func parse(_ text: String) throws(BandSpecError) -> [BandSpec] {
        if text == "none" || text.isEmpty { return [] }
        var bands: [BandSpec] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[0].isEmpty,
                fields[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
            else { throw .malformed(String(part)) }
            let edges = fields[1].split(separator: "-", omittingEmptySubsequences: false)
            guard edges.count == 2, let low = Double(edges[0]), let high = Double(edges[1]),
                low > 0, high > low, high.isFinite
            else { throw .malformed(String(part)) }
            guard high <= maximumEdgeHertz else { throw .beyondAnyRate(String(part)) }
            let name = String(fields[0])
            guard !bands.contains(where: { $0.name == name }) else { throw .duplicateName(name) }
            bands.append(BandSpec(name: name, low: low, high: high))
        }
        return bands
    }

    public var description: String { "\(name):\(formatNumber(low))-\(formatNumber(high))" }

    private func formatNumber(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
}

/// Why a `--bands` list does not parse.
public enum BandSpecError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case duplicateName(String)
    /// A band above ``BandSpec/maximumEdgeHertz``, which no supported rate can analyse.
    case beyondAnyRate(String)

    public var description: String {
        switch self {
        case .malformed(let part): "band \"\(part)\" is not NAME:LOW-HIGH with 0 < LOW < HIGH in Hz"
        case .duplicateName(let name): "band name \"\(name)\" is used twice"
        case .beyondAnyRate(let part):
            "band \"\(part)\" reaches above \(Int(BandSpec.maximumEdgeHertz)) Hz, 0.45 × the highest sample rate (768000 Hz), where no recording has sound to analyse"
        }
    }
}
