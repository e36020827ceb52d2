import Benchmark
import SoundCompassEngine
import SoundCompassIO
import TestSignals

// Per-stage micro-benchmarks of the per-hop analysis (package-benchmark; run by
// scripts/stage-benchmarks, figures in Docs/Performance.md).
//
// Every benchmark measures ONE hop's work at the default configuration (48 kHz, frame 2048, hop
// 1024, 15 cm spaced pair) on successive frames of one deterministic scene, rendered once before
// anything is measured. Work a stage needs but does not own (the broadband estimate that the
// per-band estimates read, say) runs outside the measured interval, between
// `startMeasurement()` and `stopMeasurement()`. After the warm-up the per-hop path allocates
// nothing: `mallocCountTotal` reads in every row what it reads for the empty benchmark "0",
// the measurement's own allocations (scripts/stage-benchmarks checks that).

/// The benchmarked scene: speech at −30° and pink noise at +40°, sensor noise 20 dB below.
enum StageScene {
    static let sampleRate = 48000.0
    static let duration = 10.0
    static let configuration = AnalysisConfiguration(sampleRate: sampleRate)

    /// Both channels of the scene, copied once into memory that stays put.
    static let samples: (left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) = {
        let signal = Scene(
            sampleRate: sampleRate, duration: duration, microphones: .spaced(spacing: 0.15),
            sources: [
                Source(.speech, azimuth: -30, seed: 11),
                Source(.pinkNoise, azimuth: 40, levelDBFS: -26, seed: 12),
            ],
            noise: SensorNoise(snrDecibels: 20, seed: 13)
        ).render()
        func pinned(_ samples: [Float]) -> UnsafeBufferPointer<Float> {
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples.count)
            _ = buffer.initialize(from: samples)
            return UnsafeBufferPointer(buffer)
        }
        return (pinned(signal.left), pinned(signal.right))
    }()

    static var frameLength: Int { configuration.frameLength }
    static var hop: Int { configuration.hopLength }
    /// Number of whole frames in the scene.
    static var frameCount: Int { (samples.left.count - frameLength) / hop + 1 }

    /// Frame `index` (wrapped to the scene) of both channels.
    static func frame(_ index: Int) -> (left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) {
        let start = (index % frameCount) * hop
        return (UnsafeBufferPointer(rebasing: samples.left[start..<(start + frameLength)]),
                UnsafeBufferPointer(rebasing: samples.right[start..<(start + frameLength)]))
    }

    /// The `hop` new samples that complete frame `index` (≥ 1, wrapped to frames 1 … frameCount − 1).
    static func hopBlock(_ index: Int) -> (left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) {
        let frame = 1 + (index - 1) % (frameCount - 1)
        let start = frame * hop + frameLength - hop
        return (UnsafeBufferPointer(rebasing: samples.left[start..<(start + hop)]),
                UnsafeBufferPointer(rebasing: samples.right[start..<(start + hop)]))
    }
}

/// A frame counter: the next frame each benchmark iteration works on.
final class Cursor {
    private(set) var index: Int
    init(start: Int = 0) { index = start }
    /// The next index (starting at `first`).
    func next(first: Int = 0) -> Int {
        defer { index += 1 }
        return first + index
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // No .cpuTotal: it is read from getrusage, in 10 ms ticks here, so a hop reads 0 or
        // 10000 µs. Instructions appear where perf counters are available (not on this machine).
        metrics: [.wallClock, .instructions, .mallocCountTotal],
        timeUnits: .nanoseconds,  // a hop of a stage takes a few µs: whole µs would round it away
        warmupIterations: 50,
        maxDuration: .seconds(2),
        maxIterations: 20_000
    )
    let configuration = StageScene.configuration
    let frameLength = StageScene.frameLength, hop = StageScene.hop
    _ = StageScene.samples  // render before measuring

    // MARK: Nothing: what the measurement itself costs and allocates (the other rows' floor).
    Benchmark("0 Empty (the measurement's own cost)") { benchmark in
        for i in benchmark.scaledIterations { blackHole(i) }
    }

