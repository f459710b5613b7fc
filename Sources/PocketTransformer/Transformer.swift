import Foundation
import PocketGGUF
import PocketKernels

/// A decoder-only transformer of one of the ``Architecture`` families: weights from a GGUF
/// file, a KV cache, and the forward pass.
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
    /// How the forward pass orders its floating-point operations (a Pocket addition).
    public let arithmetic: ArithmeticOrder

    /// Context window in tokens: how many positions the cache holds.
    public var contextLength: Int { cache.capacity }

    /// The family's choices that apply to every layer.
    private let definition: ArchitectureDefinition
    /// What each layer does differently from the others (RoPE base, attention window), decided once.
    private let blocks: [BlockPlan]
    /// The factor of the embedding rows (`√dim` for Gemma), or `nil` to keep them as stored.
    private let embeddingScale: Float?
    /// The factor of the queries that turns the attention kernel's `1/√headDim` into the
    /// family's scale, or `nil` when the two agree (every family but Gemma 3 27B).
    private let queryScale: Float?
    private let state: RunState
    /// The products in llama.cpp's order, in ``ArithmeticOrder/llamaCpp``.
    private let llamaProducts: LlamaOrderProducts?

    /// A debugging aid: when set, receives every intermediate tensor of the forward pass under
    /// llama.cpp's names (`attn_norm-0`, `Qcur-0` after RoPE, `Kcur-0`, `Vcur-0`, `attn_out-0`,
    /// `kqv_out-0` (the attention output projection's input), `ffn_inp-0`, `ffn_norm-0`, `ffn_gate-0`, `ffn_up-0`, `ffn_swiglu-0`, `ffn_out-0`,
    /// `l_out-0`, …, `result_norm`, `result_output`; for the families that have those steps
    /// `inp_scaled`, `Qcur_normed-0`, `Kcur_normed-0`, `attn_post_norm-0`, `ffn_geglu-0`,
    /// `ffn_post_norm-0`) as `(rows, columns)` row-major floats, so a
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
    ///   - arithmetic: Pocket's kernels (the default) or llama.cpp's order of operations
    ///     (``ArithmeticOrder``, a Pocket addition).
    /// - Throws: ``TransformerError`` when the architecture is unsupported or a tensor is
    ///   missing or malformed.
    public init(
        file: GGUFFile, contextLength: Int? = nil, batchSize: Int = 64, pool: ThreadPool = .shared,
        arithmetic: ArithmeticOrder = .fastest
    ) throws(TransformerError) {
        let configuration = try ModelConfiguration(metadata: file.metadata)
        let capacity = min(contextLength ?? 4096, configuration.trainedContextLength)
        guard capacity >= 1 else { throw .invalidConfiguration("context length must be at least 1") }
        self.file = file
        self.configuration = configuration
        let weights = try TransformerWeights(file: file, configuration: configuration)
        // llama.cpp's order reads the blocks as stored.
        self.weights = arithmetic == .llamaCpp ? weights : weights.withRowGroups(releasingPagesOf: file, pool: pool)
        self.arithmetic = arithmetic
        llamaProducts = arithmetic == .llamaCpp ? LlamaOrderProducts() : nil
        self.batchSize = max(1, batchSize)
        self.pool = pool
        cache = KVCache(
            capacity: capacity, layerCount: configuration.layerCount,
            headCount: configuration.keyValueHeadCount, headDimension: configuration.headDimension)
        let definition = configuration.architecture.definition
        self.definition = definition
        blocks = BlockPlan.plans(configuration, frequencyFactors: weights.ropeFrequencyFactors, positions: capacity)
        embeddingScale = switch definition.embeddingScale {
        case .none: nil
        case .squareRootOfWidth: Float(configuration.embeddingLength).squareRoot()
        }
        // The kernel multiplies scores by 1/√headDim, computed as here: an equal family scale
        // needs no factor (and Llama's and Qwen's queries stay untouched, bit for bit).
        let kernelScale = 1 / Float(configuration.headDimension).squareRoot()
        queryScale = configuration.attentionScale == kernelScale ? nil : configuration.attentionScale / kernelScale
        state = RunState(configuration, batch: self.batchSize, threads: pool.threadCount, contextLength: capacity)
    }

    /// Its matrix products let the pool's idle workers load these weights into their caches
    /// (cache warming): stop that before they are freed.
    deinit { pool.forgetWarming() }

    /// Opens and loads the GGUF model at `url` (memory-mapped).
    public convenience init(
        contentsOf url: URL, contextLength: Int? = nil, batchSize: Int = 64, pool: ThreadPool = .shared,
        arithmetic: ArithmeticOrder = .fastest
    ) throws {
        try self.init(
            file: GGUFFile(contentsOf: url), contextLength: contextLength, batchSize: batchSize, pool: pool, arithmetic: arithmetic)
    }

    /// Which tokens of an evaluation need logits.
    public enum LogitsRequest: Sendable {
        /// Only the last token (generation).
        case last
        /// Every token (perplexity, scoring).
        case all
        /// None (prefilling a prefix to reuse later).
        case none
        /// The last `count` tokens (verifying a draft: the logits after each drafted token).
        case trailing(Int)
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
        try evaluate(tokens, logits: request, halfPrecisionAttention: tokens.count > 1, receive)
    }

    /// ``evaluate(_:logits:_:)`` with the attention accumulator's precision chosen by the
    /// caller: the decode loop keeps single precision for the few tokens of a forced run or a
    /// draft, as for one token, so that their logits are the ones one-at-a-time decoding gives.
    func evaluate(
        _ tokens: [Int], logits request: LogitsRequest, halfPrecisionAttention: Bool,
        _ receive: (_ index: Int, _ logits: UnsafeBufferPointer<Float>) -> Void
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
            case .trailing(let count): (min(max(tokens.count - count, start), end) - start)..<(end - start)
            }
            tokens[start..<end].withContiguousStorageIfAvailable { batch in
                forward(batch, logitRows: rows, halfPrecisionAttention: halfPrecisionAttention)
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
    /// `halfPrecisionAttention` selects the precision of attention's value accumulator (see
    /// `attention`): half when the whole evaluation has more than one token, as in llama.cpp,
    /// single for one token. It depends on the evaluation's token count, not on how it is split
    /// into batches, so a batch of one that ends a longer evaluation still gets half precision.
    /// Each step hands its result to ``trace`` under llama.cpp's name for it (its last argument).
    private func forward(_ tokens: UnsafeBufferPointer<Int>, logitRows: Range<Int>, halfPrecisionAttention: Bool) {
        let c = configuration, s = state, w = weights
        let n = tokens.count                 // tokens in this batch

        // x = embedding rows of the tokens, times √dim for Gemma                         (n, dim)
        for t in 0..<n { w.tokenEmbedding.dequantizeRow(tokens[t], into: s.x + t * c.embeddingLength) }
        if let embeddingScale { scale(s.x, rows: n, by: embeddingScale, ("inp_scaled", nil)) }

        for (l, layer) in w.layers.enumerated() {
            let block = blocks[l]                // this layer's RoPE table and attention window
            // Attention: x += post(Wo · attention(rope(qn(Wq·h + bq)), rope(kn(Wk·h + bk)), Wv·h + bv)),
            // h = rmsnorm(x); qn, kn and post are per-head and output RMSNorms where the family has them
            rmsNorm(s.x, rows: 0..<n, layer.attentionNorm, into: s.xb, ("attn_norm", l))      // h (n, dim)
            project(s.xb, rows: n, (layer.query, layer.queryBias, s.q), (layer.key, layer.keyBias, s.k),
                    (layer.value, layer.valueBias, s.v))                                      // (n, q), (n, kv), (n, kv)
            if let norm = layer.queryNorm { headNorm(s.q, rows: n, heads: c.headCount, norm, ("Qcur_normed", l)) }
            if let norm = layer.keyNorm { headNorm(s.k, rows: n, heads: c.keyValueHeadCount, norm, ("Kcur_normed", l)) }
            rope(s.q, rows: n, heads: c.headCount, block.rotary, ("Qcur", l))
            rope(s.k, rows: n, heads: c.keyValueHeadCount, block.rotary, ("Kcur", l))
            store(layer: l, rows: n, ("Vcur", l))                                            // k, v into the cache
            attention(layer: l, rows: n, window: block.window, halfPrecision: halfPrecisionAttention, ("kqv_out", l))  // (n, q)
            multiply(layer.output, s.attention, rows: n, into: s.xb, ("attn_out", l))        // (n, dim)
            if let norm = layer.postAttentionNorm { rmsNorm(s.xb, rows: 0..<n, norm, into: s.xb, ("attn_post_norm", l)) }
            add(s.xb, to: s.x, rows: n, ("ffn_inp", l))

            // Feed-forward: x += post(Wdown · (act(Wgate·h) ⊙ Wup·h)), h = rmsnorm(x); act is SiLU or GELU
            rmsNorm(s.x, rows: 0..<n, layer.feedForwardNorm, into: s.xb, ("ffn_norm", l))    // h (n, dim)
            project(s.xb, rows: n, (layer.gate, nil, s.hidden), (layer.up, nil, s.hidden2))   // (n, ffn), (n, ffn)
            gatedActivation(gate: s.hidden, up: s.hidden2, rows: n, layer: l)                 // (n, ffn) into s.hidden
            multiply(layer.down, s.hidden, rows: n, into: s.xb, ("ffn_out", l))              // (n, dim)
            if let norm = layer.postFeedForwardNorm { rmsNorm(s.xb, rows: 0..<n, norm, into: s.xb, ("ffn_post_norm", l)) }
            add(s.xb, to: s.x, rows: n, ("l_out", l))
        }

        // Logits for the requested rows: W_out · rmsnorm(x)                               (rows, vocab)
        guard !logitRows.isEmpty else { return }
        rmsNorm(s.x, rows: logitRows, w.outputNorm, into: s.xb, ("result_norm", nil))
        multiply(w.output, s.xb, rows: logitRows.count, into: s.logits, ("result_output", nil))
    }

    // MARK: - The steps, each handing its result to the trace

    /// llama.cpp's name for a traced tensor: `attn_norm-3` for layer 3, `result_norm` outside
    /// the blocks.
    private typealias TraceName = (base: StaticString, layer: Int?)

    /// Hands `rows × columns` floats at `values` to ``trace``, when set, under `name`.
    private func record(_ name: TraceName, _ values: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        guard let trace else { return }
        let label = name.layer.map { "\(name.base)-\($0)" } ?? "\(name.base)"
        trace(label, rows, UnsafeBufferPointer(start: values, count: rows * columns))
    }

    /// `out[i] = rmsnorm(x[rows[i]]) ⊙ weight`: row `i` of `out` from row `rows[i]` of `x`;
    /// `out` may be `x` (each row is read whole before it is written).                      (rows, dim)
    private func rmsNorm(
        _ x: UnsafePointer<Float>, rows: Range<Int>, _ weight: UnsafePointer<Float>,
        into out: UnsafeMutablePointer<Float>, _ name: TraceName
    ) {
        let dim = configuration.embeddingLength, epsilon = configuration.rmsNormEpsilon
        for (i, t) in rows.enumerated() {
            VectorMath.rmsNorm(x + t * dim, weight: weight, epsilon: epsilon, into: out + i * dim, count: dim)
        }
        record(name, out, rows: rows.count, columns: dim)
    }

    /// RMSNorm of each `headDim` head of `rows` rows of `x`, in place, with the one `(headDim)`
    /// weight all heads share (Gemma's query and key norms).                              (rows, heads · headDim)
    private func headNorm(_ x: UnsafeMutablePointer<Float>, rows: Int, heads: Int, _ weight: UnsafePointer<Float>, _ name: TraceName) {
        let hd = configuration.headDimension, epsilon = configuration.rmsNormEpsilon
        for head in 0..<(rows * heads) {
            VectorMath.rmsNorm(x + head * hd, weight: weight, epsilon: epsilon, into: x + head * hd, count: hd)
        }
        record(name, x, rows: rows, columns: heads * hd)
    }

    /// `x *= factor` for `rows` rows of the residual stream.                                 (rows, dim)
    private func scale(_ x: UnsafeMutablePointer<Float>, rows: Int, by factor: Float, _ name: TraceName) {
        VectorMath.scale(x, by: factor, count: rows * configuration.embeddingLength)
        record(name, x, rows: rows, columns: configuration.embeddingLength)
    }

    /// A projection of ``project(_:rows:_:_:_:)``: the matrix, its optional bias and its output.
    private typealias Projection = (matrix: WeightMatrix, bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>)

    /// `y = W·x + b` for two or three matrices of the same input (`rows` vectors), as one job
    /// for the pool with the input quantized once.
    private func project(_ x: UnsafePointer<Float>, rows: Int, _ a: Projection, _ b: Projection, _ c: Projection? = nil) {
        if llamaProducts != nil {
            for p in [a, b] + (c.map { [$0] } ?? []) {
                product(p.matrix, x, rows: rows, into: p.output)
                addBias(p, rows: rows)
            }
            return
        }
        MatrixMultiply.multiply(
            .init(a.matrix, into: a.output), .init(b.matrix, into: b.output), c.map { .init($0.matrix, into: $0.output) },
            x, tokens: rows, scratch: state.activations, pool: pool, warmingCaches: true)
        addBias(a, rows: rows)
        addBias(b, rows: rows)
        if let c { addBias(c, rows: rows) }
    }

    private func addBias(_ p: Projection, rows: Int) {
        guard let bias = p.bias else { return }
        let length = p.matrix.rows
        for t in 0..<rows { VectorMath.add(bias, to: p.output + t * length, count: length) }
    }

    /// RoPE (`rotary`, the layer's table) on each of the `heads` heads of `rows` rows of `x` at
    /// positions `position…`.                                                               (rows, heads · headDim)
    private func rope(_ x: UnsafeMutablePointer<Float>, rows: Int, heads: Int, _ rotary: RotaryEmbedding, _ name: TraceName) {
        let hd = configuration.headDimension, width = heads * hd
        for t in 0..<rows {
            for h in 0..<heads {
                if arithmetic == .llamaCpp {
                    rotary.applyFused(to: x + t * width + h * hd, position: position + t)
                } else {
                    rotary.apply(to: x + t * width + h * hd, position: position + t)
                }
            }
        }
        record(name, x, rows: rows, columns: width)
    }

    /// Appends the batch's keys and values (`state.k`, `state.v`) to layer `l` of the cache at
    /// positions `position…`, rounded to half precision; traces the values under `name`.
    private func store(layer l: Int, rows: Int, _ name: TraceName) {
        let s = state, hd = configuration.headDimension, kv = configuration.keyValueLength
        for t in 0..<rows {
            for h in 0..<configuration.keyValueHeadCount {
                VectorMath.convert(s.k + t * kv + h * hd, toHalf: cache.keys(layer: l, head: h, position: position + t), count: hd)
                VectorMath.convert(s.v + t * kv + h * hd, toHalf: cache.values(layer: l, head: h, position: position + t), count: hd)
            }
        }
        record(name, s.v, rows: rows, columns: kv)
    }

    /// Causal attention of the batch's queries (`state.q`) over layer `l`'s cache into
    /// `state.attention`, over the last `window` positions of each query when the layer has a
    /// sliding window.                                                                       (rows, heads · headDim)
    ///
    /// Queries are first rounded to half precision, to meet the half-precision keys as in
    /// llama.cpp (after the family's factor, ``queryScale``, where it has one). Evaluations of
    /// more than one token keep llama.cpp's half-precision value accumulator (`halfPrecision`),
    /// single-token ones single precision. How the work is split over the threads is
    /// ``Attention/Schedule``'s decision.
    ///
    /// A window of `w` lets position `p` attend to positions `p − w + 1 … p` (llama.cpp masks
    /// `p − j ≥ w`). The queries whose window still starts at position 0 are one causal pass;
    /// each later query is a pass of its own over the cache from its window's first position,
    /// visiting the same positions in the same order as llama.cpp's masked softmax skips the others.
    private func attention(layer l: Int, rows: Int, window: Int?, halfPrecision: Bool, _ name: TraceName) {
        let c = configuration, s = state
        if arithmetic == .llamaCpp {
            llamaOrderAttention(layer: l, rows: rows, window: window)
            record(name, s.attention, rows: rows, columns: c.queryLength)
            return
        }
        if let queryScale { VectorMath.scale(s.q, by: queryScale, count: rows * c.queryLength) }
        VectorMath.roundToHalf(s.q, count: rows * c.queryLength)
        // Queries 0..<unwindowed see every cached position up to their own.
        let unwindowed = window.map { max(0, min(rows, $0 - position)) } ?? rows
        func causal(from first: Int, queries: Range<Int>) {
            Attention.causal(
                queries: s.q + queries.lowerBound * c.queryLength, tokens: queries.count, heads: c.headCount,
                keyValueHeads: c.keyValueHeadCount, headDimension: c.headDimension,
                keys: cache.keys(layer: l, head: 0, position: first), values: cache.values(layer: l, head: 0, position: first),
                headStride: cache.capacity * c.headDimension, start: position + queries.lowerBound - first,
                halfPrecision: halfPrecision, workspace: s.attentionWorkspace, pool: pool,
                into: s.attention + queries.lowerBound * c.queryLength)
        }
        if unwindowed > 0 { causal(from: 0, queries: 0..<unwindowed) }
        if let window {
            for t in unwindowed..<rows { causal(from: position + t - window + 1, queries: t..<(t + 1)) }
        }
        record(name, s.attention, rows: rows, columns: c.queryLength)
    }

    /// ``attention(layer:rows:window:halfPrecision:_:)`` in llama.cpp's order
    /// (``LlamaOrderAttention``), one query head at a time: the family's scale applied to the
    /// queries before they are rounded to half precision where llama.cpp scales them
    /// (``ArchitectureDefinition/scalesQueries``), to the scores otherwise.
    private func llamaOrderAttention(layer l: Int, rows: Int, window: Int?) {
        let c = configuration, s = state, hd = c.headDimension
        var scale = c.attentionScale
        if definition.scalesQueries {
            VectorMath.scale(s.q, by: scale, count: rows * c.queryLength)
            scale = 1
        }
        VectorMath.roundToHalf(s.q, count: rows * c.queryLength)
        let group = c.headCount / c.keyValueHeadCount, start = position, cache = cache
        pool.parallelFor(rows * c.headCount) { range in
            for item in range {
                let t = item / c.headCount, h = item % c.headCount, last = start + t
                let first = window.map { max(0, last - $0 + 1) } ?? 0
                LlamaOrderAttention.attend(
                    query: s.q + t * c.queryLength + h * hd, headDimension: hd,
                    keys: cache.keys(layer: l, head: h / group, position: first),
                    values: cache.values(layer: l, head: h / group, position: first),
                    rowStride: hd, length: last - first + 1, scale: scale,
                    into: s.attention + t * c.queryLength + h * hd)
            }
        }
    }

    /// `y = W·x` for `rows` vectors.                                                         (rows, W.rows)
    private func multiply(
        _ matrix: WeightMatrix, _ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>, _ name: TraceName
    ) {
        product(matrix, x, rows: rows, into: y)
        record(name, y, rows: rows, columns: matrix.rows)
    }

    /// `y = W·x` for `rows` vectors, in llama.cpp's order in ``ArithmeticOrder/llamaCpp``
    /// where it has the format.
    private func product(_ matrix: WeightMatrix, _ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>) {
        if let llamaProducts, LlamaOrderProducts.supports(matrix.type) {
            llamaProducts.multiply(matrix, x, tokens: rows, into: y, pool: pool)
        } else {
            MatrixMultiply.multiply(matrix, x, tokens: rows, into: y, scratch: state.activations, pool: pool, warmingCaches: true)
        }
    }

    /// The residual connection `x += y`.                                                       (rows, dim)
    private func add(_ y: UnsafePointer<Float>, to x: UnsafeMutablePointer<Float>, rows: Int, _ name: TraceName) {
        let dim = configuration.embeddingLength
        VectorMath.add(y, to: x, count: rows * dim)
        record(name, x, rows: rows, columns: dim)
    }

    /// `gate = act(gate) ⊙ up`, row by row, with the family's activation (SiLU or GELU);
    /// traces the two inputs (`ffn_gate`, `ffn_up`) and the result (`ffn_swiglu` or
    /// `ffn_geglu`) of layer `l`.                                                              (rows, ffn)
    private func gatedActivation(gate: UnsafeMutablePointer<Float>, up: UnsafeMutablePointer<Float>, rows: Int, layer l: Int) {
        let ffn = configuration.feedForwardLength
        record(("ffn_gate", l), gate, rows: rows, columns: ffn)
        record(("ffn_up", l), up, rows: rows, columns: ffn)
        switch definition.feedForwardActivation {
        case .silu: for t in 0..<rows { VectorMath.swiGLU(gate + t * ffn, up: up + t * ffn, count: ffn) }
        case .geluTanh: GELU.gated(gate, up: up, count: rows * ffn)
        }
        record((definition.feedForwardActivation.traceName, l), gate, rows: rows, columns: ffn)
    }
}

