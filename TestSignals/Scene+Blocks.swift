#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Scene {
    /// Most samples per channel that ``render(mismatch:_:)`` renders in one piece, exactly as
    /// ``render()`` does: 2¹⁹ (10.9 s at 48 kHz; about 50 MB with three sources).
    public static let wholeRenderLimit = 1 << 19

    /// Renders the scene as consecutive blocks, passed to `body` in order (their counts add up to
    /// ``sampleCount``), in memory bounded independently of the duration, and records it
    /// through `mismatch`.
    ///
    /// A scene of at most ``wholeRenderLimit`` samples comes as one block equal to
    /// `mismatch.apply(to: render())`. A longer one is rendered in segments of about 2¹⁸ samples
    /// (5.5 s at 48 kHz; a few tens of MB each), each like a whole scene over its span (sources
    /// clipped to it, their paths at absolute time, fades only where they truly start and end),
    /// and joined by crossfades of 50 ms (at most 2¹⁵ samples): sine/cosine in power for the
    /// random sources (white, pink, band noise, speech: each segment draws a new piece from a seed
    /// derived from the source's and the segment's) and the sensor noise, sin²/cos² in amplitude
    /// for tones and chirps (whose samples are the same in both segments). Every segment carries
    /// the exact spatial cues, so they hold across the joins with no level dip. The sensor noise's
    /// SNR is measured per segment (a segment where no source plays keeps the previous level).
    /// Rendering is deterministic.
    /// - Parameters:
    ///   - mismatch: the recording rig's channel mismatch (default none).
    ///   - body: receives each block; what it throws stops the render and is rethrown.
    public func render(mismatch: ChannelMismatch = ChannelMismatch(), _ body: (StereoSignal) throws -> Void) rethrows {
        try SegmentedRender(scene: self, mismatch: mismatch, wholeLimit: Self.wholeRenderLimit, whole: render) { _ in self }
            .run(body)
    }
}

extension RotatingListener {
    /// Renders what the pair records (through `mismatch`) as consecutive blocks in bounded
    /// memory, as ``Scene/render(mismatch:_:)`` does: at most ``Scene/wholeRenderLimit`` samples come
    /// as one block equal to `mismatch.apply(to: render())`.
    /// - Parameters:
    ///   - mismatch: the recording rig's channel mismatch (default none).
    ///   - body: receives each block; what it throws stops the render and is rethrown.
    public func render(mismatch: ChannelMismatch = ChannelMismatch(), _ body: (StereoSignal) throws -> Void) rethrows {
        try SegmentedRender(scene: scene, mismatch: mismatch, wholeLimit: Scene.wholeRenderLimit, whole: render) { seconds in
            relativeScene(from: seconds.lowerBound, to: seconds.upperBound)
        }.run(body)
    }

    /// ``relativeScene`` with path keyframes only around `start…end` seconds (the paths are the
    /// same there).
    func relativeScene(from start: Double, to end: Double) -> Scene {
        var relative = scene
        let first = max(0, Int((start / step).rounded(.down)) - 2)
        let last = max(first, Int((end / step).rounded(.up)) + 2)
        let times = (first...last).map { Double($0) * step }
        relative.sources = scene.sources.map { source in
            var moved = source
            moved.path = AzimuthPath(times.map { t in (t, source.path.azimuth(at: t) - yaw.yaw(at: t)) })
            return moved
        }
        return relative
    }
}

/// A scene rendered segment by segment and joined by crossfades (see
/// ``Scene/render(mismatch:_:)``).
struct SegmentedRender {
    /// The scene's timing and microphones (its sources are those of `sceneForSpan`).
    let scene: Scene
    let mismatch: ChannelMismatch
    /// At most this many samples render in one piece, as ``Scene/render()``.
    let wholeLimit: Int
    /// Samples a segment's span aims at (its core plus the crossfade and the guards).
    var segmentBudget = 1 << 18
    /// Crossfade length, samples (0.05 s, at most 2¹⁵, at most a quarter of the budget).
    var overlap: Int
    /// The whole scene in one piece, for a scene of at most `wholeLimit` samples.
    let whole: () -> StereoSignal
    /// The scene that renders the seconds given (the sources' paths there).
    let sceneForSpan: (ClosedRange<Double>) -> Scene

