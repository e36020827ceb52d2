import ArgumentParser
import SoundCompass
import TestSignals

extension SoundCompassCommand {
    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Analyze a sound file and print one record per analysis frame.",
            discussion: """
                Reads any format libsndfile understands (WAV incl. 24-bit and WAVE_EXTENSIBLE, FLAC, \
                AIFF, Ogg) block by block in constant memory, at any sample rate from 8 kHz. With no \
                FILE, analyzes the built-in demo scene.
                """)

        @Argument(help: "Sound file to analyze (default: the built-in demo scene).")
        var file: String?

        @OptionGroup(title: "Analysis")
        var analysis: AnalysisOptions

        @OptionGroup(title: "Front/back from an IMU")
        var imu: IMUOptions

        @OptionGroup(title: "Output")
        var output: OutputOptions

        @OptionGroup(title: "Trace")
        var trace: TraceOptions

        @Flag(name: .shortAndLong, help: "Print no settings line or progress on stderr.")
        var quiet = false

        func run() throws {
            try Diagnostics.reportingFailures {
                let source = try analysis.openSource(file)
                try analyze(source)
            }
        }

        private func analyze(_ source: some StereoSource) throws {
            let duration = source.expectedFrameCount.map { Double($0) / source.sampleRate }
            let log = try imu.load(audioDuration: duration)
            let (config, analyzer) = try analysis.makeAnalyzer(for: source, orientation: log?.timeline)
            if let path = imu.imu, let out = output.output, LineSink.isSameFile(out, path) {
                throw CLIFailure("\(out): --output names the IMU log; refusing to overwrite it", status: .usage)
            }
            try trace.checkOutputs(inputs: [file, imu.imu, output.output])
            let session = try trace.makeSession(
                for: source, bandNames: config.usableBands.map(\.name), plot: trace.plot)
            let writer = try output.makeWriter(
                input: file, bandNames: config.usableBands.map(\.name), orientation: log != nil)
            if file == nil && !quiet {
                Diagnostics.note(
                    "no FILE given: analysing the built-in demo scene (15 cm pair; speech at −50°, noise at +35°, a source moving −70° → +70°)")
            }
            if !quiet && Diagnostics.isTerminal {
                Diagnostics.note("\(source.name): \(Int(source.sampleRate)) Hz; \(analysis.describe(config))")
                if let log { Diagnostics.note(imu.describe(log)) }
            }
            let progress = ProgressBar(
                totalFrames: source.expectedFrameCount, sampleRate: source.sampleRate,
                enabled: !quiet && Diagnostics.isTerminal)
            defer { progress.finish() }
            try writer.writeHeader()
            try analyzer.analyze(source, progress: progress.update) { record in
                try writer.write(record)
                session?.add(record)
            }
            progress.finish()
            if let session {
                try trace.finish(
                    session, plot: trace.plot, config: config,
                    settings: analysis.plotSettings(config, imu: imu.imu),
                    duration: Double(analyzer.samplesProcessed) / source.sampleRate, table: !quiet && trace.summary)
            }
            for warning in source.warnings { Diagnostics.warning(warning) }
            Diagnostics.warnReplacedSamples(analyzer, source: source)
            if analyzer.framesAnalyzed == 0 {
                Diagnostics.warning(
                    "\(source.name): shorter than one analysis frame (\(config.frameLength) samples); no records")
            }
        }
    }
}
