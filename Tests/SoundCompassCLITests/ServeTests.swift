// With the Serve trait only (a tool built without it refuses --serve: CommandLineHabitsTests).
#if Serve
import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `live --serve` over real sockets (issue 32): a server on an ephemeral port of 127.0.0.1,
/// serving a `synth` recording paced to real time, read by a small HTTP client of the test's own.
@Suite struct ServeTests {
    // MARK: - Protocol

    @Test("SSE: one record per event, id = frame index, records as on stdout plus wall_time and frame")
    func eventsFraming() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 3)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--format", "jsonl"])
        let response = try HTTPProbe.get(port: live.port, path: "/events", seconds: 5) { HTTPProbe.events($0).count >= 25 }
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        #expect(response.headers["access-control-allow-origin"] == nil, "no CORS unless asked")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.hasPrefix("retry: "), "\(text.prefix(80))")
        let events = HTTPProbe.events(response.body)
        try #require(events.count >= 25)
        let ids = events.map(\.id)
        let first = try #require(ids.first ?? nil)
        #expect(ids == (0..<events.count).map { first + $0 }, "consecutive ids")
        let result = live.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let stdout = try CLITests.parseJSONLines(result.stdout)
        let frames: Int = (3 * 48000 - 2048) / 1024 + 1
        #expect(stdout.count == frames, "stdout has every record")
        let iso = try Regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")
        let stdoutLines = result.stdout.split(separator: "\n").map(String.init)
        for event in events {
            let data = try #require(event.data.data(using: .utf8))
            let record = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(record["frame"] as? Int == event.id)
            let wall = try #require(record["wall_time"] as? String)
            #expect(wall.wholeMatch(of: iso) != nil, "\(wall)")
            // Without the two added fields, the record is byte for byte the stdout line of that frame.
            let frame = try #require(event.id)
            let stripped = event.data.replacingOccurrences(of: "\"wall_time\":\"\(wall)\",\"frame\":\(frame),", with: "")
            #expect(stripped == stdoutLines[frame], "frame \(frame)")
        }
    }

    @Test(
        "--classify --alert: served records carry stdout's labels and alerts, byte for byte but wall_time and frame",
        .enabled(if: availableOrOnCI(classifierModelFetched), "the YAMNet model is not fetched (run scripts/fetch-model); runs on CI"),
        // Under a sanitizer the forward passes run several times slower: the labeller's thread
        // skips patch rounds (live never waits for it), so fewer records carry labels than the
        // test's bounds ask (CI's ASan stage: 96 of the 100 needed, in one run of two). The
        // main suite runs it.
        .disabled(if: underSanitizer, "the classifier is too slow under a sanitizer"))
    func labelsServed() throws {
        let directory = TemporaryDirectory()
        let input = directory.path("mix.raw")
        // A 1 kHz tone at +30° (ClassifyCLITests' scene): it reads as a beep, which alerts.
        let made = try CLI.run(["synth", input, "--source", "tone:1000@30", "--duration", "5", "-q"])
        try #require(made.status == 0, "\(made.stderr)")
        let live = try ServedLive(
            ["live", "--input", input, "--serve", "0", "--format", "jsonl", "--classify", "--alert", "Sine wave,alarm"])
        let response = try HTTPProbe.get(port: live.port, path: "/events", seconds: 12) { HTTPProbe.events($0).count >= 180 }
        let result = live.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let events = HTTPProbe.events(response.body)
        try #require(events.count >= 150, "\(events.count) events")
        let stdoutLines = result.stdout.split(separator: "\n").map(String.init)
        var labelledFrames: [Int] = [], unlabelledFrames: [Int] = [], alerting = 0
        for event in events {
            let data = try #require(event.data.data(using: .utf8))
            let record = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let wall = try #require(record["wall_time"] as? String)
            let frame = try #require(event.id)
            let stripped = event.data.replacingOccurrences(of: "\"wall_time\":\"\(wall)\",\"frame\":\(frame),", with: "")
            #expect(stripped == stdoutLines[frame], "frame \(frame)")
            #expect(record.keys.contains("label") && record.keys.contains("alert"), "frame \(frame): no label fields")
            if record["label"] is String { labelledFrames.append(frame) } else { unlabelledFrames.append(frame) }
            if record["alert"] is [String: Any] { alerting += 1 }
        }
        // The labeller runs on its own thread and live never waits for it, so the first labelled
        // record comes when the machine lets it: frame 76 (1.6 s) here idle, 88–89 (1.9 s) with
        // both cores kept busy, where the old bound (all but 80 records labelled) failed, as it
        // did once on CI (99 of the 100 needed). The bound allows 3 s (frame 140); from
        // the first labelled record on, every served record is labelled (a track keeps its label).
        // Label latency is a benchmark figure (Benchmarks/accuracy/labels_real.py --alerts), not this test's.
        let first = try #require(labelledFrames.first, "no served record labelled in \(events.count)")
        print("served: first labelled record at frame \(first), \(labelledFrames.count) of \(events.count) labelled")
        #expect(first <= 140, "first labelled record at frame \(first)")
        #expect(unlabelledFrames.allSatisfy { $0 < first }, "unlabelled after frame \(first): \(unlabelledFrames.filter { $0 > first })")
        #expect(labelledFrames.count >= 40, "\(labelledFrames.count) of \(events.count) served records labelled")
        #expect(alerting > 0, "no served alert in \(events.count) records")
    }

    @Test("SSE: Last-Event-ID replays the records after it; an unknown one starts at the newest")
    func lastEventIDResume() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 4)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--format", "jsonl"])
        defer { _ = live.finish() }
        // Read until frame 60 (about 1.3 s in), then come back as a reconnecting browser does.
        let before = try HTTPProbe.get(port: live.port, path: "/events", seconds: 5) {
            (HTTPProbe.events($0).last?.id ?? 0) >= 60
        }
        let last = try #require(HTTPProbe.events(before.body).last?.id ?? nil)
        Thread.sleep(forTimeInterval: 0.5)
        let resumed = try HTTPProbe.get(
            port: live.port, path: "/events", headers: ["Last-Event-ID": String(last - 10)], seconds: 5
        ) { HTTPProbe.events($0).count >= 30 }
        let ids = HTTPProbe.events(resumed.body).compactMap(\.id)
        #expect(ids.first == last - 9, "replay starts right after the given id")
        #expect(ids == (0..<ids.count).map { last - 9 + $0 }, "no gap, no repeat")
        let fresh = try HTTPProbe.get(
            port: live.port, path: "/events", headers: ["Last-Event-ID": "999999"], seconds: 5
        ) { HTTPProbe.events($0).count >= 1 }
        let freshFirst = try #require(HTTPProbe.events(fresh.body).first?.id ?? nil)
        #expect(freshFirst > last, "an id of another session is not replayed from")
    }

    @Test("NDJSON: one record a line, each parses, frames consecutive")
    func recordsNDJSON() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 3)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--format", "jsonl"])
        defer { _ = live.finish() }
        let response = try HTTPProbe.get(port: live.port, path: "/records", seconds: 5) {
            $0.split(separator: UInt8(ascii: "\n")).count >= 21
        }
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/x-ndjson")
        #expect(response.headers["transfer-encoding"] == "chunked")
        let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n").dropLast()
        try #require(lines.count >= 20)
        let frames = try lines.map { line -> Int in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["azimuth"] is Double)
            return try #require(object["frame"] as? Int)
        }
        #expect(frames == (0..<frames.count).map { frames[0] + $0 })
        let status = try HTTPProbe.get(port: live.port, path: "/status", seconds: 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any])
        #expect(object["sample_rate"] as? Double == 48000)
        #expect(object["hop"] as? Int == 1024)
        #expect(object["paced"] as? Bool == true)
        #expect((object["records"] as? Int ?? 0) > 0)
    }

    @Test("--token: 401 without it or with a wrong one, 200 with the header or ?token=")
    func tokenRefusal() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 3)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--token", "s3cret-T0ken", "--format", "jsonl"])
        defer { _ = live.finish() }
        for path in ["/", "/status", "/events", "/records"] {
            let refused = try HTTPProbe.get(port: live.port, path: path, seconds: 2)
            #expect(refused.status == 401, "\(path)")
            #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        }
        #expect(try HTTPProbe.get(port: live.port, path: "/status", headers: ["Authorization": "Bearer wrong"], seconds: 2).status == 401)
        #expect(try HTTPProbe.get(port: live.port, path: "/status?token=s3cret-T0kem", seconds: 2).status == 401)
        #expect(try HTTPProbe.get(port: live.port, path: "/status", headers: ["Authorization": "Bearer s3cret-T0ken"], seconds: 2).status == 200)
        #expect(try HTTPProbe.get(port: live.port, path: "/?token=s3cret-T0ken", seconds: 2).status == 200)
        let events = try HTTPProbe.get(port: live.port, path: "/events?token=s3cret-T0ken", seconds: 3) { HTTPProbe.events($0).count >= 2 }
        #expect(events.status == 200)
        let status = try HTTPProbe.get(port: live.port, path: "/status?token=s3cret-T0ken", seconds: 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any])
        #expect(object["requests_unauthorized"] as? Int == 6)
    }

    @Test("--max-clients: one streaming client more is answered 503; /status still answers")
    func clientLimit() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 4)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--max-clients", "2", "--format", "jsonl"])
        defer { _ = live.finish() }
        let a = try HTTPProbe.open(port: live.port, path: "/events")
        let b = try HTTPProbe.open(port: live.port, path: "/records")
        defer { close(a); close(b) }
        Thread.sleep(forTimeInterval: 0.3)
        let third = try HTTPProbe.get(port: live.port, path: "/events", seconds: 2)
        #expect(third.status == 503)
        #expect(third.headers["retry-after"] != nil)
        let status = try HTTPProbe.get(port: live.port, path: "/status", seconds: 2)
        #expect(status.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any])
        #expect(object["clients"] as? Int == 2)
        #expect(object["clients_refused_full"] as? Int == 1)
    }

    @Test("a client that stops reading is dropped and counted; the others and stdout miss nothing")
    func slowClientDropped() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 14)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--format", "jsonl"])
        // Connects, asks for the events, and never reads a byte.
        let stalled = try HTTPProbe.open(port: live.port, path: "/events")
        defer { close(stalled) }
        let start = Date()
        // Another client reads all along, until 11 s have passed.
        let reader = try HTTPProbe.get(port: live.port, path: "/events", seconds: 11) { _ in false }
        #expect(Date().timeIntervalSince(start) >= 10)
        let status = try HTTPProbe.get(port: live.port, path: "/status", seconds: 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any])
        #expect(object["clients_dropped"] as? Int == 1, "\(String(decoding: status.body, as: UTF8.self))")
        #expect((object["dropped_clients"] as? [Any])?.count == 1)
        let ids = HTTPProbe.events(reader.body).compactMap(\.id)
        #expect(ids.count > 400)
        #expect(ids == (0..<ids.count).map { ids[0] + $0 }, "the reading client missed no record")
        let result = live.finish()
        #expect(result.status == 0)
        let records = try CLITests.parseJSONLines(result.stdout)
        let frames: Int = (14 * 48000 - 2048) / 1024 + 1
        #expect(records.count == frames, "stdout has every record")
        // Paced at one record per 21 ms, stdout never waited on the stalled client.
        let gap: Double = live.longestStdoutGap
        let allowed: Double = 0.5 * timeBoundScale
        #expect(gap < allowed, "stdout held up \(gap) s")
    }

    @Test("Ctrl-C ends each stream with the chunked end, prints the summary, exits 0")
    func interruptClosesClients() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 8)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--format", "jsonl"])
        let done = Mutex<HTTPProbe.Response?>(nil)
        let port = live.port
        let thread = Thread {
            let response = try? HTTPProbe.get(port: port, path: "/records", seconds: 8, raw: true) { _ in false }
            done.withLock { $0 = response }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 1.5)
        live.interrupt()
        let result = live.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.last?.hasPrefix("soundcompass: stopped: stream ") == true, "\(result.stderr)")
        var response: HTTPProbe.Response?
        for _ in 0..<40 where response == nil {
            Thread.sleep(forTimeInterval: 0.1)
            response = done.withLock { $0 }
        }
        let raw = String(decoding: try #require(response).body, as: UTF8.self)
        #expect(raw.hasSuffix("\r\n0\r\n\r\n"), "the chunked body ends cleanly: \(raw.suffix(40).debugDescription)")
    }

    @Test("an address in use: one line, exit 69; a non-loopback bind without a token warns")
    func listenFailureAndWarning() throws {
        let directory = TemporaryDirectory()
        let input = try Self.recording(in: directory, seconds: 3)
        let live = try ServedLive(["live", "--input", input, "--serve", "0", "--format", "jsonl"])
        defer { _ = live.finish() }
        let clash = try CLI.run(["live", "--input", input, "--serve", "127.0.0.1:\(live.port)", "--format", "jsonl"])
        #expect(clash.status == 69, "\(clash.stderr)")
        #expect(clash.stderrLines.last == "soundcompass: error: 127.0.0.1:\(live.port): cannot listen: the address is already in use")
        let open = try CLI.run(["live", "--input", input, "--serve", "0.0.0.0:0", "--duration", "0.2", "--format", "jsonl"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stderr.contains("warning: --serve 0.0.0.0:0: other machines can connect"), "\(open.stderr)")
        let bad = try CLI.run(["live", "--input", input, "--serve", "host:port"])
        #expect(bad.status == 64)
        let stray = try CLI.run(["live", "--input", input, "--token", "x"])
        #expect(stray.status == 64)
    }

    // MARK: - Helpers

    /// A 3–14 s recording of pink noise at +30° (raw f32le, as `synth` writes `.raw`).
    static func recording(in directory: TemporaryDirectory, seconds: Int, azimuth: Int = 30) throws -> String {
        let path = directory.path("take.raw")
        let made = try CLI.run(["synth", path, "--source", "pink@\(azimuth)", "--duration", String(seconds), "--snr", "20"])
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }
}

