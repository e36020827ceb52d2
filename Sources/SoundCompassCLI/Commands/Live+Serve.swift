// The glue between `live` and the server of `--serve`, wholly under the Serve trait: without it,
// ServeOptions.swift answers `--serve` with "not built in" and nothing here exists.
#if Serve
import ArgumentParser
import SoundCompass
import SoundCompassServe
#if canImport(Glibc)
import Glibc
#endif

extension ServeOptions {
    /// Checks a `--serve` address (`PORT`, `HOST:PORT`, `[IPv6]:PORT`).
    /// - Throws: `ValidationError` naming the address.
    static func checkAddress(_ serve: String) throws {
        guard ServeAddress(parsing: serve) != nil else {
            throw ValidationError("--serve takes PORT, HOST:PORT or [IPv6]:PORT with a port 0…65535, got \(serve)")
        }
    }

    /// Starts serving the records of `session` (the options validated, `serve` given).
    /// - Parameters:
    ///   - session: the live session.
    ///   - input: the device or input, for `/status`.
    ///   - paced: the recording is paced to real time.
    /// - Throws: ``CLIFailure`` (exit 69) when the address cannot be listened on.
    func startServing(session: AnalysisSession, input: String, paced: Bool) throws -> any LiveRecordPublisher {
        try LiveServing(options: self, session: session, input: input, paced: paced)
    }
}

/// `live --serve`: the records of the session served over HTTP besides stdout. The analysis
/// thread only formats each record once and publishes it to a lock-protected ring
/// (``publish(_:)``); the server's own threads take from there, so a slow, stalled or failing
/// client can neither delay the analysis nor lose a stdout record.
final class LiveServing: LiveRecordPublisher {
    private let server: RecordServer
    private let formatter: ServedRecordFormatter
    /// The address to open in a browser.
    let url: String

    /// Starts listening.
    /// - Parameters:
    ///   - options: the `--serve` options (validated).
    ///   - session: the live session.
    ///   - input: the device or input, for `/status`.
    ///   - paced: the recording is paced to real time.
    /// - Throws: ``CLIFailure`` (exit 69) when the address cannot be listened on.
    init(options: ServeOptions, session: AnalysisSession, input: String, paced: Bool) throws {
        let address = ServeAddress(parsing: options.serve ?? "0")!
        let configuration = session.configuration
        let framesPerSecond = configuration.sampleRate / Double(configuration.hopLength)
        // The replay ring holds the last 5 s; a client may have 1 s pending before its oldest
        // records are skipped; a write pending 2 s (the client stopped reading) drops it.
        let limits = RecordBroadcast.Limits(
            maximumClients: options.maxClients, replayRecords: Int((5 * framesPerSecond).rounded(.up)),
            queueRecords: max(8, Int(framesPerSecond.rounded(.up))), stallSeconds: 2, heartbeatSeconds: 5)
        let settings = ServeSettings(address: address, token: options.effectiveToken, corsOrigin: options.corsOrigin, limits: limits)
        let described = ServedSession(
            input: input, sampleRate: configuration.sampleRate, frameLength: configuration.frameLength,
            hopLength: configuration.hopLength, array: AnalysisSession.describe(configuration.array),
            bandNames: session.bandNames, paced: paced)
        // The server's threads are started with SIGINT and SIGTERM blocked, so that Ctrl-C
        // reaches the analysis thread (and interrupts a blocked read) as without --serve.
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        do {
            server = try RecordServer.start(settings: settings, session: described)
        } catch {
            throw CLIFailure(String(describing: error), status: .unavailable)
        }
        formatter = ServedRecordFormatter(
            broadcast: server.broadcast, bandNames: session.bandNames, orientation: session.hasOrientation,
            sources: session.tracksSources)
        url = "http://\(server.boundAddress)/"
        if !address.isLoopback && settings.token == nil {
            Diagnostics.warning(
                "--serve \(address): other machines can connect and read the records without a token; give --token (or SOUNDCOMPASS_TOKEN), or serve on 127.0.0.1 behind a reverse proxy (Docs/Serve.md)")
        }
    }

    /// Served records carry the sound classifier's fields (`label`…, `alert`), as stdout's do:
    /// set once classification is attached to the session.
    func servesLabels() {
        formatter.labels = true
    }

    /// The records of the next period end at this monotonic time (ns).
    func periodStarted(_ monotonic: UInt64) {
        formatter.periodStarted(monotonic: monotonic)
    }

    /// Publishes a record to every client; never blocks, never fails.
    func publish(_ record: AnalysisRecord) {
        formatter.publish(record)
    }

    /// After each period: the capture's overruns, for `/status`.
    func periodDone(overruns: Int) {
        server.broadcast.setOverruns(overruns)
    }

    /// Ends every stream cleanly and stops the server (at most about 3 s).
    func stop() {
        server.stop()
    }
}
#endif
