import Foundation
import Testing
import TestSupport

/// Every numeric option takes a negative value as the next argument (`--level -30`, not only
/// `--level=-30`): bearings to the left and levels in dBFS are negative. A value the option
/// accepts runs; one it does not is refused by the option's own check (exit 64, naming the
/// option), never by "Missing value".
@Suite("Negative values as the next argument")
struct NegativeValueTests {
    /// (arguments before the option, the option, its negative value, expected exit status).
    static let cases: [([String], String, String, Int32)] = [
        (["synth", "OUT", "--duration", "0.5"], "--level", "-30", 0),
        (["synth", "OUT", "--duration", "0.5"], "--channel-delay", "-20", 0),
        (["synth", "OUT", "--duration", "0.5"], "--channel-gain", "-3", 0),
        (["synth", "OUT", "--duration", "0.5", "--array", "binaural"], "--head-ild", "-6", 0),
        (["synth", "OUT", "--duration", "0.5"], "--snr", "-5", 0),
        (["synth", "OUT", "--turn", "30:4", "--duration", "0.5"], "--imu-yaw-sign", "-1", 0),
        (["synth", "OUT", "--turn", "30:4", "--duration", "0.5"], "--imu-start", "-1", 64),
        (["synth", "OUT"], "--duration", "-1", 64),
        (["synth", "OUT"], "--rate", "-1", 64),
        (["synth", "OUT"], "--seed", "-1", 64),
        (["synth", "OUT", "--turn", "30:4"], "--imu-rate", "-5", 64),
        (["synth", "OUT"], "--spacing", "-0.1", 64),
        (["synth", "OUT", "--array", "binaural"], "--head-radius", "-0.1", 64),
        (["analyze", "WAV", "-q", "--format", "csv"], "--gate", "-60", 0),
        (["analyze", "WAV", "-q", "--format", "csv", "--imu", "IMU"], "--imu-offset", "-0.5", 0),
        (["analyze", "WAV", "-q", "--format", "csv", "--imu", "IMU"], "--imu-yaw-sign", "-1", 0),
        (["analyze", "WAV", "-q"], "--spacing", "-0.1", 64),
        (["analyze", "WAV", "-q"], "--head-radius", "-1", 64),
        (["analyze", "WAV", "-q"], "--ild-gain", "-3", 64),
        (["analyze", "WAV", "-q"], "--frame", "-1", 64),
        (["analyze", "WAV", "-q"], "--hop", "-5", 64),
        (["analyze", "WAV", "-q"], "--channels", "-1,2", 64),
        (["analyze", "WAV", "-q"], "--start", "-1", 64),
        (["analyze", "WAV", "-q"], "--end", "-1", 64),
        (["analyze", "WAV", "-q", "--raw-format", "f32le"], "--rate", "-48000", 64),
        (["analyze", "WAV", "-q", "--raw-format", "f32le"], "--raw-channels", "-2", 64),
        (["analyze", "WAV", "-q"], "--min-confidence", "-0.5", 64),
        (["analyze", "WAV", "-q"], "--every", "-100ms", 64),
        (["calibrate", "WAV"], "--truth", "-30", 0),
        (["live", "--input", "-"], "--duration", "-1", 64),
        (["live", "--input", "-"], "--rate", "-48000", 64),
        (["live", "--input", "-"], "--period", "-1", 64),
        (["live", "--input", "-"], "--raw-channels", "-2", 64),
    ]

    @Test("a negative value after the option is taken as its value", arguments: cases)
    func negative(prefix: [String], option: String, value: String, status: Int32) throws {
        // The inputs the case needs: a still white-noise source at −30° (2 s), and a turning
        // listener's recording with its IMU log.
        let directory = TemporaryDirectory()
        let wav = directory.path("still.wav"), imu = directory.path("turn.imu.csv")
        if prefix.contains("WAV") {
            #expect(try CLI.run(["synth", wav, "--source", "white@-30", "--duration", "2"]).status == 0)
        }
        if prefix.contains("IMU") {
            #expect(try CLI.run(["synth", directory.path("turn.wav"), "--source", "speech@140", "--turn", "30:4@1", "--duration", "3"]).status == 0)
        }
        let arguments = prefix.map { word in
            switch word {
            case "OUT": directory.path("out-\(option.dropFirst(2))-\(value).wav")
            case "WAV": wav
            case "IMU": imu
            default: word
            }
        } + [option, value]
        let result = try CLI.run(arguments)
        #expect(!result.stderr.lowercased().contains("missing value"), "\(arguments): \(result.stderr)")
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        if status != 0 {
            // Refused by the option's own check, which names it.
            let first = try #require(result.stderrLines.first)
            #expect(first.contains(option), "\(arguments): \(first)")
        }
    }

    @Test("synth --level -30 writes a source at −30 dBFS")
    func levelIsUsed() throws {
        let directory = TemporaryDirectory()
        let wav = directory.path("quiet.wav")
        #expect(try CLI.run(["synth", wav, "--source", "white@20", "--duration", "1", "--level", "-30"]).status == 0)
        let csv = try CLI.run(["analyze", wav, "-q", "--format", "csv"])
        let rows = csv.stdout.split(separator: "\n")
        let header = rows[0].split(separator: ",")
        let column = try #require(header.firstIndex(of: "level_dbfs"))
        let levels = rows.dropFirst().compactMap { Double($0.split(separator: ",")[column]) }
        #expect(levels.count > 30)
        #expect(abs(median(levels) + 30) <= 0.5)
    }
}
