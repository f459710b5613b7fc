/// An entry a ``MergeQueue`` can order: the smallest `order` pops first.
protocol MergeCandidate {
    /// Priority then position, packed so that one integer comparison orders candidates: the
    /// priority in the high 32 bits, the slot of the left symbol in the low ones.
    var order: UInt64 { get }
}

extension MergeCandidate {
    /// Slot of the left symbol (the low 32 bits of ``order``).
    var left: Int32 { Int32(truncatingIfNeeded: order & 0xFFFF_FFFF) }
}

/// A binary min-heap of candidate merges, ordered by ``MergeCandidate/order``: for byte-pair
/// merges (merge rank, position of the left symbol), for SentencePiece (score, position).
///
/// ``BytePairMerges`` and ``SentencePieceMerges`` push every adjacent pair that can merge and
/// pop the best one; entries that a previous merge made stale stay in the heap and are skipped
/// when popped (lazy invalidation), which keeps every operation O(log n). Generic rather than
/// over an existential so the hot loop stays specialized.
struct MergeQueue<Candidate: MergeCandidate> {
    private var heap: [Candidate] = []

    /// Whether no candidate is left.
    var isEmpty: Bool { heap.isEmpty }

    /// Removes every candidate, keeping the storage for the next piece.
    mutating func removeAll() { heap.removeAll(keepingCapacity: true) }

    /// Adds a candidate.
    ///
    /// - Complexity: O(log n).
    mutating func push(_ candidate: Candidate) {
        heap.append(candidate)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard candidate.order < heap[parent].order else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = candidate
    }

    /// Removes and returns the candidate with the lowest ``MergeCandidate/order``, or `nil`.
    ///
    /// - Complexity: O(log n).
    mutating func popFirst() -> Candidate? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return last }
        let first = heap[0]
        // Sift `last` down from the root.
        var parent = 0
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count && heap[child + 1].order < heap[child].order { child += 1 }
            guard heap[child].order < last.order else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = last
        return first
    }
}
