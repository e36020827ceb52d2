// Built with the Serve trait only (Package.swift).
#if Serve
#if canImport(Glibc)
import Glibc
#endif
import SoundCompassEngine
import SoundCompassIO

/// The records of a live session, formatted once and handed to every connected client without
/// ever making the analysis wait for one.
///
/// The analysis thread ``publish(line:wallNanoseconds:)``es each record into a ring that holds
/// the last few seconds (the replay of `Last-Event-ID`). A client is a cursor into that ring: its
/// queue is the records after its cursor, and when more than ``Limits/queueRecords`` are pending
/// the oldest are skipped (the newest win) and counted as dropped for that client. A client whose
/// write has not completed within ``Limits/stallNanoseconds`` (it stopped reading) is dropped by
/// ``sweep(now:)`` and counted. Publishing takes one short lock, copies the line into a ring slot
/// whose storage is reused, and wakes the waiting clients: no I/O, no wait on a client, and no
/// allocation once the slots have grown to a record's size.
package final class RecordBroadcast: Sendable {
    /// The two streaming endpoints.
    package enum Stream: String, Sendable {
        /// Server-Sent Events (`/events`).
        case events
        /// Newline-delimited JSON (`/records`).
        case records
    }

    /// Sizes and times of the broadcast.
    package struct Limits: Sendable {
        /// Streaming clients served at once; one more is refused (503).
        package var maximumClients: Int
        /// Records kept for a `Last-Event-ID` replay.
        package var replayRecords: Int
        /// Records a client may have pending; beyond, its oldest are skipped.
        package var queueRecords: Int
        /// Records of a replay handed out at a time (a write of a few kilobytes): a replay
        /// skips nothing the ring holds, and goes out in writes this size so that a client
        /// that does not read holds only the writes its channel took before it stopped being
        /// writable.
        package var replayChunkRecords: Int
        /// A write pending this long drops the client, ns.
        package var stallNanoseconds: UInt64
        /// A client idle this long gets a heartbeat, ns.
        package var heartbeatNanoseconds: UInt64
        /// A connection that has not sent a whole request head (or a next request) within this
        /// long is closed, s (a response being streamed is not idle).
        package var idleSeconds: Int
        /// Connections open at once, streaming or not: at the cap no more is accepted until one
        /// closes (``connectionCap(descriptorLimit:)``).
        package var maximumConnections: Int

        /// - Parameters:
        ///   - maximumClients: streaming clients at once (≥ 1).
        ///   - replayRecords: records kept for a replay (≥ 1).
        ///   - queueRecords: records a client may have pending (≥ 1).
        ///   - replayChunkRecords: records of a replay handed out at a time (≥ 1).
        ///   - stallSeconds: a write pending this long drops the client, s.
        ///   - heartbeatSeconds: an idle client gets a heartbeat after this long, s.
        ///   - idleSeconds: a connection idle this long is closed, s (≥ 1).
        ///   - maximumConnections: connections at once; nil for ``connectionCap(descriptorLimit:)``
        ///     of the process's descriptor limit.
        package init(
            maximumClients: Int = 16, replayRecords: Int = 256, queueRecords: Int = 32, replayChunkRecords: Int = 8,
            stallSeconds: Double = 2, heartbeatSeconds: Double = 5, idleSeconds: Int = 10, maximumConnections: Int? = nil
        ) {
            self.maximumClients = max(1, maximumClients)
            self.replayRecords = max(1, replayRecords)
            self.queueRecords = max(1, queueRecords)
            self.replayChunkRecords = max(1, replayChunkRecords)
            self.stallNanoseconds = UInt64(max(0.01, stallSeconds) * 1e9)
            self.heartbeatNanoseconds = UInt64(max(0.01, heartbeatSeconds) * 1e9)
            self.idleSeconds = max(1, idleSeconds)
            self.maximumConnections = max(1, maximumConnections ?? Self.connectionCap(descriptorLimit: Self.descriptorLimit()))
        }

        /// The connections a process with `descriptorLimit` descriptors serves at once: half of
        /// what is left after 64 for the rest of the process (capture, files, the event loops),
        /// at least 8 and at most 4096. With the common limit of 1024, 480.
        package static func connectionCap(descriptorLimit: Int) -> Int {
            min(4096, max(8, (descriptorLimit - 64) / 2))
        }

        /// The process's soft limit on open descriptors (`RLIMIT_NOFILE`).
        package static func descriptorLimit() -> Int {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
            // RLIM_INFINITY is all ones; any value that large is taken as 2²⁰.
            return Int(min(limit.rlim_cur, 1 << 20))
        }
    }

    /// What ``take(client:now:_:)`` found for a client.
    package enum Take: Equatable, Sendable {
        /// Records were handed over (`count`), after skipping `skipped` the client was too late for.
        case records(count: Int, skipped: Int)
        /// Nothing new for a while: write a heartbeat.
        case heartbeat
        /// Nothing yet: ``wait(client:)``.
        case wait
        /// The broadcast ended or the client was dropped: end the response.
        case closed
    }

    /// A client's figures, for `/status`.
    package struct ClientFigures: Sendable, Equatable {
        package var id: Int
        package var stream: Stream
        package var address: String
        package var connectedSeconds: Double
        package var recordsSent: Int
        package var recordsDropped: Int
    }

    /// Everything `/status` reports about the broadcast.
    package struct Figures: Sendable {
        package var records: Int
        package var overruns: Int
        package var clients: [ClientFigures]
        package var clientsConnected: Int
        package var clientsRefusedFull: Int
        package var clientsRefusedUnauthorized: Int
        package var clientsDropped: Int
        /// The clients dropped for lagging, the last few (newest last).
        package var droppedClients: [ClientFigures]
        package var recordsDroppedByGoneClients: Int
    }

    private struct Slot {
        var frame = -1
        var bytes: [UInt8] = []
    }

    private struct Client {
        let id: Int
        let stream: Stream
        let address: String
        let connectedAt: UInt64
        var cursor: Int
        var replaying: Bool
        var waiter: CheckedContinuation<Void, Never>?
        var sent = 0
        var dropped = 0
        var writeStartedAt: UInt64?
        var lastWriteAt: UInt64
        var heartbeatDue = false
        var stalled = false

        func figures(now: UInt64) -> ClientFigures {
            ClientFigures(
                id: id, stream: stream, address: address, connectedSeconds: Double(MonotonicClock.elapsed(from: connectedAt, to: now)) * 1e-9,
                recordsSent: sent, recordsDropped: dropped)
        }
    }

    private struct State {
        var slots: [Slot]
        var newest = -1
        var closed = false
        var clients: [Client] = []
        var nextID = 1
        var overruns = 0
        var connectedTotal = 0
        var refusedFull = 0
        var refusedUnauthorized = 0
        var dropped: [ClientFigures] = []
        var droppedCount = 0
        var recordsDroppedGone = 0

        func index(of id: Int) -> Int? { clients.firstIndex { $0.id == id } }

        mutating func wakeAll() {
            for i in clients.indices {
                if let waiter = clients[i].waiter {
                    clients[i].waiter = nil
                    waiter.resume()
                }
            }
        }
    }

    /// The limits in force.
    package let limits: Limits
    private let state: Locked<State>
    /// Clients dropped for lagging that `/status` lists (the count is kept whole).
    private static let droppedListed = 16

    /// - Parameter limits: sizes and times.
    package init(limits: Limits = Limits()) {
        self.limits = limits
        var slots = [Slot](repeating: Slot(), count: limits.replayRecords)
        for i in slots.indices { slots[i].bytes.reserveCapacity(1024) }
        state = Locked(State(slots: slots))
    }

    // MARK: - The analysis side

    /// Adds one record: `line` is its JSON object (with or without the newline), into which
    /// `"wall_time"` and `"frame"` are put after the first field. Called on the analysis
    /// thread: takes one short lock and wakes the waiting clients.
    /// - Parameters:
    ///   - line: the record as one JSON object, `{"time":…,…}`.
    ///   - wallNanoseconds: the wall-clock time the record's frame ended, ns since the epoch.
    package func publish(line: UnsafeBufferPointer<UInt8>, wallNanoseconds: Int64) {
        var end = line.count
        while end > 0 && (line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r")) { end -= 1 }
        // After the first field (the stream time): the first comma outside a string.
        var split = 0
        while split < end && line[split] != UInt8(ascii: ",") { split += 1 }
        state.withLock { s in
            guard !s.closed else { return }
            let frame = s.newest + 1
            let index = frame % s.slots.count
            s.slots[index].frame = frame
            s.slots[index].bytes.removeAll(keepingCapacity: true)
            Self.fill(&s.slots[index].bytes, line: line, split: split, end: end, frame: frame, wall: wallNanoseconds)
            s.newest = frame
            s.wakeAll()
        }
    }

    private static func fill(
        _ bytes: inout [UInt8], line: UnsafeBufferPointer<UInt8>, split: Int, end: Int, frame: Int, wall: Int64
    ) {
        if split >= end {
            // A single field (never the case for served records): close it before adding.
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[0..<max(0, end - 1)]))
        } else {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[0..<split]))
        }
        bytes.append(contentsOf: ",\"wall_time\":\"".utf8)
        WallClock.appendISO8601(wall, to: &bytes)
        bytes.append(contentsOf: "\",\"frame\":".utf8)
        NumberFormatting.appendInteger(UInt64(frame), to: &bytes)
        if split >= end {
            bytes.append(UInt8(ascii: "}"))
        } else {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[split..<end]))
        }
    }

    /// Sets the overrun count `/status` reports (the capture's, per period).
    package func setOverruns(_ count: Int) {
        state.withLock { $0.overruns = count }
    }

    /// Ends the broadcast: every client's response ends after what it has been given, and no
    /// client is accepted any more.
    package func close() {
        state.withLock { s in
            s.closed = true
            s.wakeAll()
        }
    }

    // MARK: - The server side

    /// Admits a streaming client, or refuses it (`nil`) when ``Limits/maximumClients`` are
    /// connected or the broadcast has ended.
    /// - Parameters:
    ///   - stream: the endpoint.
    ///   - lastEventID: the last record the client has (`Last-Event-ID`): the records after it
    ///     that the ring still holds are replayed (those it no longer holds count as dropped).
    ///     Without one, or for one beyond the newest (another session's), the client starts
    ///     with the newest record.
    ///   - address: the peer, for `/status`.
    ///   - now: monotonic time, ns.
    package func register(stream: Stream, lastEventID: Int?, address: String, now: UInt64) -> Int? {
        state.withLock { s in
            guard !s.closed else { return nil }
            guard s.clients.count < limits.maximumClients else {
                s.refusedFull += 1
                return nil
            }
            let id = s.nextID
            s.nextID += 1
            var cursor = max(-1, s.newest - 1)
            var replaying = false
            if let last = lastEventID, last <= s.newest, last >= -1 {
                cursor = last
                replaying = true
            }
            s.clients.append(Client(
                id: id, stream: stream, address: address, connectedAt: now, cursor: cursor, replaying: replaying,
                lastWriteAt: now))
            s.connectedTotal += 1
            return id
        }
    }

    /// Counts a request refused for a missing or wrong token.
    package func countUnauthorized() {
        state.withLock { $0.refusedUnauthorized += 1 }
    }

    /// Removes a client whose response has ended.
    /// - Returns: the streaming clients left.
    @discardableResult
    package func unregister(client id: Int) -> Int {
        state.withLock { s in
            guard let index = s.index(of: id) else { return s.clients.count }
            let client = s.clients.remove(at: index)
            s.recordsDroppedGone += client.dropped
            client.waiter?.resume()
            return s.clients.count
        }
    }

    /// Hands the client's pending records to `deliver`, oldest first, under the lock (copy the
    /// bytes; they are valid during the call only), and marks a write as started.
    /// - Parameters:
    ///   - id: the client.
    ///   - now: monotonic time, ns.
    ///   - deliver: called with each record's frame index and JSON bytes.
    package func take(client id: Int, now: UInt64, _ deliver: (Int, UnsafeBufferPointer<UInt8>) -> Void) -> Take {
        state.withLock { s in
            guard let index = s.index(of: id), !s.clients[index].stalled else { return .closed }
            var client = s.clients[index]
            defer { s.clients[index] = client }
            if s.newest > client.cursor {
                let oldestHeld = max(0, s.newest - s.slots.count + 1)
                var from = client.cursor + 1
                var skipped = 0
                if from < oldestHeld { skipped += oldestHeld - from; from = oldestHeld }
                let through: Int
                if client.replaying {
                    // A replay (`Last-Event-ID`) goes out a few records at a time and skips
                    // nothing the ring holds: a client that asks for the whole ring and does not
                    // read makes the server hold the few writes its channel takes before it stops
                    // being writable, not the ring (#47 item 8).
                    through = min(s.newest, from + limits.replayChunkRecords - 1)
                    client.replaying = through < s.newest
                } else {
                    let limit = limits.queueRecords
                    if s.newest - from + 1 > limit { skipped += s.newest - limit + 1 - from; from = s.newest - limit + 1 }
                    through = s.newest
                }
                for frame in from...through {
                    s.slots[frame % s.slots.count].bytes.withUnsafeBufferPointer { deliver(frame, $0) }
                }
                let count = through - from + 1
                client.cursor = through
                client.sent += count
                client.dropped += skipped
                client.heartbeatDue = false
                client.writeStartedAt = now
                return .records(count: count, skipped: skipped)
            }
            if s.closed { return .closed }
            if client.heartbeatDue {
                client.heartbeatDue = false
                client.writeStartedAt = now
                return .heartbeat
            }
            return .wait
        }
    }

    /// Marks the client's write as done.
    package func wrote(client id: Int, now: UInt64) {
        state.withLock { s in
            guard let index = s.index(of: id) else { return }
            s.clients[index].writeStartedAt = nil
            s.clients[index].lastWriteAt = now
        }
    }

    /// Suspends until the client has something to take (a record, a heartbeat, the end).
    package func wait(client id: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                guard let index = s.index(of: id), !s.closed, !s.clients[index].stalled else { return true }
                if s.newest > s.clients[index].cursor || s.clients[index].heartbeatDue { return true }
                s.clients[index].waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The periodic check: clients whose write has been pending longer than
    /// ``Limits/stallNanoseconds`` are dropped (counted, and returned so that their connections
    /// are closed); idle clients are given a heartbeat.
    /// - Parameter now: monotonic time, ns.
    /// - Returns: the ids of the clients dropped now.
    package func sweep(now: UInt64) -> [Int] {
        state.withLock { s in
            var stalled: [Int] = []
            for index in s.clients.indices {
                var client = s.clients[index]
                if let started = client.writeStartedAt, !client.stalled,
                    MonotonicClock.elapsed(from: started, to: now) > limits.stallNanoseconds {
                    client.stalled = true
                    s.droppedCount += 1
                    s.dropped.append(client.figures(now: now))
                    if s.dropped.count > Self.droppedListed { s.dropped.removeFirst() }
                    stalled.append(client.id)
                } else if client.writeStartedAt == nil,
                    MonotonicClock.elapsed(from: client.lastWriteAt, to: now) > limits.heartbeatNanoseconds {
                    client.heartbeatDue = true
                }
                if client.stalled || client.heartbeatDue, let waiter = client.waiter {
                    client.waiter = nil
                    waiter.resume()
                }
                s.clients[index] = client
            }
            return stalled
        }
    }

    /// The figures `/status` reports.
    package func figures(now: UInt64) -> Figures {
        state.withLock { s in
            Figures(
                records: s.newest + 1, overruns: s.overruns,
                clients: s.clients.map { $0.figures(now: now) },
                clientsConnected: s.connectedTotal, clientsRefusedFull: s.refusedFull,
                clientsRefusedUnauthorized: s.refusedUnauthorized, clientsDropped: s.droppedCount,
                droppedClients: s.dropped, recordsDroppedByGoneClients: s.recordsDroppedGone)
        }
    }

    /// Streaming clients connected now.
    package var clientCount: Int { state.withLock { $0.clients.count } }
}
#endif
