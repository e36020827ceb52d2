import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a ``CaptureSource`` through a ``StreamingAnalyzer`` period by period, for as long as
/// asked, and measures the processing latency of every period.
///
/// Latency is measured from the moment a period's read returned (``CaptureSource/lastReadTime``)
/// to the moment its records have been handed on and `periodDone` has returned, so it covers
/// the analysis and the writing of the records, but not the wait for the audio itself.
package final class LiveAnalysis {
    /// Why a run ended.
    package enum Ending: Sendable, Equatable {
        /// The requested duration of stream time was reached.
        case duration
        /// The source ended (a pipe closed, a replayed file ran out).
        case endOfStream
        /// `shouldStop` returned true (Ctrl-C).
        case stopped
    }

    /// Figures of a run.
    package struct Summary: Sendable {
        /// Stream time analysed: samples captured over the sample rate, seconds.
        package var streamSeconds: Double
        /// Records (analysis frames) produced.
        package var frames: Int
        /// Periods read.
        package var periods: Int
        /// Overruns recovered from.
        package var overruns: Int
        /// Suspends recovered from.
        package var suspends: Int
        /// Processing latency per period.
        package var latency: LatencyHistogram
        /// Why the run ended.
        package var ending: Ending
    }

    /// The source read.
    package let source: any CaptureSource
    /// The analyzer fed.
    package let analyzer: StreamingAnalyzer
    /// Stream time after which the run ends, in samples; `nil` for no limit.
    package let sampleLimit: Int?
    /// Hold each period back until its stream time has passed on the wall clock, so a source
    /// that delivers faster than real time (a replayed file) plays at real speed: a period is
    /// analysed once the moment its last sample would have been captured has come, as from a
    /// device.
    package let realTime: Bool

    private let left: UnsafeMutableBufferPointer<Float>
    private let right: UnsafeMutableBufferPointer<Float>

    /// - Parameters:
    ///   - source: the capture; its sample rate must be the analyzer's.
    ///   - analyzer: a fresh analyzer.
    ///   - duration: stream time to analyse, seconds (`nil`: until the source ends or a stop).
    ///   - realTime: pace a faster-than-real-time source to real time (see ``realTime``).
    /// Labels every record (the sound classifier), fed each period before the analyzer.
    package var labeler: (any RecordLabeler)?

    package init(source: any CaptureSource, analyzer: StreamingAnalyzer, duration: Double? = nil, realTime: Bool = false) {
        self.realTime = realTime
        precondition(source.sampleRate == analyzer.configuration.sampleRate, "source and analyzer rates differ")
        self.source = source
        self.analyzer = analyzer
        self.sampleLimit = duration.flatMap { sampleCount(seconds: $0, sampleRate: source.sampleRate) }
        left = .allocate(capacity: source.periodFrames)
        right = .allocate(capacity: source.periodFrames)
        left.initialize(repeating: 0)
        right.initialize(repeating: 0)
    }

    deinit {
        left.deallocate()
        right.deallocate()
    }

    /// Reads and analyses until the duration is reached, the source ends or `shouldStop`
    /// returns true (it is asked before every read).
    /// - Parameters:
    ///   - shouldStop: polled once per period.
    ///   - periodRead: called after each read, before its analysis, with the stream time it
    ///     reaches, seconds (feed the analyzer's orientation here).
    ///   - emit: called with each record, in order.
    ///   - periodDone: called after the records of each period (flush a display here).
    ///   - periodStarted: called before each period's analysis with the monotonic time
    ///     (``MonotonicClock``, ns) at which the period became available: its read's return, or
    ///     with ``realTime`` the moment its last sample was due, if later. The records of the
    ///     period end at that moment (with the default period, one hop, one record each).
    /// - Returns: the run's figures.
    /// - Throws: what the source, `emit` or `periodDone` throw.
    package func run(
        shouldStop: () -> Bool = { false }, periodRead: (Double) throws -> Void = { _ in },
        emit: (AnalysisRecord) throws -> Void, periodDone: () throws -> Void = {},
        periodStarted: (UInt64) -> Void = { _ in }
    ) throws -> Summary {
        var summary = Summary(
            streamSeconds: 0, frames: 0, periods: 0, overruns: 0, suspends: 0, latency: LatencyHistogram(),
            ending: .endOfStream)
        var samples = 0
        let start = MonotonicClock.now()
        while true {
            if let limit = sampleLimit, samples >= limit { summary.ending = .duration; break }
            if shouldStop() { summary.ending = .stopped; break }
            var n = try source.read(into: left, right, frames: left.count)
            if n == 0 {
                summary.ending = shouldStop() ? .stopped : .endOfStream
                break
            }
            if let limit = sampleLimit { n = min(n, limit - samples) }
            samples += n
            summary.periods += 1
            var periodStart = source.lastReadTime
            if realTime {
                // Held until its last sample is due, so records come when a device's would.
                Self.sleep(until: start &+ UInt64(Double(samples) / source.sampleRate * 1e9))
                periodStart = max(periodStart, MonotonicClock.now())
            }
            periodStarted(periodStart)
            try periodRead(Double(samples) / source.sampleRate)
            let l = UnsafeBufferPointer(rebasing: left[0..<n]), r = UnsafeBufferPointer(rebasing: right[0..<n])
            try analyzer.process(left: l, right: r, labeler: labeler) { record in
                summary.frames += 1
                try emit(record)
            }
            try periodDone()
            let elapsed = MonotonicClock.now() &- periodStart
            summary.latency.record(seconds: Double(elapsed) * 1e-9)
            summary.streamSeconds = Double(samples) / source.sampleRate
        }
        summary.overruns = source.overrunCount
        summary.suspends = source.suspendCount
        return summary
    }

    private static func sleep(until deadline: UInt64) {
        let now = MonotonicClock.now()
        guard deadline > now else { return }
        let wait = deadline - now
        var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
        _ = nanosleep(&request, nil)
    }
}
