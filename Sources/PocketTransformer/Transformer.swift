import Foundation
import PocketGGUF
import PocketKernels

/// A Llama-family transformer: weights from a GGUF file, a KV cache, and the forward pass.
///
/// The model keeps the tokens it has seen in its ``KVCache``; ``evaluate(_:logits:_:)``
/// appends tokens and produces next-token logits, ``truncate(to:)`` rolls the cache back (for
/// example to reuse a shared prompt prefix). Prompts are processed in batches of up to
/// ``batchSize`` tokens per pass (prefill); generation evaluates one token at a time (decode).
///
/// ```swift
/// let model = try Transformer(file: GGUFFile(contentsOf: url), contextLength: 2048)
/// let logits = try model.evaluate([19556, 905])   // logits for the token after "Hello world"
/// ```
///
/// Not thread-safe: one evaluation at a time per instance.
public final class Transformer: @unchecked Sendable {
    /// The mapped model file; the weights point into it.
    public let file: GGUFFile
    /// Hyper-parameters.
    public let configuration: ModelConfiguration
    /// Weights, pointing into ``file``.
    public let weights: TransformerWeights
    /// Keys and values of the positions evaluated so far.
    public let cache: KVCache
    /// Maximum tokens processed per forward pass; longer inputs are split.
    public let batchSize: Int
    /// Number of positions currently held in the cache.
    public private(set) var position = 0
    /// Threads the matrix products and attention run on.
    public let pool: ThreadPool

    /// Context window in tokens: how many positions the cache holds.
    public var contextLength: Int { cache.capacity }

    private let rope: RotaryEmbedding
    private let state: RunState

    /// A debugging aid: when set, receives every intermediate tensor of the forward pass under
    /// llama.cpp's names (`attn_norm-0`, `Qcur-0` after RoPE, `Kcur-0`, `Vcur-0`, `attn_out-0`,
    /// `kqv_out-0` (the attention output projection's input), `ffn_inp-0`, `ffn_norm-0`, `ffn_gate-0`, `ffn_up-0`, `ffn_swiglu-0`, `ffn_out-0`,
    /// `l_out-0`, …, `result_norm`, `result_output`) as `(rows, columns)` row-major floats, so a
    /// forward pass can be compared op by op with a llama.cpp trace. Slows evaluation down; leave
    /// `nil` otherwise.
    public var trace: ((_ name: String, _ rows: Int, _ values: UnsafeBufferPointer<Float>) -> Void)?

    /// Loads the model in `file`.
    ///
    /// - Parameters:
    ///   - file: An opened GGUF file; the transformer keeps it alive.
    ///   - contextLength: Context window; defaults to the model's trained context, capped at 4096.
    ///     Larger values are capped at the trained context.
    ///   - batchSize: Tokens per prefill pass (memory grows linearly with it).
    ///   - pool: Threads for the kernels.
    /// - Throws: ``TransformerError`` when the architecture is unsupported or a tensor is
    ///   missing or malformed.
    public init(
        file: GGUFFile, contextLength: Int? = nil, batchSize: Int = 64, pool: ThreadPool = .shared
    ) throws(TransformerError) {
        let configuration = try ModelConfiguration(metadata: file.metadata)
        let capacity = min(contextLength ?? 4096, configuration.trainedContextLength)
        guard capacity >= 1 else { throw .invalidConfiguration("context length must be at least 1") }
        self.file = file
        self.configuration = configuration
        self.weights = try TransformerWeights(file: file, configuration: configuration)
        self.batchSize = max(1, batchSize)
        self.pool = pool
        cache = KVCache(
            capacity: capacity, layerCount: configuration.layerCount,
            headCount: configuration.keyValueHeadCount, headDimension: configuration.headDimension)
        rope = RotaryEmbedding(
            dimensions: configuration.ropeDimensionCount, base: configuration.ropeFrequencyBase,
            style: configuration.architecture.definition.ropeStyle, positions: capacity)
        state = RunState(configuration, batch: self.batchSize, threads: pool.threadCount, contextLength: capacity)
    }

