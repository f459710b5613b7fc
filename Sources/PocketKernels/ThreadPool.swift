import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A persistent pool of worker threads for data-parallel kernels.
///
/// Data-parallel work splits its items across the pool with ``parallelFor(_:_:)`` (equal
/// chunks) or, for the quantized matrix products, ``balancedFor(_:key:reading:grain:_:)``
/// (chunks sized by each thread's measured speed). The workers are created once and live as long as the pool; between jobs they spin briefly (a
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
    /// Incremented once per job (after `job` is set): what a worker waits on.
    private let generation = Atomic<Int>(0)
    /// Workers still running the current job.
    private let pending = Atomic<Int>(0)
    /// Workers waiting on `lock` (or about to): the submitter wakes them only if there are any.
    private let sleepers = Atomic<Int>(0)
    /// The current job: written by the submitter before `generation` moves, read by the workers
    /// after they see it move, cleared after `pending` reaches zero.
    private var job: ((Int) -> Void)?
    private let shuttingDown = Atomic<Bool>(false)
    private let exited = Atomic<Int>(0)
    /// ``balancedFor(_:key:reading:grain:_:)``'s state, used under `submitLock`: per key (a slot of
    /// `threadCount` values) each thread's speed relative to the others (mean 1), the
    /// nanoseconds each thread's chunk of the last job took (written by the thread before it
    /// reports done), and the chunk boundaries (`threadCount + 1`).
    private let speeds: UnsafeMutablePointer<Double>
    private var speedSlots: [UnsafeRawPointer: Int] = [:]
    private let elapsed: UnsafeMutablePointer<UInt64>
    /// The items each thread processed in the last balanced job (written as `elapsed`).
    private let processed: UnsafeMutablePointer<Int>
    /// What is left of each thread's chunk in the current balanced job.
    private let pieces: ChunkCursors
    /// This job's chunk boundaries, then the next keyed job's (for cache warming).
    private let bounds: UnsafeMutablePointer<Int>
    /// What the workers load into their caches between jobs (`ThreadPool+CacheWarming.swift`).
    private let warming: WarmingPlans

    /// Checks of `generation` a waiting worker makes before it starts yielding between checks.
    private static let workerSpins = 20_000
    /// How long a waiting worker keeps checking (yielding the CPU between checks, so that other
    /// threads on a busy machine run) before it sleeps.
    private static let workerPollNanoseconds: UInt64 = 2_000_000
    /// Checks of `pending` the submitter makes before it yields the CPU between checks.
    private static let submitterSpins = 100_000

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
        speeds = .allocate(capacity: (Self.balancingKeys + 1) * threadCount)
        speeds.initialize(repeating: 1, count: (Self.balancingKeys + 1) * threadCount)
        elapsed = .allocate(capacity: threadCount)
        elapsed.initialize(repeating: 0, count: threadCount)
        processed = .allocate(capacity: threadCount)
        processed.initialize(repeating: 0, count: threadCount)
        pieces = ChunkCursors(threads: threadCount)
        bounds = .allocate(capacity: 2 * (threadCount + 1))
        bounds.initialize(repeating: 0, count: 2 * (threadCount + 1))
        warming = WarmingPlans(slots: Self.balancingKeys + 1, threads: threadCount)
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
        shuttingDown.store(true, ordering: .sequentiallyConsistent)
        generation.add(1, ordering: .sequentiallyConsistent)
        lock.broadcast()
        lock.unlock()
        while exited.load(ordering: .acquiring) < threadCount - 1 { sched_yield() }
        speeds.deallocate()
        elapsed.deallocate()
        processed.deallocate()
        bounds.deallocate()
    }

    /// Runs `body(worker)` once on each of the pool's threads and returns when all have finished.
    ///
    /// - Parameter body: Called with the worker index, `0..<threadCount`; index 0 is the caller.
    public func run(_ body: @escaping (Int) -> Void) {
        if threadCount == 1 { body(0); return }
        submitLock.lock()
        defer { submitLock.unlock() }
        runLocked(body)
    }

    /// ``run(_:)`` for a caller that holds `submitLock`.
    private func runLocked(_ body: @escaping (Int) -> Void) {
        job = body
        pending.store(threadCount - 1, ordering: .sequentiallyConsistent)
        generation.add(1, ordering: .sequentiallyConsistent)
        // A worker that went to sleep registered first (under the lock, before its last check of
        // `generation`), so either it sees the new generation or this sees it asleep.
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            lock.lock()
            lock.broadcast()
            lock.unlock()
        }
        body(0)
        // Workers finish within microseconds of the caller on balanced jobs: spin, then yield.
        var spins = 0
        while pending.load(ordering: .acquiring) != 0 {
            spins += 1
            if spins > Self.submitterSpins { sched_yield() }
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

    /// Splits `0..<count` into one contiguous chunk per thread, sized by how fast each thread
    /// was on earlier balanced jobs, and runs `body` on pieces of the chunks; a thread that
    /// has finished its own chunk takes pieces from the end of the others'.
    ///
    /// An addition for jobs that stream memory (the matrix products). On a shared machine one
    /// core can be slower than the other for seconds at a time (another tenant, the
    /// hypervisor); with fixed chunks the faster thread then waits at the end of every job.
    /// Each balanced job times every thread's work and moves the threads' speeds an eighth of
    /// the way towards what it measured, so that later chunks finish together. Speeds are
    /// learned per `key`: the same threads can be unevenly fast on different data (a decode
    /// step's matrices each lean their own way, by a few percent), and each matrix runs once
    /// per token. What learning cannot foresee (a core slowed down in the middle of a job, a
    /// prefill's product that runs once) the taking of pieces evens out: each thread works
    /// through its chunk from the front, `grain` items at a time, and then takes pieces from
    /// the back of a chunk that is not finished yet; near the end of a chunk the pieces shrink
    /// to half of what is left, so that the threads finish close together. Which thread
    /// computes an item never changes its result.
    ///
    /// - Parameters:
    ///   - count: Number of items, of about equal cost.
    ///   - key: What the job works on (a matrix's address); jobs with the same key share their
    ///     learned speeds. `nil` jobs share one set.
    ///   - itemBytes: The memory the items read, for a job with a key that recurs in a fixed
    ///     sequence of jobs (a decode step's products): after it, each worker loads the start
    ///     of its chunk of the keyed job that came next last time into its cache
    ///     (`ThreadPool+CacheWarming.swift`). That memory must stay valid until
    ///     ``forgetWarming()``. `nil`: no cache warming.
    ///   - grain: Items per piece at most (at least 1). `nil` (the default): each thread
    ///     processes its own chunk in one piece and takes nothing from the others.
    ///   - alignment: The threads' chunks start at multiples of it (the default, 1: anywhere).
    ///     With a `grain` that is a multiple of it too, every piece but the last of the job
    ///     starts and ends on such a multiple (the lattice formats' prompts expand sixteen rows
    ///     at a time).
    ///   - body: Processes one piece; never called with an empty range, and on any thread.
    public func balancedFor(
        _ count: Int, key: UnsafeRawPointer? = nil, reading itemBytes: ItemBytes? = nil, grain: Int? = nil,
        alignment: Int = 1, _ body: @escaping (Range<Int>) -> Void
    ) {
        guard count > 0 else { return }
        let threads = min(threadCount, count)
        if threads == 1 { body(0..<count); return }
        submitLock.lock()
        defer { submitLock.unlock() }
        let slot = slot(for: key)
        let speeds = speeds + slot * threadCount
        let bounds = bounds, elapsed = elapsed, processed = processed, pieces = pieces
        let grain = grain.map { max(1, $0) }, threadCount = threadCount, alignment = max(1, alignment)
        chunkBounds(count, speeds: speeds, into: bounds, alignment: alignment)
        if grain != nil { for worker in 0..<threadCount { pieces.chunk(worker).store(bounds[worker], bounds[worker + 1]) } }
        planWarming(slot: slot, count: count, reading: itemBytes)
        runLocked { worker in
            guard worker < threads else { return }
            let begin = DispatchTime.now().uptimeNanoseconds
            var items = 0
            if let grain {
                // Its own chunk from the front, then the others', nearest first, from the back.
                for step in 0..<threadCount {
                    let chunk = pieces.chunk((worker + step) % threadCount)
                    while let piece = chunk.take(grain, fromBack: step > 0, alignment: alignment) {
                        body(piece)
                        items += piece.count
                    }
                }
            } else {
                let start = bounds[worker], end = bounds[worker + 1]
                if start < end { body(start..<end) }
                items = end - start
            }
            processed[worker] = items
            elapsed[worker] = DispatchTime.now().uptimeNanoseconds - begin
        }
        learnSpeeds(speeds, threads: threads)
    }

    /// Fills `bounds[0...threadCount]` with the chunk boundaries of `count` items for threads
    /// of relative `speeds`: thread i ends where the speeds of threads 0…i add up to, and
    /// threads past the item count get empty chunks. Boundaries inside are rounded to the
    /// nearest multiple of `alignment`.
    private func chunkBounds(_ count: Int, speeds: UnsafeMutablePointer<Double>, into bounds: UnsafeMutablePointer<Int>, alignment: Int) {
        let threads = min(threadCount, count)
        var total = 0.0
        for i in 0..<threads { total += speeds[i] }
        var running = 0.0
        bounds[0] = 0
        for i in 0..<(threads - 1) {
            running += speeds[i]
            let share = Double(count) * running / total / Double(alignment)
            bounds[i + 1] = min(count, Int(share.rounded()) * alignment)
        }
        for i in (threads - 1)..<threadCount { bounds[i + 1] = count }
    }

    /// Tells each worker what to load into its cache once it has finished its part of this job
    /// (of `slot`, `count` items reading `itemBytes`): the start of its chunk of the keyed job
    /// that followed this one last time, with that job's learned split. Jobs without
    /// `itemBytes` or a key plan nothing.
    private func planWarming(slot: Int, count: Int, reading itemBytes: ItemBytes?) {
        warming.clearPlans()
        guard let itemBytes, slot > 0, let next = warming.record(slot: slot, count: count, reading: itemBytes),
              next.count > 1 else { return }
        let nextBounds = bounds + threadCount + 1
        chunkBounds(next.count, speeds: speeds + next.slot * threadCount, into: nextBounds, alignment: 1)
        for worker in 1..<threadCount {
            warming.plan(worker: worker, items: nextBounds[worker]..<nextBounds[worker + 1], ofSlot: next.slot)
        }
    }

    /// Stops the workers from warming their caches and forgets what every job read (an
    /// addition).
    ///
    /// Call it before freeing memory that a job passed to ``balancedFor(_:key:reading:grain:_:)``
    /// reads: until then an idle worker may load the start of it. When this returns, no worker
    /// is loading any.
    public func forgetWarming() {
        guard threadCount > 1 else { return }
        submitLock.lock()
        defer { submitLock.unlock() }
        warming.forget()
        // An empty job: each worker stops warming (it checks for a new job every 4 KB),
        // runs it and picks up the cleared plan before this returns.
        runLocked { _ in }
    }

    /// The memory thread `worker` was told to load into its cache after the last job (one or
    /// two stretches; empty if none): a diagnostic for tests.
    public func warmingPlan(of worker: Int) -> [UnsafeRawBufferPointer] {
        submitLock.lock()
        defer { submitLock.unlock() }
        let plan = warming.plan(of: worker)
        return [plan.first, plan.second].filter { $0.count > 0 }.map {
            UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: $0.start), count: $0.count)
        }
    }

    /// Keys with speeds of their own; later keys share slot 0 with `nil`.
    private static let balancingKeys = 1024

    /// The slot of `key`'s speeds, allocated on first use (under `submitLock`).
    private func slot(for key: UnsafeRawPointer?) -> Int {
        guard let key else { return 0 }
        if let slot = speedSlots[key] { return slot }
        guard speedSlots.count < Self.balancingKeys else { return 0 }
        speedSlots[key] = speedSlots.count + 1
        return speedSlots.count
    }

    /// Chunks shorter than this say little about a thread's speed (a decode step's attention
    /// output projection is about 10 µs).
    private static let balancingMinimumNanoseconds: UInt64 = 20_000
    /// How far one job moves the learned speeds towards what it measured.
    private static let balancingStep = 0.125

    /// Moves `speeds` (one key's) towards the items per nanosecond each thread achieved on the
    /// last balanced job (its own chunk's and those it took from others), relative to their
    /// mean. A job where a thread processed nothing or worked too briefly is skipped.
    private func learnSpeeds(_ speeds: UnsafeMutablePointer<Double>, threads: Int) {
        var sum = 0.0
        for i in 0..<threads {
            let items = processed[i]
            guard items > 0, elapsed[i] >= Self.balancingMinimumNanoseconds else { return }
            sum += Double(items) / Double(elapsed[i])
        }
        let mean = sum / Double(threads)
        for i in 0..<threads {
            let measured = Double(processed[i]) / Double(elapsed[i]) / mean
            // Bounded, so that a disturbed job cannot starve a thread.
            speeds[i] = min(2, max(0.5, speeds[i] + Self.balancingStep * (measured - speeds[i])))
        }
    }

    /// The share of the items of a balanced job with `key` that thread `worker` would get now:
    /// a diagnostic for tests and benchmarks. A key no job has used yet gets an equal share.
    public func balancedShare(of worker: Int, key: UnsafeRawPointer? = nil) -> Double {
        submitLock.lock()
        defer { submitLock.unlock() }
        let slot = key.map { speedSlots[$0] ?? -1 } ?? 0
        guard slot >= 0 else { return 1 / Double(threadCount) }
        let speeds = speeds + slot * threadCount
        var total = 0.0
        for i in 0..<threadCount { total += speeds[i] }
        return speeds[worker] / total
    }

    private func workerLoop(index: Int) {
        var seen = 0
        // What this worker loads into its cache before it waits for the next job.
        var warmingCursor = WarmingCursor()
        while true {
            if !warmingCursor.isDone {
                let current = seen
                warming.warm(worker: index, &warmingCursor) { generation.load(ordering: .relaxed) == current }
            }
            // Spin, then poll with yields for a while: decode issues jobs every few
            // microseconds, with serial work between them; waking from a sleep takes longer.
            var spins = 0
            while generation.load(ordering: .acquiring) == seen && spins < Self.workerSpins { spins += 1 }
            if generation.load(ordering: .acquiring) == seen {
                let deadline = DispatchTime.now().uptimeNanoseconds + Self.workerPollNanoseconds
                while generation.load(ordering: .acquiring) == seen && DispatchTime.now().uptimeNanoseconds < deadline {
                    sched_yield()
                }
            }
            if generation.load(ordering: .acquiring) == seen {
                lock.lock()
                sleepers.add(1, ordering: .sequentiallyConsistent)
                while generation.load(ordering: .sequentiallyConsistent) == seen
                    && !shuttingDown.load(ordering: .sequentiallyConsistent) { lock.wait() }
                sleepers.subtract(1, ordering: .sequentiallyConsistent)
                lock.unlock()
            }
            if shuttingDown.load(ordering: .acquiring) { return }
            // The generation cannot move again until this worker has finished the job.
            seen = generation.load(ordering: .acquiring)
            job?(index)
            // The plan for after this job, read before the job is reported done.
            warmingCursor.adopt(warming.plan(of: index))
            pending.subtract(1, ordering: .releasing)
        }
    }
}
