import ArgumentParser
#if SOUNDCOMPASS_SERVE
import SoundCompassServe
#endif
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
        #if SOUNDCOMPASS_SERVE
        guard ServeAddress(parsing: serve) != nil else {
            throw ValidationError("--serve takes PORT, HOST:PORT or [IPv6]:PORT with a port 0…65535, got \(serve)")
        }
        #else
        throw ValidationError(
            "--serve \(serve): this soundcompass was built without the server (SOUNDCOMPASS_SERVE=0); build it without that setting")
        #endif
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
