import Foundation
import PocketKernels
import Synchronization
import Testing

/// The pool's hand-off: every job runs on every thread exactly once, whether the workers are
/// spinning or asleep, and concurrent submitters are serialized.
@Suite struct ThreadPoolTests {
    /// Runs `work` on a separate thread and reports whether it finished within `seconds`, so a
    /// lost wake-up fails the test instead of hanging it.
    static func finishes(within seconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread { work(); done.signal() }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test(arguments: [1, 2, 3, 4])
    func backToBackJobsRunOnEveryThreadOnce(threads: Int) {
        let pool = ThreadPool(threads: threads)
        let runs = Atomic<Int>(0)
        let finished = Self.finishes(within: 60) {
            for _ in 0..<5_000 { pool.run { _ in runs.add(1, ordering: .relaxed) } }
        }
        #expect(finished)
        #expect(runs.load(ordering: .relaxed) == 5_000 * threads)
    }

    /// Pauses longer than the workers spin, so each job finds them asleep.
    @Test func jobsAfterTheWorkersSleptStillRun() {
        let pool = ThreadPool(threads: 3)
        let covered = Atomic<Int>(0)
        let finished = Self.finishes(within: 60) {
            for _ in 0..<20 {
                Thread.sleep(forTimeInterval: 0.02)
                pool.parallelFor(100) { range in covered.add(range.count, ordering: .relaxed) }
            }
        }
        #expect(finished)
        #expect(covered.load(ordering: .relaxed) == 20 * 100)
    }

    /// Several threads submitting to one pool: no job is lost or run twice.
    @Test func concurrentSubmittersAreSerialized() {
        let pool = ThreadPool(threads: 2)
        let covered = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                for _ in 0..<500 { pool.parallelFor(10) { range in covered.add(range.count, ordering: .relaxed) } }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(covered.load(ordering: .relaxed) == 4 * 500 * 10)
    }

    /// A released pool's workers leave (its deinit waits for them), spinning or asleep.
    @Test func releasingThePoolReturns() {
        let finished = Self.finishes(within: 30) {
            for pause in [0.0, 0.02] {
                var pool: ThreadPool? = ThreadPool(threads: 3)
                pool?.run { _ in }
                Thread.sleep(forTimeInterval: pause)
                pool = nil
            }
        }
        #expect(finished)
    }

    @Test func parallelForCoversEveryIndexExactlyOnce() {
        let pool = ThreadPool(threads: 3)
        for count in [1, 2, 5, 1000] {
            let hits = UnsafeMutablePointer<Int>.allocate(capacity: count)
            hits.initialize(repeating: 0, count: count)
            pool.parallelFor(count) { range in for i in range { hits[i] += 1 } }
            #expect((0..<count).allSatisfy { hits[$0] == 1 })
            hits.deallocate()
        }
    }

    @Test func balancedForCoversEveryIndexExactlyOnce() {
        let pool = ThreadPool(threads: 3)
        for count in [1, 2, 5, 1000, 7] {
            let hits = UnsafeMutablePointer<Int>.allocate(capacity: count)
            hits.initialize(repeating: 0, count: count)
            pool.balancedFor(count) { range in
                #expect(!range.isEmpty)
                for i in range { hits[i] += 1 }
            }
            #expect((0..<count).allSatisfy { hits[$0] == 1 })
            hits.deallocate()
        }
    }

    /// A thread that takes twice as long per item ends up with about a third of the items, and
    /// the chunks still cover every item once.
    @Test func balancedForGivesASlowerThreadFewerItems() {
        let pool = ThreadPool(threads: 2)
        let count = 2000
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: count)
        hits.initialize(repeating: 0, count: count)
        defer { hits.deallocate() }
        let submitter = pthread_self()
        #expect(abs(pool.balancedShare(of: 1) - 0.5) < 1e-9)
        for _ in 0..<60 {
            pool.balancedFor(count) { range in
                // 30 ns per item on the submitting thread, 60 on the worker: chunks of 30–120 µs.
                let perItem: UInt64 = pthread_equal(pthread_self(), submitter) != 0 ? 30 : 60
                let end = DispatchTime.now().uptimeNanoseconds + perItem * UInt64(range.count)
                while DispatchTime.now().uptimeNanoseconds < end {}
                for i in range { hits[i] += 1 }
            }
        }
        #expect((0..<count).allSatisfy { hits[$0] == 60 })
        let workerShare = pool.balancedShare(of: 1)
        #expect(workerShare > 0.2 && workerShare < 0.42, "worker's share \(workerShare), about 1/3 expected")
    }

