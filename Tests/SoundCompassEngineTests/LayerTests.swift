import Foundation
import Testing
import TestSupport

/// The engine's folders form layers (Docs/Pipeline.md, "Folders and layers"):
/// `scripts/check-engine-layers` over the engine's sources passes, and fails on a copy of them
/// in which a low folder refers to a higher one.
@Suite("The engine's folders form layers")
struct LayerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("scripts/check-engine-layers")
    static let engine = repository.appendingPathComponent("Sources/SoundCompassEngine")

    /// Runs the check over `directory`.
    static func check(_ directory: URL) throws -> (status: Int32, output: String) {
        let r = try CLI.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, directory.path])
        return (r.status, r.stdout + r.stderr)
    }

    @Test("every folder of the engine refers only to folders below it")
    func layered() throws {
        let result = try Self.check(Self.engine)
        print(result.output)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("check-engine-layers: OK"), "\(result.output)")
        // The bottom refers to nothing, the top to the analyzer.
        #expect(result.output.contains("Support      -> (nothing)"), "\(result.output)")
        #expect(result.output.contains("Records      -> Support"), "\(result.output)")
        // Docs/Pipeline.md's map of folders and arrows is the code's, line for line.
        let pipeline = try String(
            contentsOf: Self.repository.appendingPathComponent("Docs/Pipeline.md"), encoding: .utf8)
        let arrows = result.output.split(separator: "\n").filter { $0.contains(" -> ") }
        #expect(arrows.count == 11, "\(result.output)")
        for arrow in arrows {
            let line = arrow.trimmingCharacters(in: .whitespaces)
            #expect(pipeline.contains("\n" + line + "\n"), "Docs/Pipeline.md lacks the map line: \(line)")
        }
    }

    @Test("the check fails when a low folder refers to a higher one, naming the file, the name and both folders")
    func checkCanFail() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("engine-layers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: Self.engine, to: copy)
        // A record that builds an analyzer: Records/ pointing up at Analyzer/.
        let upward = """
            /// Not a real file: the layering check must refuse it.
            extension AnalysisRecord {
                static func analyzer(for configuration: AnalysisConfiguration) throws -> StreamingAnalyzer {
                    try StreamingAnalyzer(configuration: configuration)
                }
            }

            """
        try upward.write(to: copy.appendingPathComponent("Records/AnalysisRecord+Upward.swift"), atomically: true, encoding: .utf8)
        let result = try Self.check(copy)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(
            "FAIL: Records/AnalysisRecord+Upward.swift uses StreamingAnalyzer of Analyzer/, which is not below Records/"),
            "\(result.output)")
        #expect(result.output.contains("uses AnalysisConfiguration of Analyzer/"), "\(result.output)")
        // A folder the layers do not place is refused too.
        try FileManager.default.createDirectory(at: copy.appendingPathComponent("Extras"), withIntermediateDirectories: true)
        try "struct Extra {}\n".write(to: copy.appendingPathComponent("Extras/Extra.swift"), atomically: true, encoding: .utf8)
        let unplaced = try Self.check(copy)
        #expect(unplaced.status == 2, "\(unplaced.output)")
        #expect(unplaced.output.contains("folders with no layer: Extras"), "\(unplaced.output)")
    }
}
