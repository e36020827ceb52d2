import ArgumentParser
import SoundCompass
#if canImport(Glibc)
import Glibc
#endif

/// `live --serve` and the options that go with it (see Docs/Serve.md).
struct ServeOptions: ParsableArguments {
    @Option(
        name: .customLong("serve"),
        help: ArgumentHelp(
            "Serve the records and a compass page over HTTP at [HOST:]PORT (host 127.0.0.1 unless given; port 0 picks a free one). See Docs/Serve.md.",
            valueName: "[host:]port"))
    var serve: String?

    @Option(
        help: ArgumentHelp(
            "With --serve: every request must carry this token (Authorization: Bearer TOKEN, or ?token=TOKEN in the page's address); SOUNDCOMPASS_TOKEN gives it without showing it to ps.",
            valueName: "token"))
    var token: String?

    @Option(
        name: .customLong("max-clients"), parsing: .unconditional,
        help: ArgumentHelp("With --serve: streaming clients served at once; one more is answered 503 (default 16).", valueName: "n"))
    var maxClients: Int = 16

    @Option(
        name: .customLong("cors"),
        help: ArgumentHelp(
            "With --serve: let pages of this origin (https://example.org, or *) read the endpoints (Access-Control-Allow-Origin); none by default.",
            valueName: "origin"))
    var corsOrigin: String?

    /// The token from `--token` or `SOUNDCOMPASS_TOKEN`.
    var effectiveToken: String? {
        if let token { return token }
        guard let value = getenv("SOUNDCOMPASS_TOKEN") else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    func validate() throws {
        guard let serve else {
            if token != nil { throw ValidationError("--token applies to --serve only") }
            if corsOrigin != nil { throw ValidationError("--cors applies to --serve only") }
            if maxClients != 16 { throw ValidationError("--max-clients applies to --serve only") }
            return
        }
        try Self.checkAddress(serve)
        if !(1...1024).contains(maxClients) { throw ValidationError("--max-clients must be 1…1024, got \(maxClients)") }
        if let token = effectiveToken,
            token.isEmpty || token.count > 256 || !token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        {
            throw ValidationError("--token must be 1…256 printable ASCII characters without spaces")
        }
        if let corsOrigin, corsOrigin.isEmpty || corsOrigin.contains(where: { $0 == "\n" || $0 == "\r" || $0 == " " }) {
            throw ValidationError("--cors takes one origin (https://example.org) or *, got \(corsOrigin)")
        }
    }
}

/// What `live` tells the server of `--serve` (LiveServing, Live+Serve.swift, built with the Serve
/// trait). The analysis thread only hands records over; the server's threads do the rest.
protocol LiveRecordPublisher: AnyObject {
    /// The address to open in a browser.
    var url: String { get }
    /// Served records carry the sound classifier's fields (`label`…, `alert`), as stdout's do:
    /// called once classification is attached to the session.
    func servesLabels()
    /// The records of the next period end at this monotonic time, ns.
    func periodStarted(_ monotonic: UInt64)
    /// Publishes a record to every client; never blocks, never fails.
    func publish(_ record: AnalysisRecord)
    /// After each period: the capture's overruns so far, for `/status`.
    func periodDone(overruns: Int)
    /// Ends every stream cleanly and stops the server (at most about 3 s).
    func stop()
}

#if !Serve
// Built without the Serve trait: `--serve` is refused at validation, so nothing serves.
extension ServeOptions {
    static func checkAddress(_ serve: String) throws {
        throw ValidationError(
            "--serve \(serve): this soundcompass was built without the server (the Serve trait); build it with the default traits: swift build -c release --product soundcompass")
    }

    func startServing(session: AnalysisSession, input: String, paced: Bool) throws -> any LiveRecordPublisher {
        preconditionFailure("--serve is refused by validate() when the Serve trait is off")
    }
}
#endif
