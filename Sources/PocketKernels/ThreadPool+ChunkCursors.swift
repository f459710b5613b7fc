// Taking pieces of chunks: how ``ThreadPool/balancedFor(_:key:reading:grain:_:)`` evens out a
// job whose threads turn out unevenly fast.
//
// Each thread's chunk is one atomic word holding the range still to do (front and back). Its
// owner takes pieces from the front, so it streams its chunk in order as it would without
// taking; a thread that has run out takes pieces from the back of another's, so the two meet
// in the middle and no item is taken twice. The words are a cache line apart, so a thread's
// own taking does not contend with the others' until it is taken from.

import Synchronization

extension ThreadPool {
    /// One atomic range per thread, on separate cache lines.
    final class ChunkCursors: @unchecked Sendable {
        /// Words per cache line: thread i's cursor is word `i · stride`.
        private static let stride = 8
        private let words: UnsafeMutablePointer<Atomic<UInt64>>
        private let threads: Int

        init(threads: Int) {
            self.threads = threads
            words = .allocate(capacity: threads * Self.stride)
            for i in 0..<(threads * Self.stride) { (words + i).initialize(to: Atomic(0)) }
        }

        deinit {
            for i in 0..<(threads * Self.stride) { _ = (words + i).move() }
            words.deallocate()
        }

        /// Thread `worker`'s cursor.
        @inline(__always)
        func chunk(_ worker: Int) -> Cursor { Cursor(word: words + worker * Self.stride) }
    }

    /// What is left of one chunk, `front..<back`, packed in one word (front in the high half):
    /// indices stay below 2³².
    struct Cursor {
        let word: UnsafeMutablePointer<Atomic<UInt64>>

        /// Sets the chunk (before the job is published; the publication orders it).
        func store(_ front: Int, _ back: Int) {
            word.pointee.store(Self.pack(front, back), ordering: .relaxed)
        }

        /// The size of the next piece when `left` items are left: `grain`, down to half of
        /// what is left near the end, so that the last pieces are small and the threads finish
        /// close together (1 at least), rounded up to a multiple of `alignment` where `left`
        /// allows.
        @inline(__always)
        static func pieceSize(_ grain: Int, left: Int, alignment: Int = 1) -> Int {
            let half = ((left + 1) / 2 + alignment - 1) / alignment * alignment
            return min(left, grain, max(alignment, half))
        }

        /// Takes up to `grain` items from the front (the chunk's owner) or from the back (a
        /// thread that has finished its own), or `nil` when the chunk is done.
        @inline(__always)
        func take(_ grain: Int, fromBack: Bool, alignment: Int = 1) -> Range<Int>? {
            var old = word.pointee.load(ordering: .relaxed)
            while true {
                let (front, back) = Self.unpack(old)
                guard front < back else { return nil }
                let size = Self.pieceSize(grain, left: back - front, alignment: alignment)
                let piece = fromBack ? back - size..<back : front..<front + size
                let left = fromBack ? Self.pack(front, piece.lowerBound) : Self.pack(piece.upperBound, back)
                let (exchanged, current) = word.pointee.compareExchange(expected: old, desired: left, ordering: .relaxed)
                if exchanged { return piece }
                old = current
            }
        }

        @inline(__always) static func pack(_ front: Int, _ back: Int) -> UInt64 { UInt64(front) << 32 | UInt64(back) }
        @inline(__always) static func unpack(_ word: UInt64) -> (Int, Int) { (Int(word >> 32), Int(word & 0xFFFF_FFFF)) }
    }
}