    /// Opens and loads the GGUF model at `url` (memory-mapped).
    public convenience init(
        contentsOf url: URL, contextLength: Int? = nil, batchSize: Int = 64, pool: ThreadPool = .shared
    ) throws {
        try self.init(file: GGUFFile(contentsOf: url), contextLength: contextLength, batchSize: batchSize, pool: pool)
    }

    /// Which tokens of an evaluation need logits.
    public enum LogitsRequest: Sendable {
        /// Only the last token (generation).
        case last
        /// Every token (perplexity, scoring).
        case all
        /// None (prefilling a prefix to reuse later).
        case none
    }

    /// Appends `tokens` to the cache and computes the requested logits.
    ///
    /// - Parameters:
    ///   - tokens: Token ids, evaluated at positions ``position`` and onward.
    ///   - request: Which tokens' logits to compute.
    ///   - receive: Called with the index into `tokens` and that token's `vocabularySize`
    ///     logits (valid only during the call), in order.
    /// - Throws: ``TransformerError/contextOverflow(needed:capacity:)`` before doing any work
    ///   when the tokens do not fit; ``TransformerError/invalidToken(_:vocabularySize:)`` for
    ///   an id outside the vocabulary; `CancellationError` when the current task is cancelled
    ///   between batches (the cache then holds the batches already evaluated).
    public func evaluate(
        _ tokens: [Int], logits request: LogitsRequest = .last,
        _ receive: (_ index: Int, _ logits: UnsafeBufferPointer<Float>) -> Void = { _, _ in }
    ) throws {
        guard position + tokens.count <= contextLength else {
            throw TransformerError.contextOverflow(needed: position + tokens.count, capacity: contextLength)
        }
        let vocabulary = configuration.vocabularySize
        if let bad = tokens.first(where: { $0 < 0 || $0 >= vocabulary }) {
            throw TransformerError.invalidToken(bad, vocabularySize: vocabulary)
        }
        var start = 0
        while start < tokens.count {
            try Task.checkCancellation()
            let end = min(start + batchSize, tokens.count)
            let rows: Range<Int> = switch request {
            case .all: 0..<(end - start)
            case .last: end == tokens.count ? (end - start - 1)..<(end - start) : 0..<0
            case .none: 0..<0
            }
            tokens[start..<end].withContiguousStorageIfAvailable { batch in
                forward(batch, logitRows: rows, isPrompt: tokens.count > 1)
            }
            for (i, row) in rows.enumerated() {
                receive(start + row, UnsafeBufferPointer(start: state.logits + i * vocabulary, count: vocabulary))
            }
            position += end - start
            start = end
        }
    }

    /// Evaluates `tokens` and returns the logits of the last one.
    public func evaluate(_ tokens: [Int]) throws -> [Float] {
        var result: [Float] = []
        try evaluate(tokens, logits: .last) { _, logits in result = Array(logits) }
        return result
    }

    /// Forgets every position from `newPosition` on, so evaluation continues from there.
    ///
    /// - Precondition: `newPosition <= position`.
    public func truncate(to newPosition: Int) {
        precondition(newPosition >= 0 && newPosition <= position, "cannot truncate to \(newPosition) of \(position)")
        position = newPosition
    }

    // MARK: - The forward pass

