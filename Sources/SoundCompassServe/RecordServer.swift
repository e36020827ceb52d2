// Built with the Serve trait only (Package.swift).
#if Serve
import Dispatch
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SoundCompassEngine
import SoundCompassIO

/// Why the server could not start.
package struct ServeError: Error, CustomStringConvertible {
    /// One line naming the address and the reason.
    package var description: String
}

/// The HTTP side of `live --serve`: the page, `/events`, `/records` and `/status`, on
/// Hummingbird's event loops, fed by a ``RecordBroadcast`` that the analysis thread publishes to.
///
/// ``start(settings:session:)`` returns once the socket listens (or throws); ``stop()`` ends every
/// stream cleanly (the chunked body's end) and shuts the server down. Nothing here runs on the
/// analysis thread, and nothing is written to disk.
package final class RecordServer: Sendable {
    /// The records' broadcast: publish to it from the analysis.
    package let broadcast: RecordBroadcast
    /// The address listened on, with the port the system chose for port 0.
    package let boundAddress: ServeAddress

    private let channels: ChannelRegistry
    private let group: ServiceGroup
    private let finished: DispatchSemaphore
    private let monitor: Task<Void, Never>

    private init(
        broadcast: RecordBroadcast, boundAddress: ServeAddress, channels: ChannelRegistry, group: ServiceGroup,
        finished: DispatchSemaphore, monitor: Task<Void, Never>
    ) {
        self.broadcast = broadcast
        self.boundAddress = boundAddress
        self.channels = channels
        self.group = group
        self.finished = finished
        self.monitor = monitor
    }

    /// Starts listening and serving; returns once the socket is bound.
    /// - Parameters:
    ///   - settings: address, token, CORS origin, limits.
    ///   - session: what `/status` says of the session.
    /// - Throws: ``ServeError`` when the address cannot be listened on (in use, not this
    ///   machine's, a privileged port).
    package static func start(settings: ServeSettings, session: ServedSession) throws -> RecordServer {
        let broadcast = RecordBroadcast(limits: settings.limits)
        let channels = ChannelRegistry()
        var logger = Logger(label: "soundcompass.serve")
        logger.logLevel = .critical
        let connections = ConnectionRegistry(cap: settings.limits.maximumConnections)
        let memory = MemoryReturn()
        let routes = ServeRoutes(
            broadcast: broadcast, settings: settings, session: session, channels: channels, connections: connections,
            memory: memory, startedAt: MonotonicClock.now())
        let router = Router(context: ServeContext.self)
        router.add(middleware: ServeGuards(
            loopbackHostsOnly: settings.address.isLoopback && settings.token == nil, preflight: settings.corsOrigin != nil))
        if let origin = settings.corsOrigin { router.add(middleware: CORSHeaders(origin: origin)) }
        routes.register(on: router)

        let bound = Locked<Int?>(nil)
        let failure = Locked<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let app = Application(
            router: router,
            // A connection that has not sent a whole request head within the idle timeout, or
            // sends nothing more after its responses, is closed (a stream being written is not).
            // Each connection is also counted against the cap (ConnectionRegistry), which closes
            // the one idle longest when a new one would pass it.
            server: .compassHTTP1(configuration: .init(
                additionalChannelHandlers: [ConnectionTracker(registry: connections)],
                idleTimeout: .seconds(Int64(settings.limits.idleSeconds)))),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.address.host, port: settings.address.port), serverName: "soundcompass"),
            onServerRunning: { channel in
                // Accepted sockets inherit a small send buffer (Linux), so that a client that stops
                // reading is noticed in seconds rather than after megabytes of kernel buffer.
                _ = try? await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: 16 * 1024).get()
                bound.withLock { $0 = channel.localAddress?.port ?? settings.address.port }
                ready.signal()
            },
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        Task.detached {
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = Self.describe(error) }
            }
            broadcast.close()
            ready.signal()
            finished.signal()
        }
        ready.wait()
        guard let port = bound.withLock({ $0 }) else {
            let reason = failure.withLock { $0 } ?? "the server stopped before listening"
            throw ServeError(description: "\(settings.address): cannot listen: \(reason)")
        }
        let monitor = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 200_000_000)
                let stalled = broadcast.sweep(now: MonotonicClock.now())
                for id in stalled {
                    // A client that stopped reading: its pending write fails, its response ends.
                    channels.channel(id)?.close(promise: nil)
                }
                memory.check(now: MonotonicClock.now(), clients: broadcast.clientCount)
            }
        }
        return RecordServer(
            broadcast: broadcast, boundAddress: ServeAddress(host: settings.address.host, port: port),
            channels: channels, group: group, finished: finished, monitor: monitor)
    }

    /// Ends every stream after what it has been sent, stops listening and waits (up to
    /// `timeoutSeconds`, then closes what is left) for the server to finish.
    /// - Parameter timeoutSeconds: how long to wait for the clients to go, s.
    package func stop(timeoutSeconds: Double = 2) {
        broadcast.close()
        let group = self.group
        Task.detached { await group.triggerGracefulShutdown() }
        if finished.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            for channel in channels.all() { channel.close(promise: nil) }
            _ = finished.wait(timeout: .now() + 1)
        }
        monitor.cancel()
    }

    /// One line for a failure to listen.
    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("Address already in use") || text.contains("EADDRINUSE") { return "the address is already in use" }
        if text.contains("Cannot assign requested address") || text.contains("EADDRNOTAVAIL") {
            return "the address is not one of this machine's"
        }
        if text.contains("Permission denied") || text.contains("EACCES") { return "permission denied (ports below 1024 need privileges)" }
        if text.contains("resolve") || text.contains("NXDOMAIN") || text.contains("Name or service") { return "the host name does not resolve" }
        return text
    }
}

/// The request context: Hummingbird's, plus the connection, so that a lagging client's
/// connection can be closed.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// `Access-Control-Allow-Origin` on every response, and the answer to a preflight, for the one
/// origin `--cors` names.
struct CORSHeaders<Context: RequestContext>: RouterMiddleware {
    let origin: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin, .accessControlAllowMethods: "GET, OPTIONS",
                    .accessControlAllowHeaders: "Authorization, Last-Event-ID", .accessControlMaxAge: "600",
                ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        return response
    }
}

/// The connections of the streaming clients, by client id, so that a lagging one can be closed.
final class ChannelRegistry: Sendable {
    private let channels = Locked<[Int: any Channel]>([:])

    func add(_ id: Int, _ channel: any Channel) { channels.withLock { $0[id] = channel } }
    func remove(_ id: Int) { channels.withLock { _ = $0.removeValue(forKey: id) } }
    func channel(_ id: Int) -> (any Channel)? { channels.withLock { $0[id] } }
    func all() -> [any Channel] { channels.withLock { Array($0.values) } }
}
#endif
