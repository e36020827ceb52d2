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

    // MARK: - Issue 30, items 13 and 14: the tool on PATH, and what the tour calls

    static let repository = readme.deletingLastPathComponent()

    /// Runs `command` with bash in the repository, with only `path` as PATH (so that no
    /// `soundcompass` installed on this machine is found).
    static func bash(_ command: String, path: String) throws -> CLI.Result {
        try CLI.runExecutable(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["PATH=\(path)", "HOME=/nonexistent", "/bin/bash", "-c", "cd \"\(repository.path)\" && " + command])
    }

    @Test("scripts/install puts soundcompass on PATH (idempotent), and scripts/demo runs it before the tour needs it")
    func installPutsTheToolOnPath() throws {
        let directory = TemporaryDirectory()
        let prefix = directory.path("prefix")
        let path = "\(prefix)/bin:/usr/bin:/bin"
        let install = "scripts/install --prefix '\(prefix)' --binary '\(CLI.executable.path)'"
        let first = try Self.bash(install, path: path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("installed \(prefix)/bin/soundcompass"), "\(first.stderr)")
        #expect(first.stderr.contains("'soundcompass' is on PATH"), "\(first.stderr)")
        let again = try Self.bash(install, path: path)
        #expect(again.status == 0 && again.stderr.contains("is up to date"), "\(again.stderr)")
        // A shell finds it by name, and it is the built program.
        let run = try Self.bash("soundcompass synth '\(directory.path("t.wav"))' --duration 0.5 -q && command -v soundcompass", path: path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(prefix)/bin/soundcompass\n")
        // A prefix not on PATH: the install says the exact line that puts it there.
        let elsewhere = try Self.bash(install, path: "/usr/bin:/bin")
        #expect(elsewhere.status == 0)
        #expect(elsewhere.stderr.contains("export PATH=\"\(prefix)/bin:$PATH\""), "\(elsewhere.stderr)")
        // scripts/demo installs; the README says so in its set-up section, before the tour.
        let demo = try String(contentsOf: Self.repository.appendingPathComponent("scripts/demo"), encoding: .utf8)
        #expect(demo.contains("\nscripts/install"))
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let setUp = try #require(text.range(of: "## Set-up: two commands")), tour = try #require(text.range(of: "## A short tour"))
        let installStep = try #require(text.range(of: "scripts/install"))
        #expect(setUp.upperBound < installStep.lowerBound && installStep.upperBound < tour.lowerBound)
    }

    /// The programs other than `soundcompass` that tour lines call, and the Debian package of each.
    static let tourPrograms = ["arecord": "alsa-utils", "jq": "jq"]

    @Test("every program the tour calls is soundcompass, a base tool, or installed by the set-up commands")
    func tourProgramsComeWithSetUp() throws {
        let installDeps = try String(contentsOf: Self.repository.appendingPathComponent("scripts/install-deps"), encoding: .utf8)
        // `packages=(…)` (what the tool builds against) and `packages+=(…)` (the tour's and the
        // tests', installed after scripts/demo's first bearing).
        let lists = installDeps.split(separator: "\n").compactMap { line -> Substring? in
            guard line.contains("packages=(") || line.contains("packages+=("),
                let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
            return line[line.index(after: open)..<close]
        }
        #expect(lists.count == 2, "scripts/install-deps: \(lists)")
        let packages = Set(lists.flatMap { $0.split(separator: " ").map(String.init) })
        let base: Set = ["soundcompass", "cat", "cd", "head", "sort"]
        for command in try Self.tourCommands() {
            for stage in command.split(separator: "|") {
                let program = String(stage.split(separator: " ").first ?? "")
                if base.contains(program) { continue }
                let package = try #require(Self.tourPrograms[program], "the tour calls \(program): say which package has it")
                #expect(packages.contains(package), "the tour calls \(program) (\(package)), which scripts/install-deps does not install")
            }
        }
    }
}
