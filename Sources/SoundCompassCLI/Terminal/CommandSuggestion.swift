import ArgumentParser
import Foundation

/// What the first word of a command line means: a subcommand, a file for the default `analyze`,
/// or a subcommand mistyped, for which a suggestion beats "no such file".
enum CommandSuggestion {
    /// A message for a first word that is neither a subcommand nor an existing file but is close
    /// to a subcommand's name ("'devics' is not a command or a file; did you mean 'devices'?"),
    /// or `nil`.
    static func mistypedCommand(in arguments: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), word != "help",
            !word.contains("/"), !word.contains("."),
            !SoundCompassCommand.commandsByName.contains(where: { $0.name == word }),
            !FileManager.default.fileExists(atPath: word),
            let match = closestCommand(to: word)
        else { return nil }
        return "'\(word)' is not a command or a file; did you mean '\(match)'?"
    }

    /// The subcommand a command line is about (for its help and its errors): `nil` for the root.
    static func subcommand(in arguments: [String]) -> ParsableCommand.Type? {
        let byName = SoundCompassCommand.commandsByName
        guard let first = arguments.first else { return nil }
        if let match = byName.first(where: { $0.name == first }) { return match.command }
        if first == "help" {
            guard arguments.count > 1 else { return nil }
            return byName.first(where: { $0.name == arguments[1] })?.command
        }
        if ["-h", "--help", "--version", "--experimental-dump-help"].contains(first) { return nil }
        // A file or an option of the default subcommand.
        return SoundCompassCommand.configuration.defaultSubcommand
    }

    /// The subcommand name `word` most likely meant, if any is close: within two edits
    /// (an exchange of neighbours counts as one), fewer than half its letters, or a prefix of
    /// exactly one name.
    static func closestCommand(to word: String) -> String? {
        let lowered = word.lowercased()
        let names = SoundCompassCommand.commandsByName.map(\.name)
        let ranked = names.map { (name: $0, distance: editDistance(lowered, $0)) }.sorted { $0.distance < $1.distance }
        if let best = ranked.first, best.distance <= 2, best.distance * 2 < max(lowered.count, 2) {
            return best.name
        }
        let prefixed = Set(SoundCompassCommand.commandsByName.filter { $0.name.hasPrefix(lowered) }.map { $0.command._commandName })
        if lowered.count >= 2, prefixed.count == 1 { return prefixed.first }
        return nil
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and exchanges
    /// of two neighbouring letters each cost one.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let s = Array(a), t = Array(b)
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: t.count + 1), count: s.count + 1)
        for i in 0...s.count { d[i][0] = i }
        for j in 0...t.count { d[0][j] = j }
        for i in 1...s.count {
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[s.count][t.count]
    }
}
