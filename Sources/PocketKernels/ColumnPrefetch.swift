import Synchronization

// Software prefetch in the one-vector products, the ones a decode step streams from memory.
//
// On the Zen 3 development machine these products computed and waited for memory in turn rather
// than at the same time: streaming a matrix took about as long as reading it plus computing on
// it from the cache. Q2_K's kernel spends about 740 vector instructions on a column of 1,344
// bytes, so the reorder window reaches a few hundred bytes past a load that misses, and the
// hardware prefetchers did not run far enough ahead. Each column now asks for the lines 2 KB
// further on (`prefetcht0`), spread over the column's steps: 53 requests at once (a Q6_K
// column) made its products slower, not faster. `docs/kernels.md` has the measurements. (Not
// to be confused with the thread pool's cache warming, `ThreadPool+CacheWarming.swift`: plain
// loads by idle workers between jobs.)
package enum ColumnPrefetch {
    /// How far past the column being read the products ask for weights, in bytes; 0 turns the
    /// requests off. Read by every one-vector row-group product; `pocket-bench --prefetch`
    /// sets it between runs to compare distances in one process.
    package static var distance: Int {
        get { setting.load(ordering: .relaxed) }
        set { setting.store(newValue, ordering: .relaxed) }
    }

    /// ``distance``'s storage: an atomic, so that reading it costs one plain load (a static
    /// variable's exclusivity check was a function call per group).
    private static let setting = Atomic<Int>(2048)

    /// Asks for the cache lines of the `bytes` bytes that start ``distance`` bytes after
    /// `column`, a column of `bytes` bytes: consecutive columns' requests cover every line.
    @inline(__always)
    static func request(after column: UnsafeRawPointer, bytes: Int) {
        request(after: column, bytes: bytes, part: 0, of: 1)
    }

    /// Part `part` of `parts` of ``request(after:bytes:)``, for a kernel that goes through a
    /// long column in `parts` steps: together the parts ask for the same lines.
    @inline(__always)
    static func request(after column: UnsafeRawPointer, bytes: Int, part: Int, of parts: Int) {
        let ahead = distance
        if ahead == 0 { return }
        for line in lines(bytes: bytes, part: part, of: parts) { prefetch(column + ahead + 64 * line) }
    }

    /// The cache lines (64 bytes each, counted from the column's start) that part `part` of
    /// `parts` asks for: consecutive runs of equal length that together cover the column.
    @inline(__always)
    static func lines(bytes: Int, part: Int, of parts: Int) -> Range<Int> {
        let perPart = ((bytes + 63) / 64 + parts - 1) / parts
        return perPart * part..<perPart * (part + 1)
    }
}
