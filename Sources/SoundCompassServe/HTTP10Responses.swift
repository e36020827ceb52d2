// Built with the Serve trait only (Package.swift).
#if Serve
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// HTTP/1.0 clients, answered as HTTP/1.0 (RFC 9112 §9.3).
///
/// Hummingbird reads requests through swift-http-types, which carry no protocol version, so it
/// answers every request as HTTP/1.1 and keeps every connection open. For an HTTP/1.0 client
/// that is wrong twice: a body without a length is sent chunked, which it cannot read, and the
/// connection it expects to close stays open. This handler sits before the HTTP types codec and
/// restores both:
/// - a request without `Connection: keep-alive` is marked `Connection: close`, so that the
///   server closes its side once the response is written (Hummingbird honours that header);
/// - the response head goes out as HTTP/1.0, so a body without `Content-Length` (`/events`) is
///   delimited by the close instead of chunked, and the connection is closed after its end;
/// - a keep-alive request answered with a length gets `Connection: keep-alive` back.
///
/// HTTP/1.1 requests pass through untouched.
final class HTTP10Responses: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Mode {
        /// HTTP/1.1: nothing to change.
        case current
        /// HTTP/1.0, the connection to close after this response.
        case closing
        /// HTTP/1.0 with `Connection: keep-alive`.
        case keepAlive
    }

    /// The mode of the request being answered (HTTPServerPipelineHandler answers one at a time).
    private var mode = Mode.current
    /// The response being written has no length, so its end is the connection's close.
    private var closeAfterEnd = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.version.major == 1, head.version.minor == 0 else {
            context.fireChannelRead(data)
            return
        }
        if head.isKeepAlive {
            mode = .keepAlive
        } else {
            mode = .closing
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch (mode, unwrapOutboundIn(data)) {
        case (.current, _):
            context.write(data, promise: promise)
        case (_, .head(var head)):
            head.version = .http1_0
            let hasLength = head.headers.contains(name: "content-length")
            closeAfterEnd = mode == .closing || !hasLength
            head.headers.replaceOrAdd(name: "connection", value: closeAfterEnd ? "close" : "keep-alive")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case (_, .end):
            let closing = closeAfterEnd
            mode = .current
            closeAfterEnd = false
            guard closing else {
                context.write(data, promise: promise)
                return
            }
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            // The context is used on its own event loop only (the future completes there).
            let bound = context.loopBound
            written.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
        case (_, .body):
            context.write(data, promise: promise)
        }
    }
}

/// Hummingbird's HTTP/1 child channel with ``HTTP10Responses`` put in front of its HTTP types codec.
struct CompassHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(HTTP10Responses(), position: .before(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// An HTTP/1 server that answers HTTP/1.0 clients as HTTP/1.0 (``HTTP10Responses``).
    static func compassHTTP1(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            CompassHTTP1Channel(inner: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
#endif
