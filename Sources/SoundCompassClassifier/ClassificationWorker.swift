#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs YAMNet's forward passes on a thread of its own, so that a live capture thread never
/// waits for them (``SourceLabeler`` with `asynchronous: true`).
///
/// One job at a time: the owner ``submit(patches:count:)``s a batch of patches, goes on with its
/// own work, and polls ``isDone`` (a lock and a load); once done it reads the results from the
/// classifier (``SoundClassifier/scores(ofPatch:into:)``) and calls ``collect()`` before it
/// submits again. Between `submit` and `collect` the owner must not touch the patches nor call
/// the classifier's network; the worker touches nothing else. No allocation after `init`.
final class ClassificationWorker: @unchecked Sendable {
    private enum State { case idle, running, done }

    private let classifier: SoundClassifier
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    private var thread = pthread_t()
    /// Guarded by `lock`.
    private var state = State.idle
    private var stopping = false
    private var patches: UnsafePointer<Float>?
    private var count = 0

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

    /// Hands a batch to the thread.
    /// - Precondition: ``isIdle``.
    func submit(patches: UnsafePointer<Float>, count: Int) {
        pthread_mutex_lock(lock)
        precondition(state == .idle, "a batch is already submitted")
        self.patches = patches
        self.count = count
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
            let patches = self.patches!, count = self.count
            pthread_mutex_unlock(lock)
            classifier.classify(patches: patches, count: count)
            pthread_mutex_lock(lock)
            state = .done
        }
        pthread_mutex_unlock(lock)
    }
}
