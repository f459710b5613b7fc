import Dispatch

/// The thread a session's model work runs on: a serial dispatch queue of its own, outside
/// Swift's cooperative thread pool.
///
/// Generating a response is synchronous, CPU-bound work that lasts seconds. Run on the
/// cooperative pool (one thread per core), two sessions generating at once would occupy every
/// thread of a two-core machine and stall all other tasks. The session instead runs its model
/// calls under this executor's preference (`withTaskExecutorPreference`): the call still runs
/// inside the calling task, so `Task.checkCancellation()` in the generation loop sees the
/// caller's cancellation and stops within one token, and the caller's thread is free
/// while it waits.
///
/// The queue is serial, so it also orders the session's calls into its model's executor: a request
/// that starts while an abandoned one is still stopping waits for it here, and ``LanguageModelSession/prewarm(promptPrefix:)``
/// runs here too.
final class EngineExecutor: TaskExecutor {
    /// The serial queue jobs run on.
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
