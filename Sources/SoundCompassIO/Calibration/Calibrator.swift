import SoundCompassEngine
/// Runs the analyses a calibration needs over a recording of a sound whose direction is
/// known, and fits an ``ArrayModel`` with ``ArrayCalibration``.
///
/// Two passes: ``measure(_:configuration:truth:)`` reads the recording once, analysing it with
/// the nominal settings (the error before) and, alongside, with the offsets removed and a wider
/// lag search (the cues as measured); ``errors(_:configuration:truth:)`` analyses it again
/// with the fitted model (the error after).
package enum Calibrator {
    /// What one reading of the recording gave.
    package struct Measurement: Sendable {
        /// Every active frame with a truth, its cues as measured.
        package var observations: [CalibrationObservation]
        /// Frames analysed.
        package var frames: Int
        /// Active frames.
        package var activeFrames: Int
        /// Errors of the nominal analysis.
        package var before: AzimuthErrors
    }

    /// Extra lag searched while measuring, beyond the nominal limit, seconds: half the nominal
    /// largest delay (a pair up to 1.5 × wider than its nominal spacing) plus 0.5 ms (a channel
    /// that lags by up to 24 samples at 48 kHz).
    package static func lagMargin(for model: ArrayModel) -> Double { 0.5 * model.maximumDelaySeconds + 0.0005 }

    /// The settings that measure the cues: `configuration` without the hardware offsets and
    /// with ``lagMargin(for:)``.
    package static func measurementConfiguration(_ configuration: AnalysisConfiguration) -> AnalysisConfiguration {
        var measuring = configuration
        measuring.array.delayOffsetSeconds = 0
        measuring.array.gainOffsetDecibels = 0
        measuring.lagMarginSeconds = lagMargin(for: configuration.array)
        return measuring
    }

    /// Reads `source` once: the nominal analysis's errors and the measured cues of every active
    /// frame the truth covers. `timeOrigin` is the time of the source's first sample on the
    /// truth's clock, seconds (see ``StreamingAnalyzer/timeOrigin``).
    /// - Throws: ``ConfigurationError`` when the settings do not suit, or what the source throws.
    package static func measure(
        _ source: some StereoSource, configuration: AnalysisConfiguration, truth: TruthTrack,
        timeOrigin: Double = 0, progress: ((Int) -> Void)? = nil
    ) throws -> Measurement {
        let nominal = try StreamingAnalyzer(configuration: configuration)
        let measuring = try StreamingAnalyzer(configuration: measurementConfiguration(configuration))
        nominal.timeOrigin = timeOrigin
        measuring.timeOrigin = timeOrigin
        var measurement = Measurement(observations: [], frames: 0, activeFrames: 0, before: AzimuthErrors())
        try source.forEachBlock(progress: progress) { left, right in
            nominal.process(left: left, right: right) { measurement.before.add($0, truth: truth) }
            measuring.process(left: left, right: right, emitWithEstimate: { record, estimate in
                measurement.frames += 1
                guard record.active else { return }
                measurement.activeFrames += 1
                guard let azimuth = truth.azimuth(at: record.time) else { return }
                var observation = CalibrationObservation(
                    time: record.time, truthAzimuth: azimuth,
                    delay: estimate.delay.lagSamples / configuration.sampleRate,
                    ildDecibels: estimate.levels.ildDecibels, highFrequencyILD: estimate.highFrequencyILD,
                    weight: record.confidence, leftPower: estimate.covariance.leftPower,
                    rightPower: estimate.covariance.rightPower, crossPower: estimate.covariance.crossPower)
                observation.lowFrequencyShare = estimate.lowFrequencyShare ?? 0
                measurement.observations.append(observation)
            })
        }
        return measurement
    }

    /// The errors of an analysis of `source` with `configuration` against `truth`
    /// (`timeOrigin` as for ``measure(_:configuration:truth:timeOrigin:progress:)``).
    package static func errors(
        _ source: some StereoSource, configuration: AnalysisConfiguration, truth: TruthTrack,
        timeOrigin: Double = 0, progress: ((Int) -> Void)? = nil
    ) throws -> AzimuthErrors {
        let analyzer = try StreamingAnalyzer(configuration: configuration)
        analyzer.timeOrigin = timeOrigin
        var errors = AzimuthErrors()
        try analyzer.analyze(source, progress: progress) { errors.add($0, truth: truth) }
        return errors
    }
}
