import SoundCompassEngine
import TestSignals

// Feed the analyzer the way an audio callback does: small blocks of any size. The Span form
// allocates nothing per block; each record arrives in `emit` as soon as its frame is complete.
let signal = Scene(sampleRate: 48000, duration: 1, microphones: .spaced(spacing: 0.15),
                   sources: [Source(.speech, azimuth: -40)]).render()
let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: 48000))

var block = 0
while block < signal.left.count {
    let end = min(block + 480, signal.left.count)       // 10 ms blocks
    let left = signal.left[block..<end], right = signal.right[block..<end]
    analyzer.process(left: left.span, right: right.span) { record in
        guard record.active else { return }
        print(record.time, record.azimuth, record.confidence)
    }
    block = end
}
