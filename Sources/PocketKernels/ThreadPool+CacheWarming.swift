// Cache warming: an idle worker loads the start of its next chunk into its own cache, with
// plain loads (not prefetch instructions: those are ``ColumnPrefetch``'s, inside the products).
//
// A decode step alternates matrix products (both threads stream weights) with serial work on the
// calling thread (norms, RoPE, quantizing the next input), during which memory would sit idle.
// The same keyed jobs follow each other in the same order every token, so the pool learns which
// job comes next and where each worker's chunk of it will start; a worker that has finished its
// part of a job loads that start until the next job is published. When the job comes, those
// weights are in its cache and its chunk finishes sooner;
// ``ThreadPool/balancedFor(_:key:reading:grain:_:)`` then gives it a larger share. Measured on
// Qwen2.5-Coder-0.5B decode, one process alternating with and without: 2.5–3.5% more tokens/s
// (`docs/kernels.md`, "Thread pool").

extension ThreadPool {
    /// The memory the items of a balanced job read, for cache warming (an addition): up to
    /// three runs of items in item order, each run of equally sized items one after another.
    ///
    /// ```swift
    /// var bytes = ThreadPool.ItemBytes()
    /// bytes.append(start: gate.storage, bytesPerItem: gate.rowBytes, items: gate.rows)
    /// bytes.append(start: up.storage, bytesPerItem: up.rowBytes, items: up.rows)
    /// ```
    public struct ItemBytes: Sendable {
        private var starts: (Int, Int, Int) = (0, 0, 0)
        private var strides: (Int, Int, Int) = (0, 0, 0)
        private var counts: (Int, Int, Int) = (0, 0, 0)

        /// No runs.
        public init() {}

        /// Appends a run of `items` items of `bytesPerItem` bytes each, from `start`.
        ///
        /// - Precondition: fewer than three runs so far.
        public mutating func append(start: UnsafeRawPointer, bytesPerItem: Int, items: Int) {
            let run = (Int(bitPattern: start), bytesPerItem, max(items, 0))
            if counts.0 == 0 { (starts.0, strides.0, counts.0) = run }
            else if counts.1 == 0 { (starts.1, strides.1, counts.1) = run }
            else {
                precondition(counts.2 == 0, "at most three runs")
                (starts.2, strides.2, counts.2) = run
            }
        }

        /// The first `limit` bytes that `items` read, in item order: a stretch in the run
        /// where they start and, if they go on into the next run, one from its start.
        func firstBytes(of items: Range<Int>, limit: Int) -> WarmingPlan {
            var plan = WarmingPlan(), first = items.lowerBound, end = items.upperBound, left = limit
            for run in 0..<3 where first < end && left > 0 {
                let (start, stride, count) = run == 0 ? (starts.0, strides.0, counts.0)
                    : run == 1 ? (starts.1, strides.1, counts.1) : (starts.2, strides.2, counts.2)
                if first < count {
                    let length = min((min(end, count) - first) * stride, left)
                    if plan.first.count == 0 { plan.first = (start + first * stride, length) }
                    else { plan.second = (start + first * stride, length); break }
                    left -= length
                    first = count
                }
                first -= count
                end -= count
            }
            return plan
        }
    }
}

/// What a worker loads into its cache: up to two stretches of memory (addresses and byte counts).
struct WarmingPlan: Equatable {
    var first: (start: Int, count: Int) = (0, 0)
    var second: (start: Int, count: Int) = (0, 0)

    static func == (a: Self, b: Self) -> Bool { a.first == b.first && a.second == b.second }
}

/// A worker's progress through its plan: its next address and the end of the stretch it is in.
struct WarmingCursor {
    private(set) var plan = WarmingPlan()
    private var inSecond = false
    private var next = 0, end = 0

    /// Whether there is nothing left to read.
    var isDone: Bool { next >= end }

    /// Takes `newPlan` for the next idle time: the same plan resumes where it stopped, a
    /// different one starts over.
    mutating func adopt(_ newPlan: WarmingPlan) {
        guard newPlan != plan else { return }
        plan = newPlan
        inSecond = false
        next = plan.first.start & ~63
        end = plan.first.count > 0 ? plan.first.start + plan.first.count : 0
    }

