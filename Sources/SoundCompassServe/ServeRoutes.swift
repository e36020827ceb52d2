// Built with the Serve trait only (Package.swift).
#if Serve
import HTTPTypes
import Hummingbird
import NIOCore
import SoundCompassEngine
import SoundCompassIO

/// The endpoints: `/` (the page), `/events` (Server-Sent Events), `/records` (NDJSON) and
/// `/status` (JSON).
struct ServeRoutes: Sendable {
    let broadcast: RecordBroadcast
    let settings: ServeSettings
    let session: ServedSession
    let channels: ChannelRegistry
    let connections: ConnectionRegistry
    let memory: MemoryReturn
    let startedAt: UInt64

    func register(on router: Router<ServeContext>) {
        router.get("/") { request, _ in self.page(request) }
        router.get("/index.html") { request, _ in self.page(request) }
        router.get("/events") { request, context in self.stream(.events, request, context) }
        router.get("/records") { request, context in self.stream(.records, request, context) }
        router.get("/status") { request, _ in self.status(request) }
    }

    // MARK: - Security

    /// True when no token is set, or the request carries it (`Authorization: Bearer T` or
    /// `?token=T`), compared in constant time.
    private func authorized(_ request: Request) -> Bool {
        guard let token = settings.token else { return true }
        // The scheme's name is case-insensitive (RFC 7235): "Bearer", "bearer", "BEARER".
        if let header = request.headers[.authorization], header.utf8.count > 7, header.prefix(7).lowercased() == "bearer ",
            Self.equalInConstantTime(String(header.dropFirst(7).drop { $0 == " " }), token)
        {
            return true
        }
        if let given = request.uri.queryParameters.get("token"), Self.equalInConstantTime(given, token) { return true }
        return false
    }

    private static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }

    private func unauthorized() -> Response {
        broadcast.countUnauthorized()
        return Response(
            status: .unauthorized,
            headers: [.wwwAuthenticate: "Bearer realm=\"soundcompass\"", .contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "401 Unauthorized: give the token (Authorization: Bearer TOKEN, or ?token=TOKEN)\n")))
    }

    /// The endpoints' own headers (`Cache-Control` and `X-Content-Type-Options`, which every
    /// response carries, are set by ``ServeGuards``).
    private static let commonHeaders: HTTPFields = [.init("Referrer-Policy")!: "no-referrer"]

    // MARK: - Endpoints

    private func page(_ request: Request) -> Response {
        guard authorized(request) else { return unauthorized() }
        var headers = Self.commonHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.init("Content-Security-Policy")!] =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: CompassPage.html)))
    }

    private func status(_ request: Request) -> Response {
        guard authorized(request) else { return unauthorized() }
        let now = MonotonicClock.now()
        let json = ServeStatus.json(
            session: session, figures: broadcast.figures(now: now), limit: settings.limits.maximumClients,
            uptimeSeconds: Double(MonotonicClock.elapsed(from: startedAt, to: now)) * 1e-9,
            connections: (connections.count, connections.cap, connections.evicted))
        var headers = Self.commonHeaders
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    private func stream(_ kind: RecordBroadcast.Stream, _ request: Request, _ context: ServeContext) -> Response {
        guard authorized(request) else { return unauthorized() }
        let lastEventID = kind == .events
            ? request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { Int($0.filter { $0 != " " }) } : nil
        let address = context.channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
        guard let id = broadcast.register(stream: kind, lastEventID: lastEventID, address: address, now: MonotonicClock.now()) else {
            return Response(
                status: .serviceUnavailable,
                headers: [.retryAfter: "5", .contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(
                    string: "503 Service Unavailable: \(settings.limits.maximumClients) streaming clients are connected (the limit; --max-clients)\n")))
        }
        channels.add(id, context.channel)
        var headers = Self.commonHeaders
        headers[.contentType] = kind == .events ? "text/event-stream; charset=utf-8" : "application/x-ndjson"
        // A reverse proxy (nginx) would otherwise hold the stream back in its buffer.
        headers[.init("X-Accel-Buffering")!] = "no"
        let broadcast = self.broadcast, channels = self.channels, memory = self.memory, eventLoop = context.channel.eventLoop
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer {
                channels.remove(id)
                // The last streaming client gone: the memory the streams took goes back to the
                // system once the connections are torn down (MemoryReturn).
                if broadcast.unregister(client: id) == 0 { memory.lastClientLeft(now: MonotonicClock.now()) }
            }
            // The headers and a first line at once: EventSource opens, curl shows the stream.
            if kind == .events { try await writer.write(ByteBuffer(string: "retry: 1000\n: soundcompass\n\n")) }
            var out = ByteBuffer()
            var frameDigits: [UInt8] = []
            while true {
                out.clear()
                let take = broadcast.take(client: id, now: MonotonicClock.now()) { frame, bytes in
                    if kind == .events {
                        frameDigits.removeAll(keepingCapacity: true)
                        NumberFormatting.appendInteger(UInt64(frame), to: &frameDigits)
                        out.writeString("id: ")
                        out.writeBytes(frameDigits)
                        out.writeString("\ndata: ")
                        out.writeBytes(bytes)
                        out.writeString("\n\n")
                    } else {
                        out.writeBytes(bytes)
                        out.writeString("\n")
                    }
                }
                switch take {
                case .closed:
                    try await writer.finish(nil)
                    return
                case .wait:
                    await broadcast.wait(client: id)
                    continue
                case .heartbeat:
                    // An SSE comment; NDJSON has no comment, so an idle /records stays silent.
                    guard kind == .events else {
                        broadcast.wrote(client: id, now: MonotonicClock.now())
                        continue
                    }
                    out.writeString(": heartbeat\n\n")
                case .records:
                    break
                }
                try await writer.write(out)
                // Wait until the event loop has handed the write to the channel: the next write
                // then waits while the channel is not writable, so a client that does not read
                // holds about one write in the server, not all that was taken meanwhile (a
                // replay is many writes; #47 item 8).
                try await eventLoop.submit {}.get()
                broadcast.wrote(client: id, now: MonotonicClock.now())
            }
        })
    }
}
#endif
