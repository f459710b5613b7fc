// How causal attention over a KV cache is shared out over a pool's threads: which work items
// there are (the decision is `Attention.Schedule`, a pure function of the shapes, tested on its
// own), the per-thread working memory, and the run itself. The arithmetic is `Attention.attend`
// and `Attention.accumulate`/`combine` (`Attention.swift`); this file only decides who computes what.

extension Attention {
    /// How one evaluation's attention is split across threads.
    ///
    /// ```swift
    /// Attention.Schedule(tokens: 1, heads: 9, keyValueHeads: 3, length: 40, threads: 2, halfPrecision: false)
    /// // .heads: 3 groups on 2 threads would leave one thread half idle
    /// ```
    public enum Schedule: Equatable, Sendable {
        /// A work item is a token and the query heads of one key/value head, which then share
        /// the reads of the cached rows; items are interleaved across workers so that the
        /// longer rows of a batch's later tokens are shared out.
        case groups
        /// A work item is a token and one query head: when there are too few groups to keep
        /// the workers evenly busy (one decoded token, 3 key/value heads on 2 threads).
        case heads
        /// One decoded token over a long cache: each thread takes a contiguous range of
        /// positions for every head (reading each cached row once, and as many rows as the
        /// other threads whatever the head count), and the partial softmax states are merged.
        case positions

        /// Cached positions from which a single decoded token's attention is split by position
        /// across the threads (llama.cpp splits its CPU flash attention at the same length).
        public static let splitDecodingLength = 512

        /// Chooses the split for `tokens` queries of `heads` heads sharing `keyValueHeads`
        /// key/value heads, the last of which attends `length` positions.
        ///
        /// Split decoding needs several threads, a single token and the single-precision
        /// accumulator (the merge rescales the parts, which prompts' half-precision accumulator
        /// cannot reproduce). Otherwise the busiest worker's load in query heads decides
        /// between groups and single heads; groups win ties.
        public init(tokens: Int, heads: Int, keyValueHeads: Int, length: Int, threads: Int, halfPrecision: Bool) {
            if tokens == 1 && !halfPrecision && threads > 1 && length >= Self.splitDecodingLength {
                self = .positions
                return
            }
            let group = heads / keyValueHeads
            let grouped = (tokens * keyValueHeads + threads - 1) / threads * group <= (tokens * heads + threads - 1) / threads
            self = grouped ? .groups : .heads
        }
    }

    /// Working memory of ``causal(queries:tokens:heads:keyValueHeads:headDimension:keys:values:headStride:start:halfPrecision:workspace:pool:into:)``
    /// for one model shape and pool, allocated once: per thread a ``Scratch`` for a group of
    /// query heads, and split decoding's partial states.
    public final class Workspace: @unchecked Sendable {
        /// Per thread: ``Scratch`` for the query heads of one key/value head.   (threads, scratchCount)
        let scratchBuffer: UnsafeMutablePointer<Float>
        /// Floats of `scratchBuffer` per thread.
        let scratchCount: Int
        /// Split decoding's partial states: accumulators `(threads, heads, headDim)`, then
        /// maxima and sums `(threads, heads)` each.
        let parts: UnsafeMutablePointer<Float>
        /// The thread count the memory is sized for.
        public let threads: Int

        /// Allocates the memory for `threads` threads and the given attention shape.
        public init(threads: Int, heads: Int, keyValueHeads: Int, headDimension: Int) {
            self.threads = threads
            scratchCount = Scratch.count(heads: heads / keyValueHeads, headDimension: headDimension)
            scratchBuffer = .allocate(capacity: threads * scratchCount)
            scratchBuffer.initialize(repeating: 0, count: threads * scratchCount)
            parts = .allocate(capacity: threads * heads * (headDimension + 2))
            parts.initialize(repeating: 0, count: threads * heads * (headDimension + 2))
        }

        deinit {
            scratchBuffer.deallocate()
            parts.deallocate()
        }

