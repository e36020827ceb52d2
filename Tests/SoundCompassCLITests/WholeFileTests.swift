import Foundation
import Testing
import TestSupport

/// Plots, summaries and profiles are written whole or not at all (issue 18, item 5: a full disk
/// when writing the plot or the profile is exit 74, and nothing half-written claims to be
/// complete). A file size limit (`ulimit -f`, with SIGXFSZ ignored so that the write fails
/// with EFBIG instead of killing the process) stands in for a full disk.
struct WholeFileTests {
    @Test("a plot or profile that cannot be written whole: exit 74, the previous file kept, no partial file left")
    func fullDisk() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("scene.wav")
        let made = try CLI.run(["synth", wav, "--duration", "3", "--source", "pink@30", "-q"])
        try #require(made.status == 0, "\(made.stderr)")
        let plot = directory.path("plot.svg"), profile = directory.path("rig.json")
        try "previous plot".write(toFile: plot, atomically: false, encoding: .utf8)
        let environment = ["INPUT": wav, "PLOT": plot, "PROFILE": profile]
        // 8 blocks of 512 bytes: the records fit (they go to /dev/null), the SVG (≈ 100 KB) does not.
        let trace = try CLI.shell(
            "trap '' XFSZ; ulimit -f 8; soundcompass trace \"$INPUT\" --plot \"$PLOT\" -q > /dev/null", environment: environment)
        #expect(trace.status == 74, "\(trace.stderr)")
        #expect(trace.stderr == "soundcompass: error: \(plot): File too large\n")
        #expect(try String(contentsOfFile: plot, encoding: .utf8) == "previous plot")
        let calibrate = try CLI.shell(
            "trap '' XFSZ; ulimit -f 0; soundcompass calibrate \"$INPUT\" --truth 30 -o \"$PROFILE\" -q", environment: environment)
        #expect(calibrate.status == 74, "\(calibrate.stderr)")
        #expect(calibrate.stderr.hasSuffix("soundcompass: error: \(profile): File too large\n"), "\(calibrate.stderr)")
        #expect(!FileManager.default.fileExists(atPath: profile))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(left.sorted() == ["plot.svg", "scene.truth.csv", "scene.wav"], "\(left)")
        // Without the limit both are written, the plot replacing the previous one.
        let fine = try CLI.run(["trace", wav, "--plot", plot, "-q"])
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(try String(contentsOfFile: plot, encoding: .utf8).hasPrefix("<?xml") || (try String(contentsOfFile: plot, encoding: .utf8).hasPrefix("<svg")))
    }

    @Test("synth's truth CSV that cannot be written whole: exit 74, the previous truth kept, what was written kept as .partial")
    func synthTruthFullDisk() throws {
        let directory = TemporaryDirectory()
        let truth = directory.path("scene.truth.csv")
        try "previous truth".write(toFile: truth, atomically: false, encoding: .utf8)
        // The recording goes to /dev/null (written in place); 60 s of truth at 100 rows a second
        // (≈ 100 KB) does not fit in 16 blocks of 512 bytes.
        let run = try CLI.shell(
            "trap '' XFSZ; ulimit -f 16; soundcompass synth /dev/null --file-format wav16 --duration 60 --truth \"$TRUTH\" -q",
            environment: ["TRUTH": truth])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("\(truth): File too large"), "\(run.stderr)")
        #expect(try String(contentsOfFile: truth, encoding: .utf8) == "previous truth")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(left.sorted() == ["scene.truth.csv", "scene.truth.csv.partial"], "\(left)")
    }
}
