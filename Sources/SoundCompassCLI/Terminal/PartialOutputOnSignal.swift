import SoundCompass
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM or SIGHUP while a ``StagedOutput`` is being written by a command that does
/// not stop cleanly on a signal (`analyze -o`, `synth`): the handler renames the temporary file
/// to `PATH.partial`, says so on stderr, and ends the process by the signal as before. `PATH`
/// itself is left as it was.
enum PartialOutputOnSignal {
    /// The temporary file, where it goes, and the line to print: C strings made before the
    /// handler can run (a handler may not allocate), freed by ``disarm()``.
    nonisolated(unsafe) private static var temporary: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var partial: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?

    /// Keeps `output`'s temporary file as partial should a signal end the process.
    static func arm(_ output: StagedOutput) {
        guard output.temporaryPath != nil else { return }
        withSignalsBlocked {
            prepare(output, saying: "interrupted")
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { PartialOutputOnSignal.keepAndEnd($0) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            for (i, s) in signals.enumerated() {
                // A signal the process was started ignoring (a background job of a script ignores
                // SIGINT) stays ignored; the others get the handler, their previous action kept.
                sigaction(s, nil, &previousActions[i])
                let handler = previousActions[i].__sigaction_handler.sa_handler
                if unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
                sigaction(s, &action, nil)
            }
        }
        // A parent may have started us with these blocked (test runners do).
        var blocked = signalSet()
        sigprocmask(SIG_UNBLOCK, &blocked, nil)
    }

    /// For a command whose first signal stops it cleanly (`live -o`): should the stop hang and
    /// a second signal end the process, that signal keeps `output`'s temporary file as partial
    /// instead of leaving it hidden. ``Interrupt``'s handler, on the first signal, hands the next
    /// ones to ``keepAndEnd(_:)`` while this is armed.
    static func armForSecondSignal(_ output: StagedOutput) {
        guard output.temporaryPath != nil else { return }
        withSignalsBlocked {
            prepare(output, saying: "interrupted again")
            secondSignalArmed.store(true, ordering: .relaxed)
        }
    }

    /// The output of ``armForSecondSignal(_:)`` is committed or kept: a second signal ends the
    /// process as before.
    static func disarmSecondSignal() {
        withSignalsBlocked {
            secondSignalArmed.store(false, ordering: .relaxed)
            release()
        }
    }

    /// Whether ``armForSecondSignal(_:)`` holds an output. Read by ``Interrupt``'s handler.
    static let secondSignalArmed = Atomic<Bool>(false)

    /// A signal handler's body: renames the temporary file to partial (saying so on stderr),
    /// then ends the process by `signalNumber`. Allocates nothing.
    static func keepAndEnd(_ signalNumber: Int32) {
        if let from = temporary, let to = partial, rename(from, to) == 0, let line = message {
            _ = write(2, line, strlen(line))
        }
        signal(signalNumber, SIG_DFL)
        raise(signalNumber)
    }

    /// Makes the handler's C strings for `output` (called with the signals blocked).
    private static func prepare(_ output: StagedOutput, saying what: String) {
        release()
        temporary = output.temporaryPath.map { strdup($0) }
        partial = strdup(output.partialPath)
        message = strdup("soundcompass: \(what); what was written so far is in \(Diagnostics.escaped(output.partialPath))\n")
    }

    /// ``signals`` as a set.
    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        return set
    }

    /// Runs `body` with ``signals`` blocked, so that a handler never sees the strings half made.
    private static func withSignalsBlocked(_ body: () -> Void) {
        var blocked = signalSet(), previous = sigset_t()
        sigprocmask(SIG_BLOCK, &blocked, &previous)
        body()
        sigprocmask(SIG_SETMASK, &previous, nil)
    }

    /// The output is complete or dealt with: signals act as they did before ``arm(_:)``.
    static func disarm() {
        for (i, s) in signals.enumerated() { sigaction(s, &previousActions[i], nil) }
        release()
    }

    /// The signals that keep the output as partial.
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// Their actions before ``arm(_:)``, restored by ``disarm()``.
    nonisolated(unsafe) private static var previousActions: [sigaction] = Array(repeating: sigaction(), count: 3)

    private static func release() {
        free(temporary); free(partial); free(message)
        temporary = nil; partial = nil; message = nil
    }
}