    // MARK: Forward FFTs: window both channels, two real FFTs (as GCCPHAT.transform does).
    do {
        let fft = RealFFT(size: frameLength)  // frame 2048 is a power of two: N = frame
        let window = Window.hann(length: frameLength)
        let leftTime = AlignedFloats(count: fft.size), rightTime = AlignedFloats(count: fft.size)
        let leftSpectrum = AlignedFloats(count: 2 * fft.binCount), rightSpectrum = AlignedFloats(count: 2 * fft.binCount)
        let cursor = Cursor()
        Benchmark("1 FFT: window + two forward real FFTs") { benchmark in
            for _ in benchmark.scaledIterations {
                let (left, right) = StageScene.frame(cursor.next())
                let l = leftTime.baseAddress, r = rightTime.baseAddress
                window.withUnsafeBufferPointer { w in
                    for i in 0..<frameLength {
                        l[i] = left[i] * w[i]
                        r[i] = right[i] * w[i]
                    }
                }
                fft.forward(l, leftSpectrum.baseAddress)
                fft.forward(r, rightSpectrum.baseAddress)
                blackHole(leftSpectrum.baseAddress[3] + rightSpectrum.baseAddress[3])
            }
        }
    }

    // MARK: GCC-PHAT broadband estimate, and the whole broadband estimate around it.
    let broadband: [(String, (DirectionEstimator, UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> Double)] = [
        ("2 GCC-PHAT estimate (incl. the FFTs of 1)", { e, l, r in e.gccPhat.estimate(left: l, right: r).delay.lagSamples }),
        ("3 Broadband estimate (levels, GCC-PHAT, cues, fusion)", { e, l, r in e.estimate(left: l, right: r).estimate.fused.lateral }),
    ]
    for (name, measure) in broadband {
        let estimator = DirectionEstimator(configuration: configuration)
        let cursor = Cursor(start: 8)
        Stages.warm(estimator)
        Benchmark(name) { benchmark in
            for _ in benchmark.scaledIterations {
                let (left, right) = StageScene.frame(cursor.next())
                blackHole(measure(estimator, left, right))
            }
        }
    }

    // MARK: Band filter bank: the default four bands' biquads over one hop, and the frame shift.
    do {
        let bank = BandFilterBank(bands: configuration.usableBands, sampleRate: configuration.sampleRate, frameLength: frameLength)
        let first = StageScene.frame(0)
        bank.append(left: first.left.baseAddress!, right: first.right.baseAddress!, count: frameLength)
        bank.advance(hop: hop)
        let cursor = Cursor()
        Benchmark("4 Band filter bank (\(configuration.usableBands.count) bands), one hop") { benchmark in
            for _ in benchmark.scaledIterations {
                let (left, right) = StageScene.hopBlock(cursor.next(first: 1))
                bank.append(left: left.baseAddress!, right: right.baseAddress!, count: hop)
                bank.advance(hop: hop)
            }
            blackHole(bank.filled)
        }
    }

    // MARK: Per-band estimates (SubbandEstimator.estimate), after the frame's broadband estimate.
    do {
        let estimator = DirectionEstimator(configuration: configuration)
        let subbands = SubbandEstimator(bands: configuration.usableBands, broadband: estimator)
        var records = subbands.makeRecords()
        let first = StageScene.frame(0)
        subbands.append(left: first.left.baseAddress!, right: first.right.baseAddress!, count: frameLength)
        var frame = 0
        func prepare() -> (FrameEstimate, FrameSpectra) {
            if frame > 0 {
                subbands.advance(hop: hop)
                let (left, right) = StageScene.hopBlock(frame)
                subbands.append(left: left.baseAddress!, right: right.baseAddress!, count: hop)
            }
            let (left, right) = StageScene.frame(frame == 0 ? 0 : 1 + (frame - 1) % (StageScene.frameCount - 1))
            frame += 1
            return estimator.estimate(left: left, right: right)
        }
        for _ in 0..<8 {
            let (estimate, spectra) = prepare()
            subbands.estimate(spectra: spectra, broadband: estimate, active: estimate.aboveGate, into: &records)
        }
        Benchmark("5 Per-band estimates (SubbandEstimator)") { benchmark in
            for _ in benchmark.scaledIterations {
                let (estimate, spectra) = prepare()
                benchmark.startMeasurement()
                subbands.estimate(spectra: spectra, broadband: estimate, active: estimate.aboveGate, into: &records)
                benchmark.stopMeasurement()
            }
            blackHole(records[0].azimuth)
        }
    }

    // MARK: Source candidates and the multi-source tracker, after the frame's broadband estimate.
    do {
        let estimator = DirectionEstimator(configuration: configuration)
        let capacity = configuration.maxSources + 2
        let candidates = SourceCandidateFinder(configuration: configuration, broadband: estimator, capacity: capacity)
        let tracker = MultiSourceTracker(configuration: configuration, candidateCapacity: capacity)
        var records = MultiSourceTracker.makeRecords(capacity: configuration.maxSources)
        let cursor = Cursor()
        func step(_ estimate: FrameEstimate, _ spectra: FrameSpectra) {
            candidates.update(spectra: spectra, levelDBFS: estimate.levels.levelDBFS, aboveGate: estimate.aboveGate)
            candidates.find(lowFrequencyShare: estimate.lowFrequencyShare)
            tracker.update(
                candidates: candidates.candidates, count: candidates.count,
                averageLevelDBFS: candidates.averageLevelDBFS, into: &records)
        }
        for _ in 0..<50 {
            let (left, right) = StageScene.frame(cursor.next())
            let (estimate, spectra) = estimator.estimate(left: left, right: right)
            step(estimate, spectra)
        }
        Benchmark("6 Source candidates + multi-source tracker") { benchmark in
            for _ in benchmark.scaledIterations {
                let (left, right) = StageScene.frame(cursor.next())
                let (estimate, spectra) = estimator.estimate(left: left, right: right)
                benchmark.startMeasurement()
                step(estimate, spectra)
                benchmark.stopMeasurement()
            }
            blackHole(records.count)
        }
    }

    // MARK: The whole analyzer, one hop in, one record out.
    for bands in [configuration.usableBands, []] {
        let name = bands.isEmpty ? "no bands" : "default bands"
        var settings = configuration
        settings.bands = bands
        let analyzer = Stages.primedAnalyzer(settings)
        let cursor = Cursor()
        var records = 0
        Benchmark("7 StreamingAnalyzer, one hop, \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                let (left, right) = StageScene.hopBlock(cursor.next(first: 1))
                analyzer.process(left: left, right: right) { record in
                    records += 1
                    blackHole(record.azimuth)
                }
            }
            if records != cursor.index { benchmark.error("\(records) records for \(cursor.index) hops") }
        }
    }

