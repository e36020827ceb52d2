import ArgumentParser
import Foundation
import SoundCompass
import SoundCompassOptions

#if canImport(Glibc)
import Glibc
#endif

/// How many files `analyze` works on at once: 1…256, or `auto` (or 0) for the number of CPUs.
struct JobCount: CustomStringConvertible {
    var value: Int

    /// The most workers `--jobs` accepts.
    static let maximum = 256

    /// Parses `--jobs`, saying what is wrong with a bad value.
    static func parse(_ argument: String) throws -> JobCount {
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        if argument.lowercased() == "auto" || argument == "0" { return JobCount(value: max(1, min(cpus, maximum))) }
        guard let n = Int(argument), (1...maximum).contains(n) else {
            throw ArgumentProblem("give 1…\(maximum) files at once, or auto (or 0) for the number of CPUs (\(cpus))")
        }
        return JobCount(value: n)
    }

    var description: String { String(value) }

    /// File descriptors one worker may hold at once: the recording, the temporary records
    /// file, and a side file (profile, IMU log) being read, with one to spare.
    static let descriptorsPerJob = 4
    /// Descriptors kept for everything else: standard streams, the runtime's own, and
    /// whatever the parent left open.
    static let reservedDescriptors = 16

    /// `asked` workers, or fewer when the descriptors the process may open (`ulimit -n`,
    /// less those already open) would not serve them all: a batch of 256 jobs under
    /// `ulimit -n 64` would otherwise fail most files with "Too many open files".
    /// - Returns: the workers to use (at least 1) and the limit, for the warning.
    static func fitting(_ asked: Int) -> (value: Int, descriptorLimit: Int) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return (asked, Int.max) }
        let allowed = Int(clamping: limit.rlim_cur)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 3
        let room = (allowed - open - reservedDescriptors) / descriptorsPerJob
        return (max(1, min(asked, room)), allowed)
    }
}

/// `--output-dir` and `--jobs`: `analyze` on several files, each file's records in a file of
/// its own, several files at once.
struct FileBatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Write each FILE's records to DIR/NAME.jsonl (.csv, .txt with --format), NAME being the file's name without its extension; needed with several files. DIR is created if missing.",
        valueName: "DIR"))
    var outputDir: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Analyse this many files at once (1…256, or auto for one per CPU), each with its own analyzer.", valueName: "n"),
        transform: JobCount.parse)
    var jobs = JobCount(value: 1)

    /// True when `files` are analysed as a batch: several of them, or `--output-dir`.
    func applies(to files: [String]) -> Bool { files.count > 1 || outputDir != nil }

    /// The file name extension of records in `format`.
    static func fileExtension(for format: RecordFormat) -> String {
        switch format {
        case .jsonl: "jsonl"
        case .csv: "csv"
        case .text: "txt"
        }
    }

    /// `path`'s file name without its last extension: `takes/a.b.wav` → `a.b`.
    static func baseName(of path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.isEmpty ? name : stem
    }

    /// Where each of `files`' records go in `directory`, in order; refuses two files that
    /// would write one output, and an output that is one of the inputs.
    static func outputPaths(for files: [String], in directory: String, format: RecordFormat) throws(CLIFailure) -> [String] {
        let ext = fileExtension(for: format)
        var owner: [String: String] = [:]
        var paths: [String] = []
        for file in files {
            let name = baseName(of: file) + "." + ext
            let path = (directory as NSString).appendingPathComponent(name)
            if let first = owner[name] {
                let what = first == file ? "\(file) is given twice" : "\(first) and \(file) would both write \(path)"
                throw CLIFailure(
                    "\(what); rename one, or analyse them with separate --output-dir directories", status: .usage)
            }
            owner[name] = file
            paths.append(path)
        }
        for (file, path) in zip(files, paths) {
            for input in files where input == path || LineSink.isSameFile(path, input) {
                throw CLIFailure(
                    "\(path): the records of \(file) would overwrite the input \(input); choose another --output-dir",
                    status: .usage)
            }
        }
        return paths
    }
}
