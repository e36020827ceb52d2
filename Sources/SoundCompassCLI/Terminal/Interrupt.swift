import SoundCompass
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM during a live session: the first asks the session to stop
/// cleanly and print its summary; a second one, should the stream hang, ends the process.
/// While the input is being opened (``whileOpening(_:)``), the first one ends the process at
/// once: ALSA loads its configuration and libsndfile parses a header inside C calls that never
/// look at a flag.
enum Interrupt {
    private static let requested = Atomic<Bool>(false)
    /// True while the input is opened: a signal then ends the process as its default action does.
    private static let endsAtOnce = Atomic<Bool>(false)
    /// Whether the handler shows the cursor again (after the compass hid it) before anything else.
    private static let restoresTerminal = Atomic<Bool>(false)
    /// The bytes that show the cursor again. A constant, initialised by ``install()`` before the
    /// handler can run (a handler may not allocate), and never written afterwards.
    private static let restoreBytes: [UInt8] = Array(TerminalCompass.restoreCursor.utf8)

    /// True once a stop was asked for. Safe to call from any thread.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// From now on, the first signal also writes ``TerminalCompass/restoreCursor`` to standard output.
    static func restoreTerminalOnSignal() { restoresTerminal.store(true, ordering: .relaxed) }

    /// Runs `body` (opening a device or an input) with signals ending the process at once.
    /// A signal that came before still stops the session cleanly, before its first read.
    static func whileOpening<T>(_ body: () throws -> T) rethrows -> T {
        endsAtOnce.store(true, ordering: .relaxed)
        defer { endsAtOnce.store(false, ordering: .relaxed) }
        return try body()
    }

    /// Installs the handlers (without `SA_RESTART`, so a blocked `read` returns `EINTR`).
    static func install() {
        _ = restoreBytes.count  // initialise the constants outside the handler
        _ = PartialOutputOnSignal.secondSignalArmed.load(ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signalNumber in
            if Interrupt.endsAtOnce.load(ordering: .relaxed) {
                // Delivered with its default action (the process ends, 128 + the signal) once
                // this handler returns.
                signal(signalNumber, SIG_DFL)
                raise(signalNumber)
                return
            }
            Interrupt.requested.store(true, ordering: .relaxed)
            if Interrupt.restoresTerminal.load(ordering: .relaxed) {
                Interrupt.restoreBytes.withUnsafeBytes { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
            }
            // The next Ctrl-C ends the process at once, keeping an output being written as
            // partial (live -o) rather than leaving its temporary file hidden.
            if PartialOutputOnSignal.secondSignalArmed.load(ordering: .relaxed) {
                signal(SIGINT) { PartialOutputOnSignal.keepAndEnd($0) }
                signal(SIGTERM) { PartialOutputOnSignal.keepAndEnd($0) }
            } else {
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
            }
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
