// Fuzz target `options`: the CLI's option parsers (`--bands`, `synth --source`/`--turn`, the
// times of `--start`/`--end`, `--frame`, `--pattern`, …) and whole command lines as
// `soundcompass` parses them, with the error messages it would print. Byte 0 picks the parser;
// the rest is the value, or for command lines the arguments, one a line.
import FuzzSupport
import SoundCompass
@testable import SoundCompassCLI
import SoundCompassOptions

let subcommands = ["analyze", "live", "trace", "calibrate", "devices", "synth", "help", "--help", "a", "tracee"]

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let selector = input.first else { return 0 }
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    switch selector % 12 {
    case 0: _ = try? BandSpec.parse(text).map(\.description)
    case 1: _ = try? SourceSpec.parse(text)
    case 2: _ = try? TurnSpec.parse(text)
    case 3: _ = (try? TimeOffset.parse(text))?.description
    case 4: _ = (try? FrameLength.parse(text))?.length
    case 5: _ = (try? CapsulePattern.parse(text))?.description
    case 6:
        _ = YawSign(argument: text)
        _ = PCMEncoding(argument: text)
        _ = SynthFormat.Argument(argument: text)
    default:
        // A command line: the subcommand from the selector, then one argument a line.
        var arguments = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if selector & 0x80 == 0 { arguments.insert(subcommands[Int(selector >> 3) % subcommands.count], at: 0) }
        _ = CommandSuggestion.mistypedCommand(in: arguments)
        do {
            _ = try SoundCompassCommand.parseAsRoot(arguments)
        } catch {
            _ = SoundCompassCommand.exitCode(for: error)
            _ = SoundCompassCommand.fullMessage(for: error)
            _ = CommandSuggestion.subcommand(in: arguments)
        }
    }
    return 0
}

fuzzMain(testOneInput)
