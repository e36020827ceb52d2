// Built with the Serve trait only (Package.swift).
#if Serve
import Foundation
import Testing

@testable import SoundCompassServe
import SoundCompassIO

/// The broadcast's rules without a network: what a client is given, skipped and dropped.
@Suite struct RecordBroadcastTests {
    /// A record line as the jsonl writer makes it.
    private func line(_ i: Int) -> [UInt8] {
        Array("{\"time\":\(Double(i) * 0.021333),\"azimuth\":\(i % 90).00,\"active\":true}\n".utf8)
    }

    private func publish(_ broadcast: RecordBroadcast, _ range: Range<Int>) {
        for i in range {
            line(i).withUnsafeBufferPointer { broadcast.publish(line: $0, wallNanoseconds: 1_764_083_045_123_000_000 + Int64(i) * 21_333_000) }
        }
    }

    private func take(_ broadcast: RecordBroadcast, _ id: Int) -> (RecordBroadcast.Take, [(Int, String)]) {
        var got: [(Int, String)] = []
        let result = broadcast.take(client: id, now: 0) { frame, bytes in got.append((frame, String(decoding: bytes, as: UTF8.self))) }
        return (result, got)
    }

    @Test func recordsCarryWallTimeAndFrame() throws {
        let broadcast = RecordBroadcast(limits: .init(replayRecords: 10, queueRecords: 4))
        let id = try #require(broadcast.register(stream: .events, lastEventID: nil, address: "test", now: 0))
        publish(broadcast, 0..<1)
        let (result, got) = take(broadcast, id)
        #expect(result == .records(count: 1, skipped: 0))
        #expect(got.count == 1)
        #expect(got[0].0 == 0)
        #expect(got[0].1 == "{\"time\":0.0,\"wall_time\":\"2025-11-25T15:04:05.123Z\",\"frame\":0,\"azimuth\":0.00,\"active\":true}")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(got[0].1.utf8)) as? [String: Any])
        #expect(object["frame"] as? Int == 0)
        #expect(take(broadcast, id).0 == .wait)
    }

    @Test func newestWinsWhenAClientLags() throws {
        let broadcast = RecordBroadcast(limits: .init(replayRecords: 50, queueRecords: 8))
        let id = try #require(broadcast.register(stream: .records, lastEventID: nil, address: "test", now: 0))
        publish(broadcast, 0..<30)
        let (result, got) = take(broadcast, id)
        // 30 pending, 8 allowed: the 22 oldest are skipped, the newest 8 delivered in order.
        #expect(result == .records(count: 8, skipped: 22))
        #expect(got.map(\.0) == Array(22..<30))
        let figures = broadcast.figures(now: 0)
        #expect(figures.clients.first?.recordsDropped == 22)
        #expect(figures.clients.first?.recordsSent == 8)
    }

    @Test func lastEventIDReplaysWhatTheRingHolds() throws {
        let broadcast = RecordBroadcast(limits: .init(replayRecords: 20, queueRecords: 4, replayChunkRecords: 4))
        publish(broadcast, 0..<50)
        // The ring holds 30…49; a client that has 39 is given 40…49, more than its queue, a
        // replay chunk (4) at a time, nothing skipped.
        let id = try #require(broadcast.register(stream: .events, lastEventID: 39, address: "test", now: 0))
        let (result, got) = take(broadcast, id)
        #expect(result == .records(count: 4, skipped: 0))
        #expect(got.map(\.0) == Array(40..<44))
        #expect(take(broadcast, id).1.map(\.0) == Array(44..<48))
        #expect(take(broadcast, id).1.map(\.0) == [48, 49])
        #expect(take(broadcast, id).0 == .wait)
        // Caught up, the client is a live one again: a lag past its queue skips the oldest.
        publish(broadcast, 50..<60)
        let (lagResult, lagGot) = take(broadcast, id)
        #expect(lagResult == .records(count: 4, skipped: 6))
        #expect(lagGot.map(\.0) == Array(56..<60))
        // One older than the ring holds: from the oldest held, the gap counted as dropped.
        let old = try #require(broadcast.register(stream: .events, lastEventID: 25, address: "test", now: 0))
        let (oldResult, oldGot) = take(broadcast, old)
        #expect(oldResult == .records(count: 4, skipped: 14))
        #expect(oldGot.first?.0 == 40)
        // An id from another session (beyond the newest): the newest record only.
        let other = try #require(broadcast.register(stream: .events, lastEventID: 5000, address: "test", now: 0))
        #expect(take(broadcast, other).1.map(\.0) == [59])
    }

