// Built with the Serve trait only (Package.swift).
#if Serve
import NIOCore
import NIOHTTPTypes
import SoundCompassEngine

/// Every open connection of the server, and the cap on them (``RecordBroadcast/Limits/maximumConnections``).
///
/// A connection is **idle** while no request is in progress on it: from the accept until its
/// first request head has been read whole, and between its requests. When a new connection
/// brings the count over the cap, the connection idle the longest is closed, so that sockets
/// held open without a request (or with half-sent headers) cannot keep a real client out, and
/// the process never runs out of descriptors. A connection streaming `/events` is never closed
/// for this; when every connection is busy, the new one is closed at once. (Connections idle
/// longer than ``RecordBroadcast/Limits/idleSeconds`` are closed anyway, by Hummingbird's idle
/// timeout.)
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        /// Requests read and not yet answered to their end.
        var inProgress = 0
        /// When it last became idle (an order, not a time).
        var idleSince: Int
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 0
        var clock = 0
        var evicted = 0
    }

    /// Connections open at once.
    let cap: Int
    private let state = Locked(State())

    init(cap: Int) { self.cap = max(1, cap) }

    /// Connections closed because the cap was reached.
    var evicted: Int { state.withLock { $0.evicted } }

    /// Connections open now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Registers a new connection, closing the one idle longest if that brings the count over the cap.
    /// - Returns: the connection's id.
    func opened(_ channel: any Channel) -> Int {
        var victims: [any Channel] = []
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.clock += 1
            s.entries[id] = Entry(channel: channel, idleSince: s.clock)
            while s.entries.count > cap {
                var oldest: (id: Int, since: Int)?
                for (key, entry) in s.entries where entry.inProgress == 0 && entry.idleSince < (oldest?.since ?? .max) {
                    oldest = (key, entry.idleSince)
                }
                // Every other connection busy: the new one goes.
                let victim = oldest?.id ?? id
                if let entry = s.entries.removeValue(forKey: victim) { victims.append(entry.channel) }
                s.evicted += 1
            }
            return id
        }
        for channel in victims { channel.close(promise: nil) }
        return id
    }

    /// A request head was read on connection `id`.
    func requestStarted(_ id: Int) {
        state.withLock { s in s.entries[id]?.inProgress += 1 }
    }

    /// A response's end was written on connection `id`.
    func responseEnded(_ id: Int) {
        state.withLock { s in
            guard var entry = s.entries[id] else { return }
            entry.inProgress = max(0, entry.inProgress - 1)
            if entry.inProgress == 0 {
                s.clock += 1
                entry.idleSince = s.clock
            }
            s.entries[id] = entry
        }
    }

    /// Connection `id` closed.
    func closed(_ id: Int) {
        state.withLock { s in _ = s.entries.removeValue(forKey: id) }
    }
}

/// The per-connection half of ``ConnectionRegistry``: tells it when the connection opens,
/// starts and ends requests, and closes (one instance per connection, on its event loop).
final class ConnectionTracker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry
    private var id: Int?

    init(registry: ConnectionRegistry) { self.registry = registry }

    /// What a connection may have queued in the server before its writes wait (NIO's default
    /// high mark is 64 KB): a client that does not read holds little more than this.
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 4 * 1024, high: 16 * 1024)

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark, value: Self.writeBufferWaterMark)
        id = registry.opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let id { registry.closed(id) }
        id = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let id { registry.closed(id) }
        id = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data), let id { registry.requestStarted(id) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), let id { registry.responseEnded(id) }
        context.write(data, promise: promise)
    }
}
#endif