        /// The scratch of thread `worker`.
        func scratch(_ worker: Int) -> Scratch { Scratch(scratchBuffer + worker * scratchCount) }
    }

    /// Causal multi-head attention of `tokens` consecutive positions `start…` over a cache: for
    /// each token `t` and query head `h`, `out = Σ_j softmax_j(q·k_j / √d) · v_j` over positions
    /// `0…start+t`, run on `pool` as ``Schedule`` decides. Query head `h` reads key/value head
    /// `h / (heads / keyValueHeads)` (grouped-query attention).
    ///
    /// The split by groups or heads computes exactly what ``attend(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``
    /// does; split decoding's merge rescales each part by `e^(m_p − m)`, so it agrees with a
    /// single pass to float rounding rather than bit for bit.
    ///
    /// - Parameters:
    ///   - queries: `(tokens, heads · headDimension)` floats, already rounded to half precision.
    ///   - keys: Position 0 of key/value head 0; positions are `headDimension` halves apart and
    ///     key/value head `g` starts `g · headStride` halves further. `values` likewise.
    ///   - start: Positions cached before the first token; the cache must already hold the
    ///     batch's own keys and values.
    ///   - halfPrecision: llama.cpp's half-precision value accumulator (prompts) rather than
    ///     single precision (decoding).
    ///   - workspace: Memory sized for `pool`'s threads and this shape.
    ///   - out: `(tokens, heads · headDimension)` floats to overwrite.
    public static func causal(
        queries: UnsafePointer<Float>, tokens: Int, heads: Int, keyValueHeads: Int, headDimension hd: Int,
        keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, headStride: Int, start: Int,
        halfPrecision: Bool, workspace: Workspace, pool: ThreadPool, into out: UnsafeMutablePointer<Float>
    ) {
        precondition(workspace.threads >= pool.threadCount, "the attention workspace is sized for fewer threads than the pool")
        let threads = pool.threadCount, group = heads / keyValueHeads, width = heads * hd
        let scale = 1 / Float(hd).squareRoot()
        let schedule = Schedule(
            tokens: tokens, heads: heads, keyValueHeads: keyValueHeads, length: start + tokens, threads: threads,
            halfPrecision: halfPrecision)
        if schedule == .positions {
            let length = start + 1, chunk = (length + threads - 1) / threads
            let parts = PartialState(
                accumulators: workspace.parts, maxima: workspace.parts + threads * heads * hd,
                sums: workspace.parts + threads * heads * (hd + 1))
            pool.run { worker in
                let scratch = workspace.scratch(worker)
                let first = min(length, worker * chunk), count = min(chunk, length - first)
                for kvHead in 0..<keyValueHeads {
                    let head = worker * heads + kvHead * group   // (part, head) index
                    accumulate(
                        queries: queries + kvHead * group * hd, heads: group, headDimension: hd,
                        keys: keys + kvHead * headStride + first * hd, values: values + kvHead * headStride + first * hd,
                        rowStride: hd, length: count, scale: scale, halfPrecision: false, scratch: scratch,
                        into: PartialState(
                            accumulators: parts.accumulators + head * hd, maxima: parts.maxima + head, sums: parts.sums + head))
                }
            }
            combine(parts: threads, heads: heads, headDimension: hd, halfPrecision: false, parts, into: out)
            return
        }
        let headsPerItem = schedule == .groups ? group : 1, itemsPerToken = heads / headsPerItem
        pool.run { worker in
            let scratch = workspace.scratch(worker)
            var item = worker
            while item < tokens * itemsPerToken {
                let t = item / itemsPerToken, first = item % itemsPerToken * headsPerItem, kvHead = first / group
                attend(
                    queries: queries + t * width + first * hd, heads: headsPerItem, headDimension: hd,
                    keys: keys + kvHead * headStride, values: values + kvHead * headStride, rowStride: hd,
                    length: start + t + 1, scale: scale, halfPrecision: halfPrecision, scratch: scratch,
                    into: out + t * width + first * hd)
                item += threads
            }
        }
    }
}
