import Foundation

/// Runs `body` on a thread of its own, after `delay` seconds.
///
/// For work that blocks (reading a child's pipe, opening a FIFO) or must run on time (a
/// SIGINT after N seconds). On Linux, libdispatch cannot see that a worker is blocked, so
/// `DispatchQueue.global()` runs about as many items at once as there are cores: with several
/// children running at once in parallel tests, one test's blocking pipe reads held them all,
/// another child's stderr went unread (its "serving" line never seen) and its stdout pipe filled
/// until it stalled mid-stream (a served stream stopping after 8 records).
/// - Parameters:
///   - delay: seconds to wait first, on that thread.
///   - body: the work.
public func onOwnThread(after delay: Double = 0, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        body()
    }
    thread.start()
}
