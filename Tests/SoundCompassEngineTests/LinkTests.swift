import Foundation
import Testing
import TestSupport

/// SoundCompassEngine links no libsndfile and no ALSA: `scripts/check-engine-links` run over the
/// build products these tests were built into (the engine's object files, `nm -u`; a program
/// linking only the engine, `ldd`), without building anything.
@Suite("The engine links no sound-file or ALSA library", .enabled(if: availableOrOnCI(EngineLinkCheck.setUp != nil), "\(EngineLinkCheck.unavailable)"))
struct LinkTests {
    @Test("no sf_* or snd_* symbol in the engine's objects; LocalizeExample loads neither library")
    func engineLinksNoIO() throws {
        let setUp = try #require(EngineLinkCheck.setUp)
        let result = try EngineLinkCheck.check(setUp.products)
        print(result.output)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("no sf_* or snd_* symbol"))
        #expect(result.output.hasSuffix("check-engine-links: OK\n"))
    }

    @Test("the check fails on objects that do use them (the I/O module's, posing as the engine's)")
    func checkCanFail() throws {
        let setUp = try #require(EngineLinkCheck.setUp)
        let io = setUp.products.appendingPathComponent("SoundCompassIO.build/output-file-map.json")
        try #require(FileManager.default.fileExists(atPath: io.path), "the I/O module is built with the tests")
        let fake = FileManager.default.temporaryDirectory.appendingPathComponent("engine-links-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: fake) }
        let engine = fake.appendingPathComponent("SoundCompassEngine.build")
        try FileManager.default.createDirectory(at: engine, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: io, to: engine.appendingPathComponent("output-file-map.json"))
        let result = try EngineLinkCheck.check(fake)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("FAIL: the engine's objects use libsndfile/ALSA symbols: sf_"), "\(result.output)")
        #expect(result.output.contains(" snd_pcm_open "), "\(result.output)")
    }
}

/// Where the check runs: the script, and the build products of this test run.
enum EngineLinkCheck {
    /// The repository root and the build products directory of this test run.
    struct SetUp { var script: URL; var products: URL }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/check-engine-links")

    /// The directory holding the test executable, which SwiftPM builds next to the engine's
    /// `SoundCompassEngine.build` (`.build/<triple>/debug` or `release`).
    static let products: URL? = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [executable.deletingLastPathComponent(), executable.deletingLastPathComponent().deletingLastPathComponent()]
        return candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("SoundCompassEngine.build/output-file-map.json").path)
        }
    }()

    static let setUp: SetUp? = {
        guard let products, FileManager.default.isExecutableFile(atPath: script.path),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/nm") || FileManager.default.isExecutableFile(atPath: "/bin/nm")
        else { return nil }
        return SetUp(script: script, products: products)
    }()

    static var unavailable: String {
        if products == nil { return "no SoundCompassEngine.build/output-file-map.json next to the test executable" }
        if !FileManager.default.isExecutableFile(atPath: script.path) { return "\(script.path) not found" }
        return "nm (binutils) not found"
    }

    /// Runs the script with `--no-build` over `products`.
    static func check(_ products: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, "--no-build", products.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
