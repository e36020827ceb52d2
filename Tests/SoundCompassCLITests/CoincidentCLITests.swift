import Foundation
import SoundCompass
import TestSignals
import TestSupport
import Testing

/// Coincident pairs on the command line: synth → analyze, Mid-Side, calibrate, option errors.
@Suite("Coincident pairs on the command line")
struct CoincidentCLITests {
    /// Median azimuth of the active records of a JSON-lines analysis.
    static func medianAzimuth(_ jsonl: String) throws -> Double {
        let azimuths = try CLITests.parseJSONLines(jsonl)
            .filter { $0["active"] as? Bool == true }.map { $0["azimuth"] as! Double }
        return azimuths.isEmpty ? .nan : median(azimuths)
    }

    @Test("synth → analyze: an XY pair of cardioids reads where the source is")
    func xyRoundTrip() throws {
        let dir = TemporaryDirectory()
        for azimuth in [-30, -10, 20, 65] {
            let file = dir.path("xy\(azimuth).wav")
            var r = try CLI.run(["synth", file, "--array", "coincident", "--source", "pink@\(azimuth)", "--duration", "1.5", "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try CLI.run(["analyze", file, "--array", "coincident", "--format", "jsonl", "-q"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            let read = try Self.medianAzimuth(r.stdout)
            #expect(abs(read - Double(azimuth)) < 1, "\(azimuth)° reads \(read)°")
        }
    }

    @Test("synth → analyze: hypercardioids at 110°, and a raw Mid-Side pair with --mid-side")
    func otherPairs() throws {
        let dir = TemporaryDirectory()
        let hyper = dir.path("hyper.wav"), ms = dir.path("ms.wav")
        var r = try CLI.run(["synth", hyper, "--array", "coincident", "--pattern", "hypercardioid", "--angle", "110",
                             "--source", "speech@50", "--duration", "2", "--snr", "20", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["analyze", hyper, "--array", "coincident", "--pattern", "0.25", "--angle", "110", "--format", "jsonl", "-q"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(abs(try Self.medianAzimuth(r.stdout) - 50) < 3)

        r = try CLI.run(["synth", ms, "--array", "coincident", "--mid-side", "--source", "pink@-40", "--duration", "1.5", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["analyze", ms, "--array", "coincident", "--mid-side", "--format", "jsonl", "-q"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(abs(try Self.medianAzimuth(r.stdout) + 40) < 1)
    }

    @Test("options that do not fit a coincident pair are refused with exit 64", arguments: [
        (["--array", "coincident", "--ild-gain", "5"], "--ild-gain applies to --array binaural only"),
        (["--pattern", "cardioid"], "--pattern applies to --array coincident"),
        (["--array", "binaural", "--angle", "90"], "--angle applies to --array coincident"),
        (["--array", "coincident", "--angle", "200"], "--angle must be the included angle"),
        (["--array", "coincident", "--angle", "0"], "--angle must be the included angle"),
        (["--array", "coincident", "--pattern", "shotgun"], "figure8 or a first-order coefficient"),
        (["--array", "coincident", "--pattern", "1.5"], "figure8 or a first-order coefficient"),
        (["--array", "coincident", "--mid-side", "--angle", "90"], "--angle conflicts with --mid-side"),
        (["--array", "coincident", "--side-gain", "0.5"], "--side-gain applies to --mid-side"),
        (["--array", "coincident", "--mid-side", "--side-gain", "-1"], "--side-gain must be"),
    ])
    func refusals(arguments: [String], message: String) throws {
        let r = try CLI.run(["analyze"] + arguments)
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("calibrate fits the pattern and angle from a sweep; the profile reads them back")
    func calibrate() throws {
        let dir = TemporaryDirectory()
        let sweep = dir.path("sweep.wav"), profile = dir.path("pair.json"), second = dir.path("second.wav")
        let rig = ["--array", "coincident", "--pattern", "hypercardioid", "--angle", "110", "--channel-gain", "2", "--snr", "25"]
        var r = try CLI.run(["synth", sweep, "--source", "pink@-80:80", "--duration", "6", "-q"] + rig)
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["calibrate", sweep, "--array", "coincident", "--truth", dir.path("sweep.truth.csv"), "-o", profile])
        #expect(r.status == 0, "\(r.stderr)")
        print(r.stderr)
        #expect(r.stderr.contains("pattern") && r.stderr.contains("angle"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as! [String: Any]
        let pattern = try #require(json["pattern"] as? Double)
        let angle = try #require(json["included_angle_deg"] as? Double)
        let gain = try #require(json["gain_offset_db"] as? Double)
        #expect(json["ild_gain"] is NSNull)
        #expect(abs(pattern - 0.25) <= 0.03 && abs(angle - 110) <= 3 && abs(gain - 2) < 0.3, "\(pattern) \(angle)° \(gain) dB")

        r = try CLI.run(["synth", second, "--source", "speech@-55", "--duration", "2", "--seed", "5", "-q"] + rig)
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["analyze", second, "--profile", profile, "--format", "jsonl", "-q"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(abs(try Self.medianAzimuth(r.stdout) + 55) < 2)
    }

    @Test("a coincident profile of an older version (a tanh ILD gain, no pattern) loads as XY cardioids")
    func olderProfile() throws {
        let dir = TemporaryDirectory()
        let file = dir.path("xy.wav"), profile = dir.path("old.json")
        try """
            {"format": "soundcompass-profile", "version": 1, "array": "coincident", "spacing_m": 0.15,
             "delay_offset_us": 0, "gain_offset_db": 0, "ild_gain": 12, "sample_rate": 48000, "fitted": ["gain", "ild-gain"]}
            """.write(toFile: profile, atomically: true, encoding: .utf8)
        var r = try CLI.run(["synth", file, "--array", "coincident", "--source", "pink@35", "--duration", "1.5", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["analyze", file, "--profile", profile, "--format", "jsonl", "-q"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(abs(try Self.medianAzimuth(r.stdout) - 35) < 1)
    }
}