    /// Loads one byte of every cache line of the plan's stretches into this core's caches while
    /// `keepGoing` holds (checked every 4 KB); returns the bytes summed, for a sink.
    mutating func warm(while keepGoing: () -> Bool) -> UInt8 {
        var sum: UInt8 = 0
        while next < end {
            let stop = min(end, next + 4096)
            while next < stop {
                sum &+= UnsafeRawPointer(bitPattern: next)!.load(as: UInt8.self)
                next += 64
            }
            if next >= end && !inSecond && plan.second.count > 0 {
                inSecond = true
                next = plan.second.start & ~63
                end = plan.second.start + plan.second.count
            }
            if !keepGoing() { break }
        }
        return sum
    }
}

/// The pool's cache-warming state: what each keyed job reads, which keyed job followed it last
/// time, and each worker's plan for the next job. Changed only under the pool's submit lock;
/// a worker reads its plan after running a job and before reporting it done, so the submitter
/// cannot rewrite it at the same time.
final class WarmingPlans {
    /// Bytes a worker loads at most: about half of a core's L2 cache here, which covers a
    /// decode step's serial gaps at one thread's streaming rate and stays cached until the job
    /// starts (256 KB, 512 KB and 1 MB measured the same on Qwen decode).
    static let limit = 512 << 10

    private let slots: Int
    private let bytes: UnsafeMutablePointer<ThreadPool.ItemBytes>
    private let counts: UnsafeMutablePointer<Int>
    /// The slot of the keyed job that came after each slot's last time (0: none known).
    private let successors: UnsafeMutablePointer<Int>
    private var lastSlot = 0
    /// Per thread: what to load after the current job.
    private let plans: UnsafeMutablePointer<WarmingPlan>
    /// Per thread: where the bytes loaded are summed to, so the loads are not optimized away.
    private let sinks: UnsafeMutablePointer<UInt8>
    private let threads: Int

    init(slots: Int, threads: Int) {
        self.slots = slots
        self.threads = threads
        bytes = .allocate(capacity: slots)
        bytes.initialize(repeating: ThreadPool.ItemBytes(), count: slots)
        counts = .allocate(capacity: slots)
        counts.initialize(repeating: 0, count: slots)
        successors = .allocate(capacity: slots)
        successors.initialize(repeating: 0, count: slots)
        plans = .allocate(capacity: threads)
        plans.initialize(repeating: WarmingPlan(), count: threads)
        sinks = .allocate(capacity: threads)
        sinks.initialize(repeating: 0, count: threads)
    }

    deinit {
        bytes.deallocate()
        counts.deallocate()
        successors.deallocate()
        plans.deallocate()
        sinks.deallocate()
    }

    /// Records that a job of `slot` (a key's own slot, not 0) with `count` items reading
    /// `itemBytes` runs now, after the previous recorded one; returns the slot and item count
    /// of the job that followed it last time, if known.
    func record(slot: Int, count: Int, reading itemBytes: ThreadPool.ItemBytes) -> (slot: Int, count: Int)? {
        successors[lastSlot] = slot
        lastSlot = slot
        bytes[slot] = itemBytes
        counts[slot] = count
        let next = successors[slot]
        return next > 0 ? (next, counts[next]) : nil
    }

    /// Plans for `worker` to load the start of `items` of the job in `slot`.
    func plan(worker: Int, items: Range<Int>, ofSlot slot: Int) {
        plans[worker] = bytes[slot].firstBytes(of: items, limit: Self.limit)
    }

    /// No worker loads anything after the next job.
    func clearPlans() {
        for w in 0..<threads { plans[w] = WarmingPlan() }
    }

    /// Forgets every job's bytes and successor, and every plan.
    func forget() {
        clearPlans()
        for s in 0..<slots { successors[s] = 0; counts[s] = 0; bytes[s] = ThreadPool.ItemBytes() }
        lastSlot = 0
    }

    /// `worker`'s plan.
    func plan(of worker: Int) -> WarmingPlan { plans[worker] }

    /// Warms `worker`'s cache with its `cursor`'s plan while `keepGoing` holds.
    ///
    /// Plain loads: software prefetch instructions measured useless here (a 512 KB run of
    /// them took 6 µs and the read that followed was no faster), most likely dropped when the
    /// miss buffers are full. (A few at a time, spread through a product's own columns, they
    /// do pay: ``ColumnPrefetch``.)
    func warm(worker: Int, _ cursor: inout WarmingCursor, while keepGoing: () -> Bool) {
        sinks[worker] = cursor.warm(while: keepGoing)
    }
}
