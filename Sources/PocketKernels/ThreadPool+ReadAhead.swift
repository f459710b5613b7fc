// Reading ahead: an idle worker loads the start of its next chunk into its own cache.
//
// A decode step alternates matrix products (both threads stream weights) with serial work on the
// calling thread (norms, RoPE, quantizing the next input), during which memory would sit idle.
// The same keyed jobs follow each other in the same order every token, so the pool learns which
// job comes next and where each worker's chunk of it will start; a worker that has finished its
// part of a job reads that start until the next job is published. When the job comes, those
// weights are in its cache and its chunk finishes sooner; ``ThreadPool/balancedFor(_:key:reading:_:)``
// then gives it a larger share. Measured on Qwen2.5-Coder-0.5B decode, one process alternating
// with and without: 2.5–3.5% more tokens/s (`docs/kernels.md`, "Reading ahead").

extension ThreadPool {
    /// The memory the items of a balanced job read, for reading ahead (an addition): up to
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

        /// The first address and the length of the bytes that `items` read without a break:
        /// from their first item to their end or to the end of that item's run, whichever
        /// comes first. `nil` if `items` is empty or starts past the last run.
        func contiguousBytes(of items: Range<Int>) -> (start: Int, count: Int)? {
            guard !items.isEmpty else { return nil }
            var first = items.lowerBound, end = items.upperBound
            for run in 0..<3 {
                let (start, stride, count) = run == 0 ? (starts.0, strides.0, counts.0)
                    : run == 1 ? (starts.1, strides.1, counts.1) : (starts.2, strides.2, counts.2)
                if first < count { return (start + first * stride, (min(end, count) - first) * stride) }
                first -= count
                end -= count
            }
            return nil
        }
    }
}

/// The pool's read-ahead state: what each keyed job reads, which keyed job followed it last
/// time, and each worker's plan for the next job. Changed only under the pool's submit lock;
/// a worker reads its plan after running a job and before reporting it done, so the submitter
/// cannot rewrite it at the same time.
final class ReadAheadPlans {
    /// Bytes a worker reads ahead at most: about half of a core's L2 cache here, which covers a
    /// decode step's serial gaps at one thread's streaming rate and stays cached until the job
    /// starts (256 KB, 512 KB and 1 MB measured the same on Qwen decode).
    static let limit = 512 << 10

    private let slots: Int
    private let bytes: UnsafeMutablePointer<ThreadPool.ItemBytes>
    private let counts: UnsafeMutablePointer<Int>
    /// The slot of the keyed job that came after each slot's last time (0: none known).
    private let successors: UnsafeMutablePointer<Int>
    private var lastSlot = 0
    /// Per thread: the first address and byte count to read ahead after the current job.
    private let starts: UnsafeMutablePointer<Int>
    private let lengths: UnsafeMutablePointer<Int>
    /// Per thread: where the bytes read ahead are summed to, so the loads are not optimized away.
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
        starts = .allocate(capacity: threads)
        starts.initialize(repeating: 0, count: threads)
        lengths = .allocate(capacity: threads)
        lengths.initialize(repeating: 0, count: threads)
        sinks = .allocate(capacity: threads)
        sinks.initialize(repeating: 0, count: threads)
    }

    deinit {
        bytes.deallocate()
        counts.deallocate()
        successors.deallocate()
        starts.deallocate()
        lengths.deallocate()
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

    /// Plans for `worker` to read ahead the start of `items` of the job in `slot`.
    func plan(worker: Int, items: Range<Int>, ofSlot slot: Int) {
        guard let (start, count) = bytes[slot].contiguousBytes(of: items) else { return }
        starts[worker] = start
        lengths[worker] = min(count, Self.limit)
    }

    /// No worker reads ahead after the next job.
    func clearPlans() {
        for w in 0..<threads { lengths[w] = 0 }
    }

    /// Forgets every job's bytes and successor, and every plan.
    func forget() {
        clearPlans()
        for s in 0..<slots { successors[s] = 0; counts[s] = 0; bytes[s] = ThreadPool.ItemBytes() }
        lastSlot = 0
    }

    /// `worker`'s plan: the first address and the byte count (0: nothing to read).
    func plan(of worker: Int) -> (start: Int, count: Int) { (starts[worker], lengths[worker]) }

    /// Loads one byte of every cache line from `start` up to `end` (into this core's caches)
    /// while `keepGoing` holds, checked every 4 KB; returns where it stopped.
    ///
    /// Plain loads: software prefetch instructions measured useless here (a 512 KB run of
    /// them took 6 µs and the read that followed was no faster), most likely dropped when the
    /// miss buffers are full.
    func read(worker: Int, from start: Int, to end: Int, while keepGoing: () -> Bool) -> Int {
        var address = start, sum: UInt8 = 0
        while address < end {
            let stop = min(end, address + 4096)
            while address < stop {
                sum &+= UnsafeRawPointer(bitPattern: address)!.load(as: UInt8.self)
                address += 64
            }
            if !keepGoing() { break }
        }
        sinks[worker] = sum
        return address
    }
}
