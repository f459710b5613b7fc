import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A persistent pool of worker threads for data-parallel kernels.
///
/// Matrix products split their output rows across the pool with ``parallelFor(_:_:)``. The
/// workers are created once and live as long as the pool; between jobs they spin briefly (a
/// decode step issues hundreds of small jobs back to back) and then sleep on a condition
/// variable, so an idle pool costs no CPU.
///
/// ```swift
/// let pool = ThreadPool(threads: 2)
/// pool.parallelFor(rows) { range in /* compute rows in range */ }
/// ```
///
/// The pool runs one job at a time; calls from several threads at once are serialized.
public final class ThreadPool: @unchecked Sendable {
    /// Number of threads that execute a job, the calling thread included.
    public let threadCount: Int

    private let lock = NSCondition()
    private let submitLock = NSLock()
    private let generation = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    private var job: ((Int) -> Void)?
    private var shuttingDown = false
    private let exited = Atomic<Int>(0)

    /// The number of cores this process may use.
    public static var defaultThreadCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// A pool shared by code that does not manage its own, sized to the machine's cores.
    public static let shared = ThreadPool(threads: defaultThreadCount)

    /// Creates a pool.
    ///
    /// - Parameter threads: Threads that run each job, including the caller's; values below 1
    ///   are treated as 1. Default: one per core.
    public init(threads: Int = ThreadPool.defaultThreadCount) {
        threadCount = max(1, threads)
        for index in 1..<threadCount {
            // unowned(unsafe): deinit waits for every worker to leave before memory is freed.
            let thread = Thread { [unowned(unsafe) self] in
                self.workerLoop(index: index)
                self.exited.add(1, ordering: .releasing)
            }
            thread.name = "pocket-worker-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    deinit {
        lock.lock()
        shuttingDown = true
        generation.add(1, ordering: .sequentiallyConsistent)
        lock.broadcast()
        lock.unlock()
        while exited.load(ordering: .acquiring) < threadCount - 1 { sched_yield() }
    }

    /// Runs `body(worker)` once on each of the pool's threads and returns when all have finished.
    ///
    /// - Parameter body: Called with the worker index, `0..<threadCount`; index 0 is the caller.
    public func run(_ body: @escaping (Int) -> Void) {
        if threadCount == 1 { body(0); return }
        submitLock.lock()
        defer { submitLock.unlock() }
        lock.lock()
        job = body
        pending.store(threadCount - 1, ordering: .sequentiallyConsistent)
        generation.add(1, ordering: .sequentiallyConsistent)
        lock.broadcast()
        lock.unlock()
        body(0)
        // Workers finish within microseconds of the caller on balanced jobs: spin, then yield.
        var spins = 0
        while pending.load(ordering: .acquiring) != 0 {
            spins += 1
            if spins > 1000 { sched_yield() }
        }
        job = nil
    }

    /// Splits `0..<count` into one contiguous chunk per thread and runs `body` on each chunk.
    ///
    /// - Parameters:
    ///   - count: Number of items (e.g. output rows).
    ///   - body: Processes one chunk; never called with an empty range.
    public func parallelFor(_ count: Int, _ body: @escaping (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let threads = min(threadCount, count)
        if threads == 1 { body(0..<count); return }
        run { worker in
            guard worker < threads else { return }
            let start = count * worker / threads
            let end = count * (worker + 1) / threads
            if start < end { body(start..<end) }
        }
    }

    private func workerLoop(index: Int) {
        var seen = 0
        while true {
            // Spin for a short while: decode issues jobs every few microseconds.
            var spins = 0
            while generation.load(ordering: .acquiring) == seen && spins < 20_000 { spins += 1 }
            if generation.load(ordering: .acquiring) == seen {
                lock.lock()
                while generation.load(ordering: .acquiring) == seen && !shuttingDown { lock.wait() }
                lock.unlock()
            }
            lock.lock()
            let stop = shuttingDown
            let body = job
            lock.unlock()
            if stop { return }
            seen = generation.load(ordering: .acquiring)
            body?(index)
            pending.subtract(1, ordering: .releasing)
        }
    }
}
