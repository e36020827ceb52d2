// Each stage of the pipeline takes its own small configuration (the stages sit below the
// analyzer and know nothing of AnalysisConfiguration); this is where the analyzer's settings
// are cut into theirs.

extension AnalysisConfiguration {
    /// The broadband estimator's settings (the per-band estimator reads the same).
    package var directionEstimator: DirectionEstimator.Configuration {
        DirectionEstimator.Configuration(
            sampleRate: sampleRate, frameLength: frameLength, hopLength: hopLength, maximumLagSamples: maximumLagSamples,
            coherenceSmoothing: coherenceSmoothing, silenceGateDBFS: silenceGateDBFS, array: array,
            correctsRoomPull: correctsRoomPull)
    }

    /// The multi-source candidate search's settings.
    package var sourceCandidateFinder: SourceCandidateFinder.Configuration {
        SourceCandidateFinder.Configuration(
            sampleRate: sampleRate, hopDuration: hopDuration, sourceWindowSeconds: sourceWindowSeconds,
            hearsBesideSteadySources: hearsBesideSteadySources, array: array)
    }

    /// The multi-source tracker's settings.
    package var multiSourceTracker: MultiSourceTracker.Configuration {
        MultiSourceTracker.Configuration(
            maxSources: maxSources, hopDuration: hopDuration, sourceWindowSeconds: sourceWindowSeconds)
    }
}

extension DirectionEstimator {
    /// An estimator for `configuration`'s broadband estimate.
    /// - Parameter configuration: must pass ``AnalysisConfiguration/validate()``.
    package convenience init(configuration: AnalysisConfiguration) {
        self.init(configuration: configuration.directionEstimator)
    }
}

extension SourceCandidateFinder {
    /// A candidate search for `configuration`, over `broadband`'s frames.
    /// - Parameters:
    ///   - configuration: the analysis settings.
    ///   - broadband: the broadband estimator whose frames' correlations are averaged.
    ///   - capacity: most candidates kept per frame.
    package convenience init(configuration: AnalysisConfiguration, broadband: DirectionEstimator, capacity: Int) {
        self.init(configuration: configuration.sourceCandidateFinder, broadband: broadband, capacity: capacity)
    }
}

extension MultiSourceTracker {
    /// A tracker for `configuration` (``AnalysisConfiguration/maxSources`` > 0).
    /// - Parameters:
    ///   - configuration: the analysis settings.
    ///   - candidateCapacity: most candidates per frame.
    package convenience init(configuration: AnalysisConfiguration, candidateCapacity: Int) {
        self.init(configuration: configuration.multiSourceTracker, candidateCapacity: candidateCapacity)
    }
}
