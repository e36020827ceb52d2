#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Builds a patch round's patches: what ``ClassificationWorker`` runs before the forward passes.
protocol PatchRoundBuilder: AnyObject {
    /// Builds the round's patches (on the worker's thread, with what the round's plan holds).
    /// - Returns: the patches, `96 × 64` log-mel values each, and how many.
    func buildRound() -> (patches: UnsafePointer<Float>, count: Int)
}

/// Builds a round's patches and runs YAMNet's forward passes on a thread of its own, so that a
/// live capture thread never waits for either (``SourceLabeler`` with `asynchronous: true`).
///
/// One job at a time: the owner plans a round, ``submit(_:)``s its builder, goes on with its own
/// work, and polls ``isDone`` (a lock and a load); once done it reads the results from the
/// classifier (``SoundClassifier/scores(ofPatch:into:)``) and calls ``collect()`` before it
/// submits again. Between `submit` and `collect` the owner must not touch what the builder
/// reads (the round's plan and snapshot), its patches, nor the classifier's network; the worker
/// touches nothing else. No allocation after `init`.
final class ClassificationWorker: @unchecked Sendable {
    private enum State { case idle, running, done }

    private let classifier: SoundClassifier
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    private var thread = pthread_t()
    /// Guarded by `lock`.
    private var state = State.idle
    private var stopping = false
    private var builder: (any PatchRoundBuilder)?
    /// Microseconds the thread waits after each round before it reports it done: a machine too
    /// slow for the rounds, for tests (0 in use). Guarded by `lock`.
    private var slowness: UInt32 = 0

    /// Starts the thread.
    /// - Parameter classifier: the classifier whose network the thread runs.
    init(classifier: SoundClassifier) {
        self.classifier = classifier
        lock = .allocate(capacity: 1)
        wake = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            let worker = Unmanaged<ClassificationWorker>.fromOpaque(context!).takeRetainedValue()
            worker.run()
            return nil
        }, context)
        precondition(started == 0, "cannot start the classifier's thread (errno \(started))")
    }

    deinit {
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        wake.deallocate()
        lock.deallocate()
    }

    /// Ends the thread once its current batch (if any) is done, and waits for it.
    func stop() {
        pthread_mutex_lock(lock)
        stopping = true
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
        pthread_join(thread, nil)
    }

    /// Makes every round take at least `microseconds` more (tests: a machine too slow for a
    /// round every 0.48 s).
    func slowDown(by microseconds: UInt32) {
        pthread_mutex_lock(lock)
        slowness = microseconds
        pthread_mutex_unlock(lock)
    }

    /// The worker holds no batch: the owner may build and submit one.
    var isIdle: Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return state == .idle
    }

    /// The submitted batch has been classified: its results are in the classifier.
    var isDone: Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return state == .done
    }

    /// Hands a round to the thread: it builds the patches, then classifies them.
    /// - Precondition: ``isIdle``.
    func submit(_ builder: any PatchRoundBuilder) {
        pthread_mutex_lock(lock)
        precondition(state == .idle, "a batch is already submitted")
        self.builder = builder
        state = .running
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
    }

    /// The owner has read the results: the worker is idle again.
    /// - Precondition: ``isDone``.
    func collect() {
        pthread_mutex_lock(lock)
        precondition(state == .done, "no batch is done")
        state = .idle
        pthread_mutex_unlock(lock)
    }

    private func run() {
        pthread_mutex_lock(lock)
        while true {
            while state != .running && !stopping { pthread_cond_wait(wake, lock) }
            if stopping { break }
            let builder = self.builder!, slowness = self.slowness
            pthread_mutex_unlock(lock)
            let batch = builder.buildRound()
            classifier.classify(patches: batch.patches, count: batch.count)
            if slowness > 0 { usleep(slowness) }
            pthread_mutex_lock(lock)
            self.builder = nil
            state = .done
        }
        pthread_mutex_unlock(lock)
    }
}
