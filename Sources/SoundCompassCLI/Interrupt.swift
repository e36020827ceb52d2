import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM during a live session: the first asks the session to stop
/// cleanly and print its summary; a second one, should the stream hang, ends the process.
enum Interrupt {
    private static let requested = Atomic<Bool>(false)
    /// Bytes the handler writes to standard output before anything else (to show the cursor
    /// again after the compass hid it): fixed at install time, as a handler may not allocate.
    nonisolated(unsafe) private static var restoreTerminal: [UInt8] = []

    /// True once a stop was asked for. Safe to call from any thread.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Installs the handlers (without `SA_RESTART`, so a blocked `read` returns `EINTR`).
    /// - Parameter restoringTerminal: bytes to write to standard output on the first signal.
    static func install(restoringTerminal: String = "") {
        restoreTerminal = Array(restoringTerminal.utf8)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            Interrupt.requested.store(true, ordering: .relaxed)
            Interrupt.restoreTerminal.withUnsafeBytes { bytes in
                if bytes.count > 0 { _ = write(1, bytes.baseAddress, bytes.count) }
            }
            // The next Ctrl-C ends the process at once.
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with these blocked (test runners do); Ctrl-C must work.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &signals, nil)
    }
}