    init(
        scene: Scene, mismatch: ChannelMismatch, wholeLimit: Int, segmentBudget: Int = 1 << 18,
        whole: @escaping () -> StereoSignal, sceneForSpan: @escaping (ClosedRange<Double>) -> Scene
    ) {
        self.whole = whole
        self.scene = scene
        self.mismatch = mismatch
        self.wholeLimit = wholeLimit
        self.segmentBudget = segmentBudget
        self.overlap = max(2, min(Int(0.05 * scene.sampleRate), 1 << 15, segmentBudget / 4))
        self.sceneForSpan = sceneForSpan
    }

    /// Samples at each end of a segment's span that may be wrong (sound arriving from outside
    /// it, the interpolator's reach, the exact delays' sinc tails) and so lie outside its output.
    var guardLength: Int {
        var spatial = 0.0
        for degrees in stride(from: -180.0, through: 180.0, by: 1) {
            let times = scene.microphones.arrivalTimes(azimuth: degrees, speedOfSound: scene.speedOfSound)
            spatial = max(spatial, abs(times.left), abs(times.right))
        }
        let delay = (spatial + abs(mismatch.delay)) * scene.sampleRate
        return Int(delay.rounded(.up)) + scene.interpolationHalfLength + 1024
    }

    /// Output samples of one segment before the crossfades.
    var coreLength: Int { max(overlap, segmentBudget - 2 * overlap - 2 * guardLength - 64) }

    /// The boundaries between segments (each crossfade is centred on one), samples.
    func boundaries(total: Int) -> [Int] {
        let core = coreLength
        var count = max(1, (total + core - 1) / core)
        // A last segment shorter than the crossfade joins the one before.
        if count > 1 && total - (count - 1) * core < overlap { count -= 1 }
        return (1..<max(count, 1)).map { $0 * core }
    }

    func run(_ body: (StereoSignal) throws -> Void) rethrows {
        let total = scene.sampleCount
        let fs = scene.sampleRate
        if total <= wholeLimit {
            try body(mismatch.apply(to: whole()))
            return
        }
        let joins = boundaries(total: total)
        let half = overlap / 2, guardLength = guardLength
        var carryLeft = [Double](), carryRight = [Double]()
        var previousRMS: Double?
        for segment in 0...joins.count {
            let start = segment == 0 ? 0 : joins[segment - 1] - half
            let end = segment == joins.count ? total : joins[segment] - half + overlap
            let span = max(0, start - guardLength)..<min(total, end + guardLength)
            let seconds = Double(span.lowerBound) / fs...Double(span.upperBound) / fs
            var rendered = sceneForSpan(seconds).renderSpan(
                span, total: total, segment: segment, separatingDeterministic: true, previousSignalRMS: previousRMS)
            previousRMS = rendered.signalRMS ?? previousRMS
            if mismatch.delay != 0 || mismatch.gainDecibels != 0 {
                rendered.right = mismatch.apply(toRight: rendered.right, sampleRate: fs)
                rendered.coherentRight = mismatch.apply(toRight: rendered.coherentRight, sampleRate: fs)
            }
            var left = [Double](repeating: 0, count: end - start), right = left
            for i in 0..<(end - start) {
                let n = start + i, j = n - span.lowerBound
                var power = 1.0, amplitude = 1.0
                if segment > 0, i < overlap {
                    // Fading in across the previous join.
                    let x = (Double(i) + 0.5) / Double(overlap)
                    power = sin(Double.pi / 2 * x)
                    amplitude = power * power
                } else if segment < joins.count, n >= end - overlap {
                    let x = (Double(n - (end - overlap)) + 0.5) / Double(overlap)
                    power = cos(Double.pi / 2 * x)
                    amplitude = power * power
                }
                left[i] = power * rendered.left[j] + amplitude * rendered.coherentLeft[j]
                right[i] = power * rendered.right[j] + amplitude * rendered.coherentRight[j]
            }
            for i in 0..<carryLeft.count {
                left[i] += carryLeft[i]
                right[i] += carryRight[i]
            }
            let emitted = segment < joins.count ? end - start - overlap : end - start
            carryLeft = Array(left[emitted...])
            carryRight = Array(right[emitted...])
            try body(StereoSignal(
                left: left[..<emitted].map { Float($0) }, right: right[..<emitted].map { Float($0) }, sampleRate: fs))
        }
    }
}

extension ChannelMismatch {
    /// A right channel as this rig records it: delayed exactly and scaled (an empty channel
    /// stays empty).
    func apply(toRight right: [Double], sampleRate: Double) -> [Double] {
        guard !right.isEmpty else { return right }
        let gain = pow(10, gainDecibels / 20)
        let delayed = delay == 0 ? right : FractionalDelay.exact(right, bySamples: delay * sampleRate)
        return delayed.map { $0 * gain }
    }
}