/// What one layer does differently from the others, decided at load: its RoPE table (local
/// layers of a sliding-window family have their own base) and its attention window.
struct BlockPlan {
    /// The RoPE table of the layer's base frequency, with the file's frequency factors.
    let rotary: RotaryEmbedding
    /// Positions each query attends to, itself included; `nil` for the whole context.
    let window: Int?

    /// One plan per layer of `c`, with a RoPE table per distinct base (shared by the layers
    /// that use it) for `positions` positions; `frequencyFactors` (`rope_freqs.weight`, one
    /// divisor per rotated pair) apply to every layer, as in llama.cpp.
    static func plans(_ c: ModelConfiguration, frequencyFactors: UnsafePointer<Float>?, positions: Int) -> [BlockPlan] {
        var tables: [Float: RotaryEmbedding] = [:]
        return (0..<c.layerCount).map { l in
            let base = c.ropeFrequencyBase(layer: l)
            let rotary = tables[base] ?? RotaryEmbedding(
                dimensions: c.ropeDimensionCount, base: base, style: c.architecture.definition.ropeStyle, positions: positions,
                frequencyFactors: frequencyFactors)
            tables[base] = rotary
            // A window as long as the cache never binds: leave such layers global.
            let window = c.isSlidingWindowLayer(l) ? c.slidingWindow.flatMap { $0 < positions ? $0 : nil } : nil
            return BlockPlan(rotary: rotary, window: window)
        }
    }
}

/// Scratch buffers of one forward pass, sized for a batch; allocated once per model.
final class RunState: @unchecked Sendable {
    let x, xb, q, k, v, attention, hidden, hidden2, logits: UnsafeMutablePointer<Float>
    /// Attention's per-thread working memory.
    let attentionWorkspace: Attention.Workspace
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
        attentionWorkspace = Attention.Workspace(
            threads: threads, heads: c.headCount, keyValueHeads: c.keyValueHeadCount, headDimension: c.headDimension)
        logits = buffer(batch * c.vocabularySize)                  // (batch, vocab)
        all = [x, xb, q, k, v, attention, hidden, hidden2, logits]
    }

    deinit {
        for p in all { p.deallocate() }
    }
}
