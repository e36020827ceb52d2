import Foundation
import Testing
import SoundCompassEngine
import TestSignals

/// The yaw the multi-source candidates are heard at (``SourceCandidateFinder/averageYaw``):
/// averaged like the correlations, so it lags a turning head as the candidates do.
@Suite("The candidates' own yaw")
struct CandidateYawTests {
    /// One noise frame (the same in both channels: a correlation every frame).
    static func frame() -> ([Float], [Float]) {
        let noise = Generators.whiteNoise(count: 1024, rms: 0.1, seed: 5).map { Float($0) }
        return (noise, noise)
    }

    @Test("a steady turn: the average lags the yaw by (1 − a)/a hops, a = hop/window; gated frames hold it; no yaw: nil")
    func lag() {
        let configuration = AnalysisConfiguration(sampleRate: 48000, frameLength: 1024)
        let estimator = DirectionEstimator(configuration: configuration)
        let finder = SourceCandidateFinder(configuration: configuration, broadband: estimator, capacity: 4)
        let (l, r) = Self.frame()
        func spectra() -> FrameSpectra {
            l.withUnsafeBufferPointer { l in r.withUnsafeBufferPointer { r in estimator.estimate(left: l, right: r).spectra } }
        }
        let hop = configuration.hopDuration, speed = 45.0  // degrees per second
        var yaw = 0.0
        // No yaw yet: nil.
        finder.update(spectra: spectra(), levelDBFS: -20, aboveGate: true)
        #expect(finder.averageYaw == nil)
        // 600 frames (≥ 6 s, 20 time constants) of a steady turn.
        for n in 0..<600 {
            yaw = speed * Double(n) * hop
            finder.update(spectra: spectra(), levelDBFS: -20, aboveGate: true, yaw: yaw)
        }
        let a = min(1, hop / configuration.sourceWindowSeconds)
        let expectedLag = speed * hop * (1 - a) / a  // ≈ 13° at 45°/s and 0.3 s
        let lag = yaw - (finder.averageYaw ?? .nan)
        #expect(abs(lag - expectedLag) < 0.01 * expectedLag, "lag \(lag)° (expected \(expectedLag)°)")
        #expect(expectedLag > 10 && expectedLag < 15)
        // Frames below the gate add nothing: the averaged yaw stays where it was.
        let held = finder.averageYaw ?? .nan
        for n in 600..<650 {
            finder.update(spectra: spectra(), levelDBFS: -90, aboveGate: false, yaw: speed * Double(n) * hop)
        }
        #expect(abs((finder.averageYaw ?? .nan) - held) < 1e-6)
        // The IMU says nothing: nil again.
        finder.update(spectra: spectra(), levelDBFS: -20, aboveGate: true, yaw: nil)
        #expect(finder.averageYaw == nil)
    }
}
