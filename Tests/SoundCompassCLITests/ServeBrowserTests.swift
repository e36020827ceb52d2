import Foundation
import Testing
import TestSupport

/// The compass page in a real browser (issue 32): `Tests/Browser/compass_page.py` drives
/// headless Debian chromium through selenium against `live --serve` on 127.0.0.1. It checks the
/// dial's bearing text against the truth (within 2°) and the disconnected state once the
/// server stops, and saves a screenshot (the one in Docs/Serve.md).
@Suite struct ServeBrowserTests {
    /// The repository's root (this file is Tests/SoundCompassCLITests/ServeBrowserTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python with selenium: the one scripts/install-deps makes in .build-venv/, else python3.
    static let python: String = {
        let venv = root.appendingPathComponent(".build-venv/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }()

    /// chromium, chromedriver and selenium are all there.
    static let browserAvailable: Bool = {
        guard let check = try? CLI.shell(
            "command -v chromium && command -v chromedriver && '\(python)' -c 'import selenium'")
        else { return false }
        return check.status == 0
    }()

    @Test(
        "a browser shows the served bearing within 2° and the disconnected state after the server stops",
        .enabled(
            if: availableOrOnCI(browserAvailable),
            "needs chromium, chromium-driver and selenium (scripts/install-deps installs them)"))
    func compassPageInChromium() throws {
        try #require(Self.browserAvailable, "chromium, chromedriver or selenium missing")
        let directory = TemporaryDirectory()
        let screenshot = directory.path("serve-page.png")
        let result = try CLI.runExecutable(
            URL(fileURLWithPath: Self.python.hasPrefix("/") ? Self.python : "/usr/bin/env"),
            (Self.python.hasPrefix("/") ? [] : [Self.python])
                + [Self.root.appendingPathComponent("Tests/Browser/compass_page.py").path, CLI.executable.path, screenshot,
                   "--azimuth", "30"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // The script checks the 2° itself; the figure it read, again here.
        let shown = result.stdout.firstMatch(of: /bearing text '\+([0-9]+)°'/).flatMap { Double($0.1) }
        #expect(shown.map { abs($0 - 30) <= 2 } == true, "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: screenshot))
        print(result.stdout, terminator: "")
    }
}
