import ArgumentParser
import SoundCompass
import SoundCompassOptions

extension SoundCompassCommand {
    /// `soundcompass head FILE.sofa`: a measured head's delay and level tables, as the engine
    /// reads them (what `--hrtf` uses), as CSV on stdout.
    struct Head: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a measured head's (SOFA file's) delay and level against azimuth, as the engine reads them.",
            discussion: """
                Renders noise through the head's horizontal-plane impulse responses and runs the engine's \
                estimators on it, as 'analyze --hrtf' does before it starts. One CSV row per estimate \
                (broadband, then each band) and azimuth: the delay (µs, right minus left) and low-frequency \
                share of white noise and of speech-shaped noise (each over a sensor floor 30 dB down), the level difference (dB, right minus left), \
                and the spread (µs) the estimate's delay is given when the bands are read together.
                """)

        @Argument(help: ArgumentHelp("The measured head, an AES69 SOFA file (SimpleFreeFieldHRIR).", valueName: "file.sofa"))
        var file: String

        @Option(parsing: .unconditional, help: ArgumentHelp("Sample rate to measure at, Hz (the recordings' rate).", valueName: "Hz"))
        var rate: Double = 48000

        func validate() throws {
            guard rate.isFinite, rate >= AnalysisConfiguration.minimumSampleRate, rate <= 192_000 else {
                throw ValidationError("--rate must be \(Int(AnalysisConfiguration.minimumSampleRate))…192000 Hz, got \(rate)")
            }
        }

        func run() throws {
            try Diagnostics.reportingFailures {
                var configuration = AnalysisConfiguration(sampleRate: rate, array: ArrayModel(kind: .binaural))
                configuration.maxSources = 0
                let head = try SOFAFile.measuredHead(path: file, configuration: configuration)
                let out = LineSink.standardOutput()
                try out.write(Array("estimate,azimuth,delay_us,share,low_delay_us,low_share,level_db,delay_spread_us\n".utf8))
                for estimate in head.estimates {
                    for (j, azimuth) in head.azimuths.enumerated() {
                        let cells = [
                            formatFixed(azimuth, 2), formatFixed(estimate.delays[j] * 1e6, 2), formatFixed(estimate.shares[j], 4),
                            formatFixed(estimate.lowDelays[j] * 1e6, 2), formatFixed(estimate.lowShares[j], 4),
                            formatFixed(estimate.levels[j], 3), formatFixed(estimate.delaySpreads[j] * 1e6, 2),
                        ]
                        try out.write(Array((estimate.name + "," + cells.joined(separator: ",") + "\n").utf8))
                    }
                }
            }
        }
    }
}
