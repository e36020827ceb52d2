import CMallocCounter
import SoundCompassEngine
import TestSignals
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The per-frame path allocates nothing: heap allocations counted (on this thread, by the
/// malloc replacement in `CMallocCounter`) around `StreamingAnalyzer.process(left:right:emit:)`
/// over hundreds of frames, after a warm-up call.
///
/// An unoptimised build (`swift test`'s default) calls the standard library's unspecialised
/// generic accessors (`for x in array`), whose coroutine frames libswiftCore mallocs itself; the
/// counter keeps those apart (`swiftRuntimeInternal`), and only an optimised build, which inlines
/// the accessors, is held to zero for them too.
@Suite("Allocations of the per-frame path", .enabled(if: availableOrOnCI(malloc_counter_available() == 1), "needs glibc's allocator"))
struct AllocationTests {
    /// On CI the suite runs even without the counter, and fails here.
    init() throws { try AllocationTests.requireCounter() }

    /// One analyzer set-up to measure.
    struct Setup: Sendable, CustomTestStringConvertible {
        var name: String
        var microphones: Microphones
        var array: ArrayModel
        var bands: [BandSpec] = BandSpec.defaults
        var withIMU = false
        var testDescription: String { name }
    }

    static let setups: [Setup] = [
        Setup(name: "spaced pair, default bands", microphones: .spaced(spacing: 0.15), array: ArrayModel()),
        Setup(name: "spaced pair, no bands (--bands none)", microphones: .spaced(spacing: 0.15), array: ArrayModel(), bands: []),
        Setup(name: "binaural", microphones: .binaural(headRadius: 0.0875, ildAt90: 10), array: ArrayModel(kind: .binaural)),
        Setup(name: "binaural with a measured head's tables (--hrtf)", microphones: .binaural(headRadius: 0.0875, ildAt90: 10),
              array: measuredHeadArray),
        Setup(name: "coincident", microphones: .coincident(halfAngle: 45), array: ArrayModel(kind: .coincident)),
        Setup(name: "spaced pair with an IMU yaw timeline", microphones: .spaced(spacing: 0.15), array: ArrayModel(), withIMU: true),
    ]

    static let sampleRate = 48000.0

    /// A binaural model with a measured head's tables (``MeasuredHead``), built from synthetic
    /// impulse responses (a delayed, scaled impulse per ear, every 10°): the `--hrtf` path.
    static var measuredHeadArray: ArrayModel {
        var array = ArrayModel(kind: .binaural)
        let configuration = AnalysisConfiguration(sampleRate: sampleRate, array: array)
        let responses = stride(from: -90.0, through: 90, by: 10).map { azimuth in
            let itd = 0.00075 * azimuth / 90 * sampleRate  // samples; > 0: the right ear first
            var left = [Float](repeating: 0, count: 128), right = left
            left[Int((40 + itd / 2).rounded())] = Float(1 - 0.3 * azimuth / 90)
            right[Int((40 - itd / 2).rounded())] = Float(1 + 0.3 * azimuth / 90)
            return HeadImpulseResponse(azimuthDegrees: azimuth, left: left, right: right)
        }
        array.measuredHead = MeasuredHead.measure(name: "synthetic", impulseResponses: responses, configuration: configuration)
        return array
    }
    /// Seconds of the scene fed before counting (the warm-up call).
    static let warmUp = 1.0

    /// Speech, a pause with only sensor noise, then white noise from the other side: active,
    /// quiet and changing frames all pass through the counted region.
    static func scene(_ microphones: Microphones) -> StereoSignal {
        Scene(
            sampleRate: sampleRate, duration: 6, microphones: microphones,
            sources: [
                Source(.speech, azimuth: -40, start: 0.2, end: 3, seed: 3),
                Source(.whiteNoise, azimuth: 55, start: 3.6, seed: 4),
            ],
            noise: SensorNoise(snrDecibels: 25, seed: 5)
        ).render()
    }

    /// A listener turning ±30° every 4 s, read at 100 Hz, over the whole scene.
    static func turningTimeline(duration: Double) -> YawTimeline {
        let timeline = YawTimeline(capacity: Int(duration * 100) + 1)
        for i in 0...Int(duration * 100) {
            let t = Double(i) / 100
            timeline.append(time: t, yaw: 30 * sin(2 * Double.pi * t / 4))
        }
        return timeline
    }

    /// Fails the calling test when this build cannot count allocations (not glibc): run on CI
    /// (see ``availableOrOnCI(_:)``), where the count must be there.
    static func requireCounter(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(malloc_counter_available() == 1, "the malloc counter needs glibc's allocator", sourceLocation: sourceLocation)
    }

    /// Heap allocations made on this thread while `body` runs.
    static func allocations(_ body: () -> Void) -> malloc_counts {
        malloc_counter_start()
        body()
        return malloc_counter_stop()
    }

    /// True in an optimised build of the tests (and so of the engine: `swift build -c` applies to all).
    static var optimized: Bool {
        #if DEBUG
        false
        #else
        true
        #endif
    }

    @Test("process(left:right:emit:) allocates nothing per frame", arguments: setups)
    func perFramePath(setup: Setup) throws {
        let signal = Self.scene(setup.microphones)
        let configuration = AnalysisConfiguration(sampleRate: Self.sampleRate, array: setup.array, bands: setup.bands)
        let orientation = setup.withIMU ? Self.turningTimeline(duration: 6) : nil
        let analyzer = try StreamingAnalyzer(configuration: configuration, orientation: orientation)
        let left = signal.left, right = signal.right
        let warmUpEnd = Int(Self.warmUp * Self.sampleRate)
        var frames = 0, active = 0, withYaw = 0, bandsSeen = 0
        analyzer.process(left: left.span.extracting(0..<warmUpEnd), right: right.span.extracting(0..<warmUpEnd)) { _ in }

        // The rest in blocks of 512 samples, as a capture loop delivers them.
        let block = 512
        let count = Self.allocations {
            let l = left.span, r = right.span
            var start = warmUpEnd
            while start < l.count {
                let end = min(l.count, start + block)
                analyzer.process(left: l.extracting(start..<end), right: r.extracting(start..<end)) { record in
                    frames += 1
                    if record.active { active += 1 }
                    if record.yaw != nil { withYaw += 1 }
                    bandsSeen += record.bands.count
                }
                start = end
            }
        }
        print("\(setup.name): \(count.allocations) allocations over \(frames) frames (\(active) active); "
              + "\(count.swiftRuntimeInternal) runtime-internal (coroutine frames)\(Self.optimized ? "" : ", unoptimised build")")
        // The counted region really analysed the scene: every frame after the warm-up, active
        // ones among them, with bands and yaw where asked for.
        let expectedFrames = (signal.left.count - configuration.frameLength) / configuration.hopLength + 1
            - ((warmUpEnd - configuration.frameLength) / configuration.hopLength + 1)
        #expect(frames == expectedFrames)
        #expect(active > frames / 2, "\(active) of \(frames) frames active")
        #expect(bandsSeen == frames * configuration.usableBands.count)
        if setup.withIMU { #expect(withYaw == frames) }
        #expect(count.allocations == 0, "\(count.allocations) heap allocations in \(frames) frames")
        if Self.optimized {
            #expect(count.swiftRuntimeInternal == 0, "\(count.swiftRuntimeInternal) coroutine frames in an optimised build")
        }
    }

    @Test("the counter sees allocations in the counted region (so a zero above means something)")
    func counterWorks() {
        var sink = 0
        let count = Self.allocations {
            let array = [Int](unsafeUninitializedCapacity: 1000) { buffer, initialized in
                for i in 0..<1000 { buffer[i] = i }
                initialized = 1000
            }
            sink = array.count
        }
        #expect(sink == 1000)
        #expect(count.allocations >= 1, "an array of 1000 elements was allocated")
        // …and only there: nothing is counted once the region has ended.
        let afterwards = Self.allocations {}
        #expect(afterwards.allocations == 0 && afterwards.swiftRuntimeInternal == 0)
    }

    @Test("an analyzer fed arrays allocates: the counter sees the engine's own allocations")
    func counterSeesEngine() throws {
        let signal = Self.scene(.spaced(spacing: 0.15))
        let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: Self.sampleRate))
        var records: [AnalysisRecord] = []
        let count = Self.allocations {
            // The array form returns a fresh array of records (and copies each record's bands).
            records = analyzer.process(left: signal.left, right: signal.right)
        }
        #expect(records.count > 200)
        #expect(count.allocations >= Int64(records.count), "\(count.allocations) allocations for \(records.count) records")
    }
}