    /// Runs `tokens` (at most `batchSize`) through the network at positions `position…`, filling
    /// the KV cache, and writes logits for `logitRows` (indices into `tokens`) to `state.logits`.
    ///
    /// `isPrompt` selects the attention accumulator's precision (see `attention`): it depends on
    /// whether the whole evaluation is a prompt, not on how it is split into batches.
    private func forward(_ tokens: UnsafeBufferPointer<Int>, logitRows: Range<Int>, isPrompt: Bool) {
        let c = configuration, s = state, w = weights
        let n = tokens.count                 // tokens in this batch
        let dim = c.embeddingLength, q = c.queryLength, kv = c.keyValueLength, ffn = c.feedForwardLength
        let hd = c.headDimension

        // x = embedding rows of the tokens                                  (n, dim)
        for t in 0..<n { w.tokenEmbedding.dequantizeRow(tokens[t], into: s.x + t * dim) }

        func record(_ name: String, _ values: UnsafeMutablePointer<Float>, _ rows: Int, _ columns: Int) {
            trace?(name, rows, UnsafeBufferPointer(start: values, count: rows * columns))
        }

        for (l, layer) in w.layers.enumerated() {
            // Attention: x += Wo · attention(rope(Wq·h), rope(Wk·h), Wv·h), h = rmsnorm(x)
            rmsNorm(s.x, layer.attentionNorm, into: s.xb, rows: n)
            record("attn_norm-\(l)", s.xb, n, dim)
            multiply((layer.query, s.q), (layer.key, s.k), (layer.value, s.v), s.xb, n)  // (n, q), (n, kv), (n, kv)
            addBias(layer.queryBias, to: s.q, rows: n, length: q)
            addBias(layer.keyBias, to: s.k, rows: n, length: kv)
            addBias(layer.valueBias, to: s.v, rows: n, length: kv)
            for t in 0..<n {
                let p = position + t
                for h in 0..<c.headCount { rope.apply(to: s.q + t * q + h * hd, position: p) }
                for h in 0..<c.keyValueHeadCount { rope.apply(to: s.k + t * kv + h * hd, position: p) }
                for h in 0..<c.keyValueHeadCount {
                    let keys = cache.keys(layer: l, head: h, position: p), values = cache.values(layer: l, head: h, position: p)
                    for i in 0..<hd {
                        keys[i] = Float16(s.k[t * kv + h * hd + i])
                        values[i] = Float16(s.v[t * kv + h * hd + i])
                    }
                }
            }
            record("Qcur-\(l)", s.q, n, q)
            record("Kcur-\(l)", s.k, n, kv)
            record("Vcur-\(l)", s.v, n, kv)
            // Queries meet the half-precision keys in half precision, as in llama.cpp.
            for i in 0..<(n * q) { s.q[i] = Float(Float16(s.q[i])) }
            attention(layer: l, tokens: n, halfPrecision: isPrompt)          // (n, q) into s.attention
            record("kqv_out-\(l)", s.attention, n, q)
            multiply(layer.output, s.attention, n, into: s.xb)               // (n, dim)
            record("attn_out-\(l)", s.xb, n, dim)
            VectorMath.add(s.xb, to: s.x, count: n * dim)
            record("ffn_inp-\(l)", s.x, n, dim)

            // Feed-forward: x += Wdown · (silu(Wgate·h) ⊙ Wup·h), h = rmsnorm(x)
            rmsNorm(s.x, layer.feedForwardNorm, into: s.xb, rows: n)
            record("ffn_norm-\(l)", s.xb, n, dim)
            multiply((layer.gate, s.hidden), (layer.up, s.hidden2), nil, s.xb, n)   // (n, ffn), (n, ffn)
            record("ffn_gate-\(l)", s.hidden, n, ffn)
            record("ffn_up-\(l)", s.hidden2, n, ffn)
            for t in 0..<n { VectorMath.swiGLU(s.hidden + t * ffn, up: s.hidden2 + t * ffn, count: ffn) }
            record("ffn_swiglu-\(l)", s.hidden, n, ffn)
            multiply(layer.down, s.hidden, n, into: s.xb)                    // (n, dim)
            record("ffn_out-\(l)", s.xb, n, dim)
            VectorMath.add(s.xb, to: s.x, count: n * dim)
            record("l_out-\(l)", s.x, n, dim)
        }

        // Logits for the requested rows: W_out · rmsnorm(x)                   (rows, vocab)
        guard !logitRows.isEmpty else { return }
        for (i, t) in logitRows.enumerated() {
            VectorMath.rmsNorm(s.x + t * dim, weight: w.outputNorm, epsilon: c.rmsNormEpsilon,
                               into: s.xb + i * dim, count: dim)
        }
        record("result_norm", s.xb, logitRows.count, dim)
        multiply(w.output, s.xb, logitRows.count, into: s.logits)
        record("result_output", s.logits, logitRows.count, c.vocabularySize)
    }

