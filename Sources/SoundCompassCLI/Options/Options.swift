import ArgumentParser
import SoundCompass
import SoundCompassOptions
import TestSignals

extension RecordFormat: ExpressibleByArgument {}

/// What the command-line tool adds to ``AnalysisOptions``: `--channels` for a live stream, and
/// the demo scene.
extension AnalysisOptions {
    /// `--channels` for a live stream: `L,R` picks a pair; a single `N` says the stream has `N`
    /// channels, of which 1 and 2 are used.
    func channelSelection(for inputName: String) throws -> (pair: (left: Int, right: Int)?, count: Int?) {
        if let channels, let count = Int(channels.trimmingCharacters(in: .whitespaces)) {
            guard count >= 2 else {
                throw CLIFailure("\(inputName): --channels \(count): a stereo pair needs at least 2 channels", status: .usage)
            }
            guard count <= CaptureLimits.maximumChannelCount else {
                throw CLIFailure(
                    "\(inputName): --channels \(count) is more than the \(CaptureLimits.maximumChannelCount) channels supported",
                    status: .usage)
            }
            return (nil, count)
        }
        return (try channelPair(for: inputName), nil)
    }

    /// Renders the built-in demo scene and assembles its analysis with the channel options;
    /// warnings found on the way go to stderr. (Files are opened by ``InputOptions``.)
    func openDemoSession(imu: IMUInput? = nil) throws -> AnalysisSession {
        let signal = Scene.demo().render()
        let input = AnalysisInput.samples(left: signal.left, right: signal.right, sampleRate: signal.sampleRate, name: "demo scene")
        return try AnalysisSession(
            input: input, channels: try channelPair(for: input.name), swap: swap, settings: settings, imu: imu,
            warning: Diagnostics.warning)
    }
}
