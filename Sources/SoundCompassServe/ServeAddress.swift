// Built with the Serve trait only (Package.swift).
#if Serve
/// Where `live --serve` listens: `PORT`, `HOST:PORT` or `[IPv6]:PORT`.
public struct ServeAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address to bind: an IPv4 or IPv6 literal or a host name (default `127.0.0.1`).
    public var host: String
    /// The TCP port, 0…65535; 0 asks the system for a free one (tests).
    public var port: Int

    /// Loopback is the default: only programs on this machine can connect.
    public static let defaultHost = "127.0.0.1"

    /// - Parameters:
    ///   - host: address to bind.
    ///   - port: TCP port, 0…65535.
    public init(host: String = ServeAddress.defaultHost, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `PORT`, `HOST:PORT` or `[IPv6]:PORT`; `nil` when it is none of those or the port is
    /// outside 0…65535.
    public init?(parsing text: String) {
        var host = Self.defaultHost
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            // A bare IPv6 address needs brackets to carry a port.
            guard !host.contains(":") else { return nil }
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
            portText.count <= 5, let port = Int(portText), (0...65535).contains(port)
        else { return nil }
        self.init(host: host, port: port)
    }

    /// True for addresses only this machine can reach: `127.0.0.0/8`, `::1`, `localhost`, and
    /// IPv4's loopback mapped into IPv6 (`::ffff:127.0.0.1`).
    public var isLoopback: Bool { Self.isLoopbackHost(Substring(host)) }

    /// Whether `host` (no brackets, no port) names this machine's loopback: `localhost` (or
    /// `localhost.`), an IPv4 address in 127.0.0.0/8, `::1`, or `::ffff:` and such an IPv4
    /// address; case-insensitive. The one rule for the address bound (``isLoopback``) and for
    /// the `Host` a request names (`ServeGuards`).
    static func isLoopbackHost(_ host: Substring) -> Bool {
        var host = Substring(host.lowercased())
        if host.hasSuffix(".") { host = host.dropLast() }
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        if host.hasPrefix("::ffff:") { host = host.dropFirst(7) }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            return false
        }
        let values = parts.compactMap { Int($0) }
        return values.count == 4 && values.allSatisfy { $0 <= 255 } && values[0] == 127
    }

    /// `HOST:PORT`, brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
#endif