    /// With a grain, a thread that has finished its chunk takes pieces from the back of the
    /// other's: a worker that is far slower leaves most of its chunk to the submitter, every
    /// item is still processed exactly once, and no piece exceeds the grain.
    @Test func balancedForTakesPiecesFromASlowerThread() {
        let pool = ThreadPool(threads: 2)
        let count = 1000, grain = 10
        let onSubmitter = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: count)
        hits.initialize(repeating: 0, count: count)
        onSubmitter.initialize(repeating: 0, count: count)
        defer { hits.deallocate(); onSubmitter.deallocate() }
        let submitter = pthread_self()
        let key = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { key.deallocate() }
        let oversized = Atomic<Int>(0)
        // A fresh key: the chunks start equal, 500 items each.
        pool.balancedFor(count, key: key, grain: grain) { range in
            if range.count > grain || range.isEmpty { oversized.add(1, ordering: .relaxed) }
            let isSubmitter = pthread_equal(pthread_self(), submitter) != 0
            if !isSubmitter {
                // 20 µs per item on the worker, nothing on the submitter.
                let end = DispatchTime.now().uptimeNanoseconds + 20_000 * UInt64(range.count)
                while DispatchTime.now().uptimeNanoseconds < end {}
            }
            for i in range { hits[i] += 1; onSubmitter[i] = isSubmitter ? 1 : 0 }
        }
        #expect((0..<count).allSatisfy { hits[$0] == 1 })
        #expect(oversized.load(ordering: .relaxed) == 0)
        let taken = (count / 2..<count).reduce(0) { $0 + onSubmitter[$1] }
        #expect(taken > 300, "the submitter took \(taken) of the worker's 500 items")
    }

    /// With an alignment, the chunks (and so, with a grain that is a multiple of it, every
    /// piece) start and end on its multiples, also once the threads' learned speeds differ.
    @Test func balancedForKeepsPiecesAligned() {
        let pool = ThreadPool(threads: 3)
        let count = 896, grain = 48, alignment = 16
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: count)
        hits.initialize(repeating: 0, count: count)
        defer { hits.deallocate() }
        let key = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { key.deallocate() }
        let misaligned = Atomic<Int>(0)
        let submitter = pthread_self()
        for _ in 0..<20 {
            pool.balancedFor(count, key: key, grain: grain, alignment: alignment) { range in
                if range.lowerBound % alignment != 0 || range.upperBound % alignment != 0 || range.count > grain {
                    misaligned.add(1, ordering: .relaxed)
                }
                // Uneven speeds, so the learned chunk boundaries move off even thirds.
                if pthread_equal(pthread_self(), submitter) == 0 {
                    let end = DispatchTime.now().uptimeNanoseconds + 200 * UInt64(range.count)
                    while DispatchTime.now().uptimeNanoseconds < end {}
                }
                for i in range { hits[i] += 1 }
            }
        }
        #expect((0..<count).allSatisfy { hits[$0] == 20 })
        #expect(misaligned.load(ordering: .relaxed) == 0)
    }

    /// Jobs with different keys learn their own split: here the worker is the slow thread on
    /// one key's data and the fast one on the other's.
    @Test func balancedForLearnsEachKeyApart() {
        let pool = ThreadPool(threads: 2)
        let submitter = pthread_self()
        let keyA = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        let keyB = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { keyA.deallocate(); keyB.deallocate() }
        for _ in 0..<60 {
            for (key, workerSlow) in [(keyA, true), (keyB, false)] {
                pool.balancedFor(2000, key: key) { range in
                    let onWorker = pthread_equal(pthread_self(), submitter) == 0
                    let perItem: UInt64 = onWorker == workerSlow ? 60 : 30
                    let end = DispatchTime.now().uptimeNanoseconds + perItem * UInt64(range.count)
                    while DispatchTime.now().uptimeNanoseconds < end {}
                }
            }
        }
        let shareA = pool.balancedShare(of: 1, key: keyA), shareB = pool.balancedShare(of: 1, key: keyB)
        #expect(shareA > 0.2 && shareA < 0.42, "worker's share on A \(shareA), about 1/3 expected")
        #expect(shareB > 0.58 && shareB < 0.8, "worker's share on B \(shareB), about 2/3 expected")
        #expect(abs(pool.balancedShare(of: 1) - 0.5) < 1e-9, "jobs without a key learned nothing")
    }

    @Test func runsManySmallJobsInSequence() {
        let pool = ThreadPool(threads: 2)
        let total = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        total.initialize(repeating: 0, count: 2)
        for _ in 0..<10_000 { pool.run { worker in total[worker] += 1 } }
        #expect(total[0] == 10_000 && total[1] == 10_000)
        total.deallocate()
    }
}

