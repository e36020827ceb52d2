import Foundation
@testable import SoundCompassClassifier
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// #47 items 2 and 10: the model's files are opened as regular files of bounded size. Before,
/// a class map that was a directory aborted the process (a reservation of 2⁶³ bytes from
/// `ftell`), `/dev/zero` grew memory without bound, a 2 GB sparse file was read whole, a FIFO
/// hung; and a weights path that was a directory said "no SCYAMNET header". None needs the
/// model: each is refused before anything is parsed.
@Suite("The model's files: regular, bounded", .timeLimit(.minutes(1)))
struct ModelFileTests {
    /// The hostile stand-ins for a model file, by name: a directory, a FIFO, a link to
    /// `/dev/zero`, a sparse file of 2 GB.
    static func hostile(_ directory: TemporaryDirectory) throws -> [(String, String)] {
        let dir = directory.path("dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fifo = directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let zero = directory.path("zero")
        try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
        let sparse = directory.path("sparse")
        #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
        #expect(truncate(sparse, 2 << 30) == 0)
        return [("a directory", dir), ("a FIFO", fifo), ("/dev/zero", zero), ("a 2 GB sparse file", sparse)]
    }

    @Test("a class map that is a directory, a FIFO, /dev/zero or 2 GB is refused at once, naming the file")
    func hostileClassMaps() throws {
        let directory = TemporaryDirectory()
        for (what, path) in try Self.hostile(directory) {
            let start = Date()
            do {
                _ = try ClassMap(path: path)
                Issue.record("\(what): read as a class map")
            } catch {
                let expected: ClassifierError = switch what {
                case "a directory": .unreadable(path: path, problem: "it is a directory")
                case "a FIFO": .unreadable(path: path, problem: "it is a FIFO (named pipe), not a regular file")
                case "/dev/zero": .unreadable(path: path, problem: "it is a character device, not a regular file")
                default: .badClassMap(path: path, problem: "2147483648 bytes, larger than a class map can be (1 MiB at most)")
                }
                #expect(error == expected, "\(what)")
                #expect(error.description.hasPrefix(path + ": ") && !error.description.contains("\n"))
            }
            #expect(Date().timeIntervalSince(start) < 1, "\(what): took \(Date().timeIntervalSince(start)) s")
        }
    }

    @Test("a weights path that is a directory, a FIFO, /dev/zero or 2 GB is refused at once: 'is a directory', not 'no SCYAMNET header'")
    func hostileWeights() throws {
        let directory = TemporaryDirectory()
        for (what, path) in try Self.hostile(directory) {
            do {
                _ = try YAMNetWeights(path: path)
                Issue.record("\(what): read as weights")
            } catch {
                switch (what, error) {
                case ("a directory", .unreadable(_, "it is a directory")),
                     ("a FIFO", .unreadable), ("/dev/zero", .unreadable), ("a 2 GB sparse file", .badWeights): break
                default: Issue.record("\(what): \(error)")
                }
            }
        }
    }

    @Test("a class map of the right form but over 1 MiB is refused; one just under is parsed")
    func classMapCap() throws {
        let directory = TemporaryDirectory()
        let rows = (0..<YAMNetWeights.classCount).map { "\($0),/m/\($0),Class \($0)" }
        let header = "index,mid,display_name\n"
        let valid = header + rows.joined(separator: "\n") + "\n"
        // Padding in the last name: just under the cap parses, just over is refused.
        let under = directory.path("under.csv"), over = directory.path("over.csv")
        let room = YAMNetWeights.maximumClassMapBytes - valid.utf8.count
        try (valid.dropLast() + String(repeating: "x", count: room) + "\n").write(toFile: under, atomically: true, encoding: .utf8)
        try (valid.dropLast() + String(repeating: "x", count: room + 1) + "\n").write(toFile: over, atomically: true, encoding: .utf8)
        let map = try ClassMap(path: under)
        #expect(map.names.count == YAMNetWeights.classCount && map.names[0] == "Class 0")
        #expect(throws: ClassifierError.badClassMap(path: over, problem: "\(YAMNetWeights.maximumClassMapBytes + 1) bytes, larger than a class map can be (1 MiB at most)")) {
            _ = try ClassMap(path: over)
        }
    }
}

/// #47 item 9: class names that began with ESC `[2J` ESC `[31m` reached the terminal raw in the
/// text view's label cell, its alert line and the live compass's `sound:` line. A class map
/// whose names hold a control character is refused when it is read (YAMNet's hold none), so no
/// view can print one.
@Suite("Class names hold no control characters")
struct ClassNameTests {
    @Test("a class map whose name holds ESC, CR, NUL or a C1 control is refused, naming the line and the character", arguments: [
        ("\u{1B}[2J\u{1B}[31mMusic", "001B"), ("Speech\r", "000D"), ("Si\u{0}ren", "0000"), ("Alarm\u{9B}31m", "009B"), ("Dog\u{7F}", "007F"),
    ])
    func controlCharacters(name: String, code: String) throws {
        let directory = TemporaryDirectory()
        var rows = (0..<YAMNetWeights.classCount).map { "\($0),/m/\($0),Class \($0)" }
        rows[137] = "137,/m/137,\"\(name)\""
        let path = directory.path("map.csv")
        try ("index,mid,display_name\n" + rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ClassifierError.badClassMap(path: path, problem: "line 139: class name holds a control character (U+\(code))")) {
            _ = try ClassMap(path: path)
        }
    }

    @Test("names with commas, quotes and non-ASCII letters still read")
    func ordinaryNames() throws {
        let directory = TemporaryDirectory()
        var rows = (0..<YAMNetWeights.classCount).map { "\($0),/m/\($0),Class \($0)" }
        rows[3] = "3,/m/3,\"Chink, clink\""
        rows[4] = "4,/m/4,\"Say \"\"hi\"\"\""
        rows[5] = "5,/m/5,Café Ünïcode ✓"
        let path = directory.path("map.csv")
        try ("index,mid,display_name\r\n" + rows.joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        let map = try ClassMap(path: path)
        #expect(map.names[3] == "Chink, clink" && map.names[4] == "Say \"hi\"" && map.names[5] == "Café Ünïcode ✓")
    }
}