    /// Causal multi-head attention of the batch's queries over the cache: for each token `t`
    /// and head `h`, `out = Σ_j softmax_j(q·k_j / √d) · v_j` over positions `0…position+t`
    /// (``Attention/attend(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``).
    /// Query heads share key/value heads in groups (grouped-query attention). Queries arrive
    /// rounded to half precision (by `forward`) to meet the half-precision keys; prompts keep llama.cpp's
    /// half-precision value accumulator (`halfPrecision`), single-token decoding single precision.
    private func attention(layer l: Int, tokens n: Int, halfPrecision: Bool) {
        let c = configuration, s = state, cache = cache
        let kvHeads = c.keyValueHeadCount, hd = c.headDimension, q = c.queryLength
        let group = c.headCount / kvHeads
        let scale = 1 / Float(hd).squareRoot()
        let start = position
        let threads = pool.threadCount
        if n == 1 && !halfPrecision && threads > 1 && start + 1 >= Self.splitDecodingLength {
            splitAttention(layer: l)
            return
        }
        // Busiest worker's load in query heads, grouped or not; grouping wins ties.
        let grouped = (n * kvHeads + threads - 1) / threads * group <= (n * c.headCount + threads - 1) / threads
        let headsPerItem = grouped ? group : 1, itemsPerToken = c.headCount / headsPerItem
        pool.run { worker in
            let scratch = Attention.Scratch(s.softmaxSteps + worker * s.attentionScratchCount)
            // Work items are a token and the query heads of one key/value head (which then
            // share the reads of the cached rows), interleaved across workers so the longer
            // rows of later tokens are shared out. When there are too few such items to keep
            // the workers evenly busy (one decoded token, 3 key/value heads on 2 threads), an
            // item is a single query head instead.
            var item = worker
            while item < n * itemsPerToken {
                let t = item / itemsPerToken, first = item % itemsPerToken * headsPerItem, kvHead = first / group
                let queries = s.q + t * q + first * hd
                Attention.attend(
                    queries: queries, heads: headsPerItem, headDimension: hd,
                    keys: cache.keys(layer: l, head: kvHead, position: 0),
                    values: cache.values(layer: l, head: kvHead, position: 0), rowStride: hd,
                    length: start + t + 1, scale: scale, halfPrecision: halfPrecision, scratch: scratch,
                    into: s.attention + t * q + first * hd)
                item += threads
            }
        }
    }

    /// Cached positions from which a single decoded token's attention is split by position
    /// across the threads (llama.cpp splits its CPU flash attention at the same length).
    static let splitDecodingLength = 512

    /// Attention of one decoded token over a long cache: each thread takes a contiguous range
    /// of positions for every head (reading each cached row once, and as many rows as the
    /// other threads whatever the head count), and the partial softmax states are merged
    /// (``Attention/combine(parts:heads:headDimension:halfPrecision:_:into:)``). The merge
    /// rescales each part by `e^(m_p − m)`, so results agree with a single pass to float
    /// rounding rather than bit for bit.
    private func splitAttention(layer l: Int) {
        let c = configuration, s = state, cache = cache
        let heads = c.headCount, kvHeads = c.keyValueHeadCount, hd = c.headDimension
        let group = heads / kvHeads
        let length = position + 1, threads = pool.threadCount
        let chunk = (length + threads - 1) / threads
        let scale = 1 / Float(hd).squareRoot()
        let parts = Attention.PartialState(
            accumulators: s.splitParts, maxima: s.splitParts + threads * heads * hd,
            sums: s.splitParts + threads * heads * (hd + 1))
        pool.run { worker in
            let scratch = Attention.Scratch(s.softmaxSteps + worker * s.attentionScratchCount)
            let first = min(length, worker * chunk), count = min(chunk, length - first)
            for kvHead in 0..<kvHeads {
                let head = worker * heads + kvHead * group   // (part, head) index
                Attention.accumulate(
                    queries: s.q + kvHead * group * hd, heads: group, headDimension: hd,
                    keys: cache.keys(layer: l, head: kvHead, position: first),
                    values: cache.values(layer: l, head: kvHead, position: first), rowStride: hd,
                    length: count, scale: scale, halfPrecision: false, scratch: scratch,
                    into: Attention.PartialState(
                        accumulators: parts.accumulators + head * hd, maxima: parts.maxima + head, sums: parts.sums + head))
            }
        }
        Attention.combine(parts: threads, heads: heads, headDimension: hd, halfPrecision: false, parts, into: s.attention)
    }