/// Cache warming: after a keyed job, each worker is told the start of its chunk of the keyed
/// job that followed that one last time (to load into its cache), and forgetting stops it.
@Suite struct ThreadPoolCacheWarmingTests {
    /// Three buffers read by two jobs: job A reads 64 items of 64 bytes from `a`; job B reads
    /// 30 items of 100 bytes from `b`, then 50 items of 4 KB from `c`.
    final class Memory {
        let a = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 64)
        let b = UnsafeMutableRawPointer.allocate(byteCount: 3000, alignment: 64)
        let c = UnsafeMutableRawPointer.allocate(byteCount: 50 * 4096, alignment: 64)
        var bytesA: ThreadPool.ItemBytes {
            var bytes = ThreadPool.ItemBytes()
            bytes.append(start: a, bytesPerItem: 64, items: 64)
            return bytes
        }
        var bytesB: ThreadPool.ItemBytes {
            var bytes = ThreadPool.ItemBytes()
            bytes.append(start: b, bytesPerItem: 100, items: 30)
            bytes.append(start: c, bytesPerItem: 4096, items: 50)
            return bytes
        }
        deinit { a.deallocate(); b.deallocate(); c.deallocate() }
    }

    /// `(start, count)` of each stretch of `worker`'s plan.
    static func plan(_ pool: ThreadPool, _ worker: Int = 1) -> [(UnsafeRawPointer?, Int)] {
        pool.warmingPlan(of: worker).map { ($0.baseAddress, $0.count) }
    }

    @Test func aWorkerIsToldTheStartOfItsChunkOfTheJobThatCameNext() {
        let pool = ThreadPool(threads: 2)
        let memory = Memory()
        pool.balancedFor(64, key: memory.a, reading: memory.bytesA) { _ in }
        #expect(Self.plan(pool).isEmpty, "nothing has followed A yet")
        pool.balancedFor(80, key: memory.b, reading: memory.bytesB) { _ in }
        #expect(Self.plan(pool).isEmpty, "nothing has followed B yet")
        pool.balancedFor(64, key: memory.a, reading: memory.bytesA) { _ in }
        // B came after A: the worker's half of B's 80 items starts at item 40, the 10th of the
        // 4 KB run, and reads to the end of that run.
        var plan = Self.plan(pool)
        #expect(plan.count == 1 && plan[0].0 == UnsafeRawPointer(memory.c + 10 * 4096) && plan[0].1 == 40 * 4096)
        // A came after B; the worker's half of A starts at item 32.
        pool.balancedFor(80, key: memory.b, reading: memory.bytesB) { _ in }
        plan = Self.plan(pool)
        #expect(plan.count == 1 && plan[0].0 == UnsafeRawPointer(memory.a + 32 * 64) && plan[0].1 == 32 * 64)
        #expect(Self.plan(pool, 0).isEmpty, "the calling thread never warms its cache")
    }

    /// A chunk that starts near the end of one run goes on at the start of the next.
    @Test func aChunkThatCrossesRunsIsReadInTwoStretches() {
        let pool = ThreadPool(threads: 3)
        let memory = Memory()
        for _ in 0..<2 {
            pool.balancedFor(64, key: memory.a, reading: memory.bytesA) { _ in }
            pool.balancedFor(80, key: memory.b, reading: memory.bytesB) { _ in }
        }
        pool.balancedFor(64, key: memory.a, reading: memory.bytesA) { _ in }
        // Thirds of B's 80 items: 0..<27, 27..<53, 53..<80. Worker 1 reads items 27–29 of `b`,
        // then items 0–22 of `c`; worker 2 items 23–49 of `c`.
        var plan = Self.plan(pool, 1)
        #expect(plan.count == 2)
        #expect(plan.first?.0 == UnsafeRawPointer(memory.b + 27 * 100) && plan.first?.1 == 300)
        #expect(plan.last?.0 == UnsafeRawPointer(memory.c) && plan.last?.1 == 23 * 4096)
        plan = Self.plan(pool, 2)
        #expect(plan.count == 1 && plan[0].0 == UnsafeRawPointer(memory.c + 23 * 4096) && plan[0].1 == 27 * 4096)
    }

    /// A chunk's start is read to at most the limit, and a job without bytes plans nothing.
    @Test func warmingIsBoundedAndOnlyForJobsThatSayWhatTheyRead() {
        let pool = ThreadPool(threads: 2)
        let count = 1024, itemBytes = 4096
        let big = UnsafeMutableRawPointer.allocate(byteCount: count * itemBytes, alignment: 64)
        let other = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
        defer { big.deallocate(); other.deallocate() }
        var bytes = ThreadPool.ItemBytes()
        bytes.append(start: big, bytesPerItem: itemBytes, items: count)
        var small = ThreadPool.ItemBytes()
        small.append(start: other, bytesPerItem: 64, items: 1)
        for _ in 0..<2 {
            pool.balancedFor(count, key: big, reading: bytes) { _ in }
            pool.balancedFor(2, key: other, reading: small) { _ in }
        }
        let plan = Self.plan(pool)
        #expect(plan.count == 1 && plan[0].0 == UnsafeRawPointer(big + count / 2 * itemBytes))
        #expect(plan.first?.1 == 512 << 10, "half of 4 MB, capped at 512 KB")
        pool.balancedFor(2, key: other) { _ in }
        #expect(Self.plan(pool).isEmpty)
    }

    /// After `forgetWarming()` no plan is left and none is made from what was learned before,
    /// so the memory can be freed: here it is unmapped, and later jobs run normally.
    @Test func forgettingStopsWarmingSoMemoryCanBeFreed() throws {
        let pool = ThreadPool(threads: 2)
        let length = 8 << 20
        let mapped = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(mapped != MAP_FAILED)
        let half = length / 2
        var first = ThreadPool.ItemBytes(), second = ThreadPool.ItemBytes()
        first.append(start: mapped, bytesPerItem: 4096, items: half / 4096)
        second.append(start: mapped + half, bytesPerItem: 4096, items: half / 4096)
        for _ in 0..<3 {
            pool.balancedFor(half / 4096, key: mapped, reading: first) { _ in }
            pool.balancedFor(half / 4096, key: mapped + half, reading: second) { _ in }
        }
        #expect(!Self.plan(pool).isEmpty)
        pool.forgetWarming()
        #expect(Self.plan(pool).isEmpty)
        munmap(mapped, length)
        let runs = Atomic<Int>(0)
        for _ in 0..<200 {
            pool.run { _ in runs.add(1, ordering: .relaxed) }
            usleep(50)
        }
        #expect(runs.load(ordering: .relaxed) == 400)
    }
}