    // MARK: Record formatting: one record written, to /dev/null (as RecordWriterAllocationTests).
    for format in [RecordFormat.jsonl, .csv] {
        let analyzer = Stages.primedAnalyzer(configuration)
        // /dev/null is always there to open: the benchmark cannot run without it.
        let writer = RecordWriter(
            format: format, sink: try! LineSink(path: "/dev/null"),
            bandNames: configuration.usableBands.map(\.name), sources: configuration.maxSources > 0)
        let cursor = Cursor()
        var failures = 0
        func hop(measured: Bool, _ benchmark: Benchmark? = nil) {
            let (left, right) = StageScene.hopBlock(cursor.next(first: 1))
            analyzer.process(left: left, right: right) { record in
                if measured { benchmark?.startMeasurement() }
                do { try writer.write(record) } catch { failures += 1 }
                if measured { benchmark?.stopMeasurement() }
            }
        }
        for _ in 0..<50 { hop(measured: false) }  // grows the line buffer
        Benchmark("8 RecordWriter, one \(format) record") { benchmark in
            for _ in benchmark.scaledIterations { hop(measured: true, benchmark) }
            if failures > 0 { benchmark.error("\(failures) writes failed") }
        }
    }
}

/// Helpers shared by the benchmarks.
enum Stages {
    /// Runs the estimator over the scene's first frames, so its spectral averages are warm.
    static func warm(_ estimator: DirectionEstimator) {
        for i in 0..<8 {
            let (left, right) = StageScene.frame(i)
            blackHole(estimator.estimate(left: left, right: right).estimate.fused.lateral)
        }
    }

    /// An analyzer that has taken in the scene's first frame (so every further hop completes a frame).
    static func primedAnalyzer(_ configuration: AnalysisConfiguration) -> StreamingAnalyzer {
        // The configuration is the validated default (or it with no bands): it cannot throw.
        let analyzer = try! StreamingAnalyzer(configuration: configuration)
        let first = StageScene.frame(0)
        analyzer.process(left: first.left, right: first.right) { record in blackHole(record.frame) }
        return analyzer
    }
}