    private func rmsNorm(_ x: UnsafePointer<Float>, _ weight: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, rows: Int) {
        let dim = configuration.embeddingLength
        for t in 0..<rows {
            VectorMath.rmsNorm(x + t * dim, weight: weight, epsilon: configuration.rmsNormEpsilon, into: out + t * dim, count: dim)
        }
    }

    private func multiply(_ matrix: WeightMatrix, _ x: UnsafePointer<Float>, _ rows: Int, into y: UnsafeMutablePointer<Float>) {
        MatrixMultiply.multiply(matrix, x, tokens: rows, into: y, scratch: state.activations, pool: pool)
    }

    /// Two or three products of the same input as one job for the pool (the input quantized once).
    private func multiply(
        _ a: (WeightMatrix, UnsafeMutablePointer<Float>), _ b: (WeightMatrix, UnsafeMutablePointer<Float>),
        _ c: (WeightMatrix, UnsafeMutablePointer<Float>)?, _ x: UnsafePointer<Float>, _ rows: Int
    ) {
        MatrixMultiply.multiply(
            .init(a.0, into: a.1), .init(b.0, into: b.1), c.map { .init($0.0, into: $0.1) }, x, tokens: rows,
            scratch: state.activations, pool: pool)
    }

    private func addBias(_ bias: UnsafePointer<Float>?, to x: UnsafeMutablePointer<Float>, rows: Int, length: Int) {
        guard let bias else { return }
        for t in 0..<rows { VectorMath.add(bias, to: x + t * length, count: length) }
    }
}

/// Scratch buffers of one forward pass, sized for a batch; allocated once per model.
final class RunState: @unchecked Sendable {
    let x, xb, q, k, v, attention, hidden, hidden2, logits: UnsafeMutablePointer<Float>
    /// Per worker: ``Attention/Scratch`` for the query heads of one key/value head.
    let softmaxSteps: UnsafeMutablePointer<Float>
    /// Floats of `softmaxSteps` per worker.
    let attentionScratchCount: Int
    /// Split decoding's partial states: accumulators `(threads, heads, headDim)`, then maxima
    /// and sums `(threads, heads)` each.
    let splitParts: UnsafeMutablePointer<Float>
    let contextLength: Int
    let activations = Q8Activations()
    private let all: [UnsafeMutablePointer<Float>]

    init(_ c: ModelConfiguration, batch: Int, threads: Int, contextLength: Int) {
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
            p.initialize(repeating: 0, count: count)
            return p
        }
        x = buffer(batch * c.embeddingLength)                      // (batch, dim) residual stream
        xb = buffer(batch * max(c.embeddingLength, c.queryLength)) // (batch, dim) normed input / projections
        q = buffer(batch * c.queryLength)                          // (batch, heads · headDim)
        k = buffer(batch * c.keyValueLength)                       // (batch, kvHeads · headDim)
        v = buffer(batch * c.keyValueLength)
        attention = buffer(batch * c.queryLength)                  // (batch, heads · headDim)
        hidden = buffer(batch * c.feedForwardLength)               // (batch, ffn)
        hidden2 = buffer(batch * c.feedForwardLength)
        self.contextLength = contextLength
        attentionScratchCount = Attention.Scratch.count(
            heads: c.headCount / c.keyValueHeadCount, headDimension: c.headDimension)
        softmaxSteps = buffer(threads * attentionScratchCount)        // (threads, scratch)
        splitParts = buffer(threads * c.headCount * (c.headDimension + 2))  // (threads, heads, hd + 2)
        logits = buffer(batch * c.vocabularySize)                  // (batch, vocab)
        all = [x, xb, q, k, v, attention, hidden, hidden2, logits, softmaxSteps, splitParts]
    }

    deinit {
        for p in all { p.deallocate() }
    }
}
