import Foundation
import SoundCompass

/// The summary of a trace as text: a table for stderr and JSON for --summary-json.
extension SegmentReport {
    /// The summary table for stderr.
    static func table(_ reports: [SegmentReport], name: String) -> [String] {
        guard !reports.isEmpty else { return ["\(name): no active segments"] }
        let withTruth = reports.contains { $0.truthAzimuth != nil }
        var header = ["#", "start s", "end s", "azimuth", "spread", "confidence", "band"]
        if withTruth { header += ["truth", "error"] }
        var rows = [header]
        for (i, r) in reports.enumerated() {
            let s = r.segment
            var row = [
                "\(i + 1)", formatFixedCLI(s.start, 2), formatFixedCLI(s.end, 2), signedDegrees(s.medianAzimuth, 1),
                "\(formatFixedCLI(s.spread, 1))°", formatFixedCLI(s.meanConfidence, 2), s.dominantBand ?? "—",
            ]
            if withTruth {
                row += [r.truthAzimuth.map { signedDegrees($0, 1) } ?? "—", r.medianError.map { "\(formatFixedCLI($0, 1))°" } ?? "—"]
            }
            rows.append(row)
        }
        return Table.render(rows)
    }

    /// The summary as JSON text: one segment per line.
    static func json(_ reports: [SegmentReport], name: String) -> String {
        func number(_ x: Double, _ places: Int) -> String { formatFixedCLI(x, places) }
        func string(_ s: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
            let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
            return String(array.dropFirst().dropLast())
        }
        let lines = reports.map { r -> String in
            let s = r.segment
            var fields = [
                "\"start\": \(number(s.start, 3))", "\"end\": \(number(s.end, 3))", "\"frames\": \(s.frames)",
                "\"median_azimuth\": \(number(s.medianAzimuth, 2))", "\"spread\": \(number(s.spread, 2))",
                "\"mean_confidence\": \(number(s.meanConfidence, 3))", "\"confident_frames\": \(s.confidentFrames)",
                "\"dominant_band\": \(s.dominantBand.map(string) ?? "null")",
            ]
            if let t = r.truthAzimuth { fields.append("\"truth_azimuth\": \(number(t, 2))") }
            if let e = r.medianError { fields.append("\"median_error\": \(number(e, 2))") }
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        return "{\n  \"file\": \(string(name)),\n  \"segments\": [\n" + lines.joined(separator: ",\n")
            + (lines.isEmpty ? "" : "\n") + "  ]\n}\n"
    }
}
