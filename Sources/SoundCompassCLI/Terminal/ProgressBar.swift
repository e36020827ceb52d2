import SoundCompass

#if canImport(Glibc)
import Glibc
#endif

/// A progress bar on stderr for long inputs (more than 30 s of audio), redrawn in place at most
/// ten times a second.
final class ProgressBar {
    private let totalFrames: Int?
    private let sampleRate: Double
    private let enabled: Bool
    private var lastDraw = 0.0
    private var drawn = false

    init(totalFrames: Int?, sampleRate: Double, enabled: Bool) {
        self.totalFrames = totalFrames
        self.sampleRate = sampleRate
        self.enabled = enabled && (totalFrames.map { Double($0) / sampleRate > 30 } ?? false)
    }

    func update(_ frames: Int) {
        guard enabled, let total = totalFrames, total > 0 else { return }
        let now = Double(MonotonicClock.now()) * 1e-9
        guard now - lastDraw >= 0.1 else { return }
        lastDraw = now
        let fraction = min(1, Double(frames) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        Diagnostics.write("\r[\(bar)] \(Int(fraction * 100))%  \(clock(Double(frames) / sampleRate)) / \(clock(Double(total) / sampleRate))\u{1B}[K")
        drawn = true
    }

    func finish() {
        guard drawn else { return }
        Diagnostics.write("\r\u{1B}[K")
        drawn = false
    }

    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds)
        return "\(s / 60):" + (s % 60 < 10 ? "0" : "") + "\(s % 60)"
    }
}
