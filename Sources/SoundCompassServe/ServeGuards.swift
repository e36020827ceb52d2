// Built with the Serve trait only (Package.swift).
#if Serve
import HTTPTypes
import Hummingbird
import NIOCore

/// What every request meets before its endpoint, and what every response carries after it
/// (Docs/Serve.md, "Security"):
/// - **Host names** (DNS rebinding): bound to loopback without a token, only loopback host
///   names are answered (`localhost`, `127.0.0.0/8`, `[::1]`, `[::ffff:127.…]`, any port); any
///   other `Host`, or none, gets 421. A page on another site that rebinds its name to 127.0.0.1
///   sends its own name as `Host`, so it cannot read the records.
/// - **Methods**: the endpoints answer `GET` (and `OPTIONS`, the CORS preflight, when `--cors`
///   is set); any other method on them gets 405 with `Allow`.
/// - **Headers**: every response, errors and 404s included, carries `Cache-Control: no-store`
///   and `X-Content-Type-Options: nosniff`.
struct ServeGuards<Context: RequestContext>: RouterMiddleware {
    /// Refuse host names that are not loopback's.
    let loopbackHostsOnly: Bool
    /// `--cors` is set: `OPTIONS` is the CORS preflight (answered by ``CORSHeaders``).
    let preflight: Bool

    /// The paths the server answers.
    static var endpoints: Set<String> { ["/", "/index.html", "/events", "/records", "/status"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if loopbackHostsOnly && !Self.isLoopback(authority: request.head.authority) {
            response = Self.plain(
                .misdirectedRequest,
                "421 Misdirected Request: without a token this server answers only to loopback host names (localhost, 127.0.0.1, [::1]); see Docs/Serve.md\n")
        } else if Self.endpoints.contains(request.uri.path), request.method != .get, !(preflight && request.method == .options) {
            response = Self.plain(.methodNotAllowed, "405 Method Not Allowed: \(request.uri.path) answers GET\n")
            response.headers[.allow] = preflight ? "GET, OPTIONS" : "GET"
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError {
                response = Self.plain(error.status, "\(error.status.code) \(error.status.reasonPhrase)\n")
            }
        }
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return response
    }

    /// A short plain-text response.
    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Whether a request's authority (`Host`) names this machine's loopback
    /// (``ServeAddress/isLoopbackHost(_:)``), with any port or none. nil (no `Host`) is not.
    static func isLoopback(authority: String?) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }) else { return false }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            host = host[..<colon]
        }
        return ServeAddress.isLoopbackHost(host)
    }
}
#endif