    @Test func theClientLimitRefusesOneMore() throws {
        let broadcast = RecordBroadcast(limits: .init(maximumClients: 2))
        let a = broadcast.register(stream: .events, lastEventID: nil, address: "a", now: 0)
        let b = broadcast.register(stream: .records, lastEventID: nil, address: "b", now: 0)
        #expect(a != nil && b != nil)
        #expect(broadcast.register(stream: .events, lastEventID: nil, address: "c", now: 0) == nil)
        broadcast.unregister(client: try #require(a))
        #expect(broadcast.register(stream: .events, lastEventID: nil, address: "d", now: 0) != nil)
        #expect(broadcast.figures(now: 0).clientsRefusedFull == 1)
    }

    @Test func aStalledWriteDropsTheClientAndIdleOnesGetAHeartbeat() throws {
        let broadcast = RecordBroadcast(limits: .init(stallSeconds: 2, heartbeatSeconds: 5))
        let stuck = try #require(broadcast.register(stream: .events, lastEventID: nil, address: "stuck", now: 0))
        let idle = try #require(broadcast.register(stream: .events, lastEventID: nil, address: "idle", now: 0))
        publish(broadcast, 0..<1)
        _ = broadcast.take(client: stuck, now: 1_000_000_000) { _, _ in }  // a write starts at 1 s, never ends
        _ = broadcast.take(client: idle, now: 1_000_000_000) { _, _ in }
        broadcast.wrote(client: idle, now: 1_000_000_000)
        #expect(broadcast.sweep(now: 2_900_000_000).isEmpty)
        #expect(broadcast.sweep(now: 3_100_000_000) == [stuck])
        #expect(take(broadcast, stuck).0 == .closed)
        #expect(broadcast.figures(now: 3_100_000_000).clientsDropped == 1)
        _ = broadcast.sweep(now: 6_100_000_000)
        #expect(take(broadcast, idle).0 == .heartbeat)
    }

    @Test("a sweep whose clock reading is older than a write that started meanwhile drops no one (the reading client dropped in ServeTests under load)")
    func aSweepReadingTheClockEarlierDropsNoOne() throws {
        let broadcast = RecordBroadcast(limits: .init(stallSeconds: 2, heartbeatSeconds: 5))
        let reader = try #require(broadcast.register(stream: .events, lastEventID: nil, address: "reader", now: 0))
        publish(broadcast, 0..<1)
        // The monitor reads the clock at 4.999 s; before it takes the lock, the reader's next
        // write starts at 5 s.
        _ = broadcast.take(client: reader, now: 5_000_000_000) { _, _ in }
        #expect(broadcast.sweep(now: 4_999_000_000).isEmpty)
        #expect(broadcast.figures(now: 5_000_000_000).clientsDropped == 0)
        // The same write pending past 2 s is a stall.
        #expect(broadcast.sweep(now: 7_100_000_000) == [reader])
        #expect(MonotonicClock.elapsed(from: 5, to: 3) == 0)
        #expect(MonotonicClock.elapsed(from: 3, to: 5) == 2)
    }

    @Test func closingEndsEveryClient() async throws {
        let broadcast = RecordBroadcast()
        let id = try #require(broadcast.register(stream: .events, lastEventID: nil, address: "a", now: 0))
        async let waited: Void = broadcast.wait(client: id)
        try await Task.sleep(nanoseconds: 50_000_000)
        broadcast.close()
        await waited
        #expect(take(broadcast, id).0 == .closed)
        #expect(broadcast.register(stream: .events, lastEventID: nil, address: "b", now: 0) == nil)
    }

    @Test(arguments: [
        ("8080", "127.0.0.1", 8080), ("0.0.0.0:80", "0.0.0.0", 80), ("[::1]:9000", "::1", 9000),
        ("localhost:0", "localhost", 0),
    ])
    func addressesParse(text: String, host: String, port: Int) throws {
        let address = try #require(ServeAddress(parsing: text))
        #expect(address.host == host && address.port == port)
    }

    @Test(arguments: ["", "http", "65536", ":80", "::1:80", "host:", "[::1]", "12a", "-1"])
    func badAddressesDoNot(text: String) {
        #expect(ServeAddress(parsing: text) == nil)
    }

    @Test func loopbackIsKnown() {
        #expect(ServeAddress(host: "127.0.0.1", port: 1).isLoopback)
        #expect(ServeAddress(host: "::1", port: 1).isLoopback)
        #expect(!ServeAddress(host: "0.0.0.0", port: 1).isLoopback)
        #expect(!ServeAddress(host: "192.168.1.2", port: 1).isLoopback)
    }

    @Test func wallClockIsISO8601WithMilliseconds() {
        var bytes: [UInt8] = []
        WallClock.appendISO8601(0, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "1970-01-01T00:00:00.000Z")
        bytes.removeAll()
        WallClock.appendISO8601(1_764_083_045_123_999_999, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "2025-11-25T15:04:05.123Z")
        bytes.removeAll()
        WallClock.appendISO8601(WallClock.nowNanoseconds(), to: &bytes)
        #expect(bytes.count == 24)
    }

    /// The trim runs once, after no streaming client has been connected for the settling time;
    /// a client that comes meanwhile cancels it, and nothing is due before a client has left.
    @Test func memoryIsTrimmedOnceTheLastClientHasSettled() {
        let memory = MemoryReturn()
        let settle = MemoryReturn.settleNanoseconds
        #expect(!memory.check(now: 10 * settle, clients: 0), "nothing is due before a client has left")
        memory.lastClientLeft(now: 1_000)
        #expect(!memory.check(now: 1_000 + settle / 2, clients: 0), "not before the connections have settled")
        #expect(memory.check(now: 1_000 + settle, clients: 0))
        #expect(!memory.check(now: 1_000 + 2 * settle, clients: 0), "once per leaving")
        memory.lastClientLeft(now: 5 * settle)
        #expect(!memory.check(now: 5 * settle + settle / 2, clients: 1), "a client came back")
        #expect(!memory.check(now: 7 * settle, clients: 0), "cancelled by the client that came")
    }
}
#endif
