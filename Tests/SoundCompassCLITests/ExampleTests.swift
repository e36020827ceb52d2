import Foundation
import Testing
import TestSupport

/// The library examples in `Examples/` are the code blocks of Docs/Library.md and README.md,
/// character for character; they are built as programs of their own (so their imports are
/// exactly what they say) and run here, so the documentation cannot rot.
@Suite("Library examples")
struct ExampleTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func example(_ name: String) -> URL {
        CLI.executable.deletingLastPathComponent().appendingPathComponent(name)
    }

    static func source(_ folder: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent("Examples/\(folder)/main.swift"), encoding: .utf8)
    }

    /// The ```swift blocks of a Markdown file, each without its fence lines.
    static func swiftBlocks(_ document: String) throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
        var blocks: [String] = [], current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test("Docs/Library.md and README.md show each example exactly as it is built", arguments: [
        ("Docs/Library.md", "Localize"), ("Docs/Library.md", "Chunks"), ("Docs/Library.md", "ReadFile"), ("Docs/Library.md", "Session"),
        ("README.md", "Localize"), ("README.md", "ReadFile"),
    ])
    func documented(document: String, folder: String) throws {
        let blocks = try Self.swiftBlocks(document)
        #expect(blocks.contains(try Self.source(folder)), "\(document) has no ```swift block equal to Examples/\(folder)/main.swift")
    }

    @Test("the 12-line program: only SoundCompassEngine and TestSignals, +30° reads within 1° of +30°")
    func localize() throws {
        let code = try Self.source("Localize")
        #expect(code.split(separator: "\n", omittingEmptySubsequences: false).dropLast().count <= 12)
        let imports = code.split(separator: "\n").filter { $0.hasPrefix("import ") }
        #expect(imports == ["import SoundCompassEngine", "import TestSignals"])
        let result = try CLI.runExecutable(Self.example("LocalizeExample"), [])
        #expect(result.status == 0)
        // "median 30.00006608043813°, active 1.0"
        let (median, active) = try #require(Self.medianAndActive(result.stdout))
        #expect(abs(median - 30) <= 1)
        #expect(active >= 0.9)
    }

    /// The median and active share of a "median M°, active A" line.
    static func medianAndActive(_ line: some StringProtocol) -> (Double, Double)? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "°" || $0 == "\n" || $0 == "`" })
        guard words.count >= 4, words[0] == "median", let median = Double(words[1]), let active = Double(words[3]) else { return nil }
        return (median, active)
    }

    /// Issue 30, item 17: the page said 30.00005190…, the program printed 30.00006608….
    @Test("Docs/Library.md quotes what the 12-line program prints (to 1e-9°)")
    func localizePrintsWhatThePageSays() throws {
        let page = try String(contentsOf: Self.repository.appendingPathComponent("Docs/Library.md"), encoding: .utf8)
        let quoted = try #require(page.firstMatch(of: /It prints `(median [^`]*)`/)?.output.1)
        let (pageMedian, pageActive) = try #require(Self.medianAndActive(quoted))
        let result = try CLI.runExecutable(Self.example("LocalizeExample"), [])
        let (median, active) = try #require(Self.medianAndActive(result.stdout))
        // Optimised and unoptimised builds may round differently in the last digits.
        #expect(abs(median - pageMedian) <= 1e-9, "the page says \(pageMedian), the program prints \(median)")
        #expect(active == pageActive)
    }

    /// Issue 30, item 17: `ReadFileExample missing.wav` ended in a backtrace (an uncaught
    /// top-level `try`); the examples that read files now say what is wrong in one line.
    @Test("an example given a missing file prints one line on stderr and exits 1", arguments: ["ReadFileExample", "SessionExample"])
    func exampleOnMissingFile(example: String) throws {
        let directory = TemporaryDirectory()
        let missing = directory.path("missing.wav")
        let result = try CLI.runExecutable(Self.example(example), [missing])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == ["\(example): error: \(missing): no such file"], "\(result.stderr)")
    }

    /// Issue 30, item 17: `package: "SoundCompass"` holds only for a folder of that name.
    @Test("Docs/Library.md says that `package:` is the clone's folder name or the URL's last component")
    func dependencyNaming() throws {
        let page = try String(contentsOf: Self.repository.appendingPathComponent("Docs/Library.md"), encoding: .utf8)
        #expect(page.contains("works when the clone's folder is named `SoundCompass`"))
        #expect(page.contains(".package(url: "))
    }

    @Test("streaming in 10 ms blocks through the Span form: speech at −40° within 1°")
    func chunks() throws {
        let result = try CLI.runExecutable(Self.example("ChunksExample"), [])
        #expect(result.status == 0)
        let azimuths = result.stdout.split(separator: "\n").compactMap { line in Double(line.split(separator: " ")[1]) }
        // One second at a 1024-sample hop: 45 frames, of which the speech makes most active.
        #expect(azimuths.count >= 25)
        #expect(abs(median(azimuths) + 40) <= 1)
    }

    @Test("reading a file with the umbrella module gives analyze's records")
    func readFile() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("ex.wav")
        #expect(try CLI.run(["synth", wav, "--source", "white@-25", "--duration", "1.5"]).status == 0)
        let example = try CLI.runExecutable(Self.example("ReadFileExample"), [wav])
        #expect(example.status == 0)
        let reference = try CLI.run(["analyze", wav, "--format", "csv", "-q"])
        #expect(reference.status == 0)
        let exampleLines = example.stdout.split(separator: "\n")
        let csv = reference.stdout.split(separator: "\n").dropFirst()   // header
        #expect(exampleLines.count == csv.count && exampleLines.count > 50)
        let header = reference.stdout.split(separator: "\n")[0].split(separator: ",")
        let timeColumn = try #require(header.firstIndex(of: "time")), azimuthColumn = try #require(header.firstIndex(of: "azimuth"))
        for (line, row) in zip(exampleLines, csv) {
            let ours = line.split(separator: " "), theirs = row.split(separator: ",")
            #expect(abs(Double(ours[0])! - Double(theirs[timeColumn])!) < 1e-3)
            #expect(abs(Double(ours[1])! - Double(theirs[azimuthColumn])!) <= 0.05)
        }
    }

    @Test("the session example writes exactly analyze's JSON lines")
    func session() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("session.wav")
        #expect(try CLI.run(["synth", wav, "--source", "speech@40", "--source", "pink@-30@0.5-1.5", "--duration", "2"]).status == 0)
        let example = try CLI.runExecutable(Self.example("SessionExample"), [wav])
        #expect(example.status == 0)
        let reference = try CLI.run(["analyze", wav, "--format", "jsonl", "-q"])
        #expect(reference.status == 0)
        #expect(example.stdout.split(separator: "\n").count > 80)
        #expect(example.stdout == reference.stdout)
    }
}
