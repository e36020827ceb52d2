import Foundation
import SoundCompassEngine
import TestSignals

/// Runs a rendered signal through a fresh analyzer and collects every record.
public func analyze(
    _ signal: StereoSignal, configuration: AnalysisConfiguration? = nil, orientation: YawTimeline? = nil
) throws -> [AnalysisRecord] {
    let config = configuration ?? AnalysisConfiguration(sampleRate: signal.sampleRate)
    return try StreamingAnalyzer(configuration: config, orientation: orientation)
        .process(left: signal.left, right: signal.right)
}

/// How much longer a run may take in this test process: 1, or 5 under a sanitizer
/// (`SOUNDCOMPASS_SANITIZER`, set by scripts/sanitize), which slows every process several-fold.
/// Multiplies the time bounds of the hang guards (an end "within 2 s"), nothing else.
public let timeBoundScale: Double = underSanitizer ? 5 : 1

/// How much more resident memory a run may use in this test process: 1, or 3 under a sanitizer.
/// AddressSanitizer's own bookkeeping (shadow memory, redzones around every block, the
/// quarantine of freed blocks, the stack depot of every allocation's call stack) is most of
/// such a process: refusing a `/dev/zero` profile peaks at 23 MB natively and at 111 MB under
/// ASan, 38 MB of it the stack depot (measured with `malloc_context_size=0`); an analysis at the
/// largest frame at 73 MB natively and 175 MB. Gigabyte allocations stay caught there by ASan's
/// `max_allocation_size_mb=1000`. Multiplies the memory bounds of the bad-input tests, nothing else.
public let memoryBoundScale: Int = underSanitizer ? 3 : 1

/// True when this test process runs under a sanitizer (`SOUNDCOMPASS_SANITIZER`, set by
/// scripts/sanitize): the few real-time tests, whose scores depend on keeping pace with a
/// wall clock, then check what the sanitizer is there for (the run ends cleanly, every record
/// is whole) rather than the pace.
public let underSanitizer = ProcessInfo.processInfo.environment["SOUNDCOMPASS_SANITIZER"] != nil

/// Median of a non-empty list.
public func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "median of nothing")
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Value at fraction `q` (0…1) of the sorted list.
public func quantile(_ values: [Double], _ q: Double) -> Double {
    precondition(!values.isEmpty)
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
}

/// A still source rendered with exact fractional delays.
public func stillSource(
    azimuth: Double, microphones: Microphones = .spaced(spacing: 0.15), sampleRate: Double = 48000,
    duration: Double = 0.6, signal: SourceSignal = .whiteNoise, snr: Double? = nil, seed: UInt64 = 7
) -> StereoSignal {
    Scene(
        sampleRate: sampleRate, duration: duration, microphones: microphones,
        sources: [Source(signal, azimuth: azimuth, levelDBFS: -20, seed: seed)],
        noise: snr.map { SensorNoise(snrDecibels: $0, seed: seed &+ 1000) }, fade: 0
    ).render()
}

/// Two channels of independent white noise (no common source at all).
public func uncorrelatedNoise(sampleRate: Double = 48000, duration: Double = 3, seed: UInt64 = 5) -> StereoSignal {
    let n = Int(sampleRate * duration)
    let l = Generators.whiteNoise(count: n, rms: 0.1, seed: seed)
    let r = Generators.whiteNoise(count: n, rms: 0.1, seed: seed &+ 1)
    return StereoSignal(left: l.map { Float($0) }, right: r.map { Float($0) }, sampleRate: sampleRate)
}

// MARK: - Tests that need a tool

/// True when the tests run on CI (`CI=true`, as `.ci/run` and CI services set it). CI installs
/// every tool a test needs (`scripts/install-deps`), so there a missing tool is a failure.
public let onCI: Bool = {
    let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
    return ["true", "1", "yes"].contains(value)
}()

/// Whether to run tests that need something a machine may lack (`script`, `nm`, glibc's
/// allocator): when it is `available`, and always on CI, where such tests must fail (through a
/// `#require` of the same condition) rather than skip and pass empty.
/// - Parameter available: the tool or facility is there.
/// - Returns: `available || onCI`.
public func availableOrOnCI(_ available: Bool) -> Bool { available || onCI }

/// The value of an environment variable of the test process, `nil` when it is not set.
/// - Parameter name: the variable.
public func environmentVariable(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name]
}
