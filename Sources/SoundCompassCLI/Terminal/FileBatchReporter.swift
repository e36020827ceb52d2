import Synchronization

/// What a worker of `analyze --jobs` would write on stderr while it analyses one file,
/// collected so that each file's lines come out together and in command-line order.
final class DiagnosticsCapture: Sendable {
    private let text = Mutex<String>("")

    func append(_ line: String) { text.withLock { $0 += line } }

    /// Everything collected so far.
    var contents: String { text.withLock { $0 } }
}

extension Diagnostics {
    /// Where ``Diagnostics/write(_:)`` goes on this thread instead of stderr (`nil`: stderr).
    @TaskLocal static var capture: DiagnosticsCapture?
}

/// The stderr of `analyze` on several files: one progress bar over the audio of all the files
/// (drawn by whichever worker reports, at most ten times a second, on a terminal only), and
/// each file's diagnostics printed as a block once it and every file before it are done.
/// Safe to call from any thread.
final class FileBatchReporter: Sendable {
    private struct State {
        var bar: ProgressBar
        var done: [Double]
        var doneTotal = 0.0
        var blocks: [String?]
        var nextToPrint = 0
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - fileCount: the files, in command-line order.
    ///   - totalSeconds: audio in all of them, seconds (`nil`: unknown, no bar).
    ///   - enabled: whether to draw the bar (stderr is a terminal, no `-q`).
    init(fileCount: Int, totalSeconds: Double?, enabled: Bool) {
        let bar = ProgressBar(
            totalFrames: totalSeconds.map { Int(($0 * 1000).rounded()) }, sampleRate: 1000, enabled: enabled)
        state = Mutex(State(bar: bar, done: Array(repeating: 0, count: fileCount), blocks: Array(repeating: nil, count: fileCount)))
    }

    /// File `index` has been analysed up to `seconds` of its audio.
    func progress(file index: Int, seconds: Double) {
        Diagnostics.$capture.withValue(nil) {
            state.withLock { state in
                state.doneTotal += seconds - state.done[index]
                state.done[index] = seconds
                state.bar.update(Int((state.doneTotal * 1000).rounded()))
            }
        }
    }

    /// File `index` is done; `diagnostics` is what it has to say on stderr. Prints it, and the
    /// blocks of later files that waited for it.
    func finished(file index: Int, diagnostics: String) {
        Diagnostics.$capture.withValue(nil) {
            state.withLock { state in
                state.blocks[index] = diagnostics
                while state.nextToPrint < state.blocks.count, let block = state.blocks[state.nextToPrint] {
                    if !block.isEmpty {
                        state.bar.finish()
                        Diagnostics.write(standardErrorColumns().map { wrapLines(block, columns: $0) } ?? block)
                    }
                    state.blocks[state.nextToPrint] = ""
                    state.nextToPrint += 1
                }
            }
        }
    }

    /// Clears the bar.
    func finish() {
        Diagnostics.$capture.withValue(nil) { state.withLock { $0.bar.finish() } }
    }
}