/// A `soundcompass live --serve` running in the background: its port, its stdout lines with
/// their arrival times.
final class ServedLive: @unchecked Sendable {
    let process = Process()
    private(set) var port = 0
    private let lock = NSLock()
    private var stdoutData = Data()
    private var stderrData = Data()
    private var arrivals: [Date] = []
    private let readers = DispatchGroup()

    /// - Parameter descriptorLimit: run under `ulimit -n` this many descriptors (nil: as the tests run).
    init(_ arguments: [String], descriptorLimit: Int? = nil) throws {
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", CLI.executable.path] + arguments
        } else {
            process.executableURL = CLI.executable
            process.arguments = arguments
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        readers.enter()
        onOwnThread { [self] in
            while case let chunk = out.fileHandleForReading.availableData, !chunk.isEmpty {
                lock.withLock {
                    stdoutData.append(chunk)
                    for byte in chunk where byte == UInt8(ascii: "\n") { arrivals.append(Date()) }
                }
            }
            readers.leave()
        }
        readers.enter()
        onOwnThread { [self] in
            while case let chunk = err.fileHandleForReading.availableData, !chunk.isEmpty {
                lock.withLock { stderrData.append(chunk) }
            }
            readers.leave()
        }
        let deadline = Date().addingTimeInterval(20)
        var found: Int?
        while found == nil && Date() < deadline && process.isRunning {
            let text = lock.withLock { String(decoding: stderrData, as: UTF8.self) }
            if let match = text.firstMatch(of: /serving http:\/\/127\.0\.0\.1:([0-9]+)\//) { found = Int(match.1) }
            if found == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let found else {
            process.terminate()
            throw ServeTestError(message: "no serving line: \(lock.withLock { String(decoding: stderrData, as: UTF8.self) })")
        }
        port = found
    }

    func interrupt() { process.interrupt() }

    /// Waits for the process to end (interrupting it after 30 s) and returns what it wrote.
    func finish() -> CLI.Result {
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        readers.wait()
        return lock.withLock {
            CLI.Result(
                status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                stderr: String(decoding: stderrData, as: UTF8.self))
        }
    }

    /// The longest time between two stdout lines, s.
    var longestStdoutGap: Double {
        lock.withLock { zip(arrivals, arrivals.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? 0 }
    }
}

struct ServeTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A minimal HTTP/1.1 client on a blocking socket, enough for the server's responses (plain
/// and chunked bodies).
enum HTTPProbe {
    struct Response {
        var status: Int
        /// The status line's protocol version, `HTTP/1.1` or `HTTP/1.0`.
        var version = "HTTP/1.1"
        /// Lower-cased names.
        var headers: [String: String]
        /// The body, de-chunked unless asked for raw.
        var body: [UInt8]
    }

    struct Event {
        var id: Int?
        var data: String
    }

    /// Connects and sends a GET; returns the socket, unread.
    static func open(port: Int, path: String, headers: [String: String] = [:]) throws -> Int32 {
        let fd = try connect(port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Connection: close\r\n\r\n"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// A TCP connection to 127.0.0.1:`port` that has sent nothing.
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeTestError(message: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw ServeTestError(message: "connect: \(errno)") }
        return fd
    }

    /// GETs `path` and reads until the server closes, `seconds` pass, or `until` holds for the
    /// de-chunked body so far.
    static func get(
        port: Int, path: String, headers: [String: String] = [:], seconds: Double, raw: Bool = false,
        until: ([UInt8]) -> Bool = { _ in false }
    ) throws -> Response {
        let fd = try open(port: port, path: path, headers: headers)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        // De-chunking the whole body at every read grows as the square of its length, so
        // `until` is asked at most every 0.1 s. (The reader dropped as stalled under load was
        // the server's clock race, not this: RecordBroadcastTests.aSweepReadingTheClockEarlierDropsNoOne.)
        var lastCheck = Date.distantPast
        while Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 {
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { break }
            } else {
                received += buffer[0..<n]
            }
            guard Date().timeIntervalSince(lastCheck) >= 0.1 else { continue }
            lastCheck = Date()
            if let response = parse(received, raw: raw), until(response.body) { break }
        }
        guard let response = parse(received, raw: raw) else {
            throw ServeTestError(message: "no HTTP response from \(path): \(String(decoding: received, as: UTF8.self))")
        }
        return response
    }

    /// The response so far: status line, headers, and as much body as has come.
    static func parse(_ bytes: [UInt8], raw: Bool) -> Response? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.firstRange(of: separator) else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, statusLine.hasPrefix("HTTP/1.1 ") || statusLine.hasPrefix("HTTP/1.0 "),
            let status = Int(statusLine.dropFirst(9).prefix(3))
        else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[end.upperBound...])
        if !raw && headers["transfer-encoding"] == "chunked" { body = dechunk(body) }
        return Response(status: status, version: String(statusLine.prefix(8)), headers: headers, body: body)
    }

    /// The complete chunks' data.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while let lineEnd = bytes[i...].firstRange(of: [13, 10]) {
            guard let size = Int(String(decoding: bytes[i..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { break }
            out += bytes[start..<start + size]
            i = start + size + 2
            if i > bytes.count { break }
        }
        return out
    }

    /// Server-Sent Events in a body: complete events only (blank-line terminated); comments skipped.
    static func events(_ body: [UInt8]) -> [Event] {
        let text = String(decoding: body, as: UTF8.self)
        var events: [Event] = []
        var blocks = text.components(separatedBy: "\n\n")
        blocks.removeLast()  // incomplete, or empty after the last separator
        for block in blocks {
            var id: Int?
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            if !data.isEmpty { events.append(Event(id: id, data: data.joined(separator: "\n"))) }
        }
        return events
    }
}
#endif
