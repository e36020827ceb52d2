import SoundCompassEngine
import TestSignals

// Pink noise 30° to the right of a 15 cm pair, two seconds at 48 kHz, exact delays.
let scene = Scene(sampleRate: 48000, duration: 2, microphones: .spaced(spacing: 0.15),
                  sources: [Source(.pinkNoise, azimuth: 30)])
let signal = scene.render()

let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: 48000))
let records = analyzer.process(left: signal.left, right: signal.right)
let summary = AnalysisSummary(records)
print("median \(summary.medianAzimuth ?? .nan)°, active \(summary.activeShare)")
