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

    /// The token from `--token` or `SOUNDCOMPASS_TOKEN` (set but empty is given, and refused by
    /// ``validate()`` as `--token ''` is: an empty variable must not silently turn the token off).
    var effectiveToken: String? {
        if let token { return token }
        guard let value = getenv("SOUNDCOMPASS_TOKEN") else { return nil }
        return String(cString: value)
    }

    /// Whether `text` is an origin `--cors` takes: `*`, or `http://HOST[:PORT]` or
    /// `https://HOST[:PORT]` exactly as a browser sends it in `Origin` (lower-case scheme, a host
    /// name or an IPv4 or bracketed IPv6 address, a port 1…65535, no path, no trailing slash).
    /// Not `null` (which any sandboxed frame or `data:` page sends), not a list (browsers take
    /// one origin), no control characters.
    static func isOrigin(_ text: String) -> Bool {
        if text == "*" { return true }
        let rest: Substring
        if text.hasPrefix("https://") { rest = text.dropFirst(8) } else if text.hasPrefix("http://") { rest = text.dropFirst(7) } else { return false }
        var host = rest, port: Substring? = nil
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return false }
            host = rest[rest.startIndex...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                port = rest[rest.index(after: colon)...]
            }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard !host.isEmpty, host.count <= 253, labels.allSatisfy({ label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
            }) else { return false }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(port), (1...65535).contains(number) else { return false }
        }
        return true
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
            throw ValidationError(
                (token == self.token ? "--token" : "SOUNDCOMPASS_TOKEN") + " must be 1…256 printable ASCII characters without spaces"
                    + (token.isEmpty ? " (it is empty; unset it for no token)" : ""))
        }
        if let corsOrigin, !Self.isOrigin(corsOrigin) {
            throw ValidationError(
                "--cors takes one origin as a browser sends it (https://example.org, http://localhost:8080) or *, got \"\(MessageText.escaped(corsOrigin))\"")
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
