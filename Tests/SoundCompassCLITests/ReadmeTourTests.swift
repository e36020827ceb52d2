import Foundation
import Testing
import TestSupport

/// README.md's "A short tour" runs as written: every command of its first `sh` block, in order,
/// in one empty directory, exits 0. Commands that need a sound card (`live` without `--input`,
/// `arecord`) are the only ones left out; a `| jq …` stage runs when jq is installed and is
/// replaced by `> /dev/null` when it is not (CI installs only the three -dev packages).
@Suite("README tour")
struct ReadmeTourTests {
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

    /// The command lines of the tour's first `sh` block, comments removed.
    static func tourCommands() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let tour = text.range(of: "## A short tour") else { return [] }
        let rest = text[tour.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "```") else { return [] }
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").compactMap { line in
            // A comment starts at a '#' after a space (one inside a word is not one).
            let command = (line.range(of: #"\s#(\s|$)"#, options: .regularExpression).map { line[..<$0.lowerBound] } ?? line[...])
                .trimmingCharacters(in: .whitespaces)
            return command.isEmpty || command.hasPrefix("#") ? nil : command
        }
    }

    static func needsSoundCard(_ command: String) -> Bool {
        command.contains("arecord") || (command.contains("soundcompass live") && !command.contains("--input"))
    }

    static let hasJQ = FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")
        || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/jq")

    @Test("every tour command that needs no sound card runs as written, in order")
    func tour() throws {
        let commands = try Self.tourCommands()
        #expect(commands.count >= 12, "the tour is found: \(commands)")
        let runnable = commands.filter { !Self.needsSoundCard($0) }
        #expect(commands.count - runnable.count <= 3, "only live-device commands are left out")
        let directory = TemporaryDirectory()
        for command in runnable {
            var line = command
            if !Self.hasJQ, let pipe = line.range(of: "| jq") { line = line[..<pipe.lowerBound] + "> /dev/null" }
            // The directory goes in by variable: `CLI.shell` stands the binary in for every
            // "soundcompass" of the line, which the directory's name contains.
            let r = try CLI.shell("cd \"$TOUR_DIRECTORY\" && ( " + line + " ) < /dev/null", environment: ["TOUR_DIRECTORY": directory.url.path])
            #expect(r.status == 0, "\(command)\n\(r.stderr)")
            #expect(!r.stderr.contains("soundcompass: error:"), "\(command)\n\(r.stderr)")
        }
    }
}
