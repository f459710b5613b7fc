import PocketGGUF
import PocketKernels
import PocketTransformer

/// Per-column activation statistics of every weight matrix (llama.cpp's "imatrix"): for matrix
/// W and column j, the mean of x_j² over the calibration tokens, where x is the vector W
/// multiplies.
///
/// Quantizing W to Ŵ changes the product by (Ŵ − W)·x, whose expected square is
/// Σ_j (Ŵ_ij − W_ij)² · E[x_j²] when the columns are roughly uncorrelated. These means are
/// therefore the weights the encoders give each weight's rounding error
/// (``ImportanceWeightedFormat``) and the weights of the planner's error estimate
/// (``BudgetPlanner``).
///
/// Collected by running the model itself through its ``Transformer/trace`` hook (no cost to
/// normal inference): `attn_norm` feeds Q/K/V, `kqv_out` the attention output projection,
/// `ffn_norm` the gate and up projections, the gated activation (`ffn_swiglu`, Gemma's
/// `ffn_geglu`: the family's ``GatedActivation/traceName``) the down projection, and the final
/// normalized hidden state the output projection. A token embedding used only as a lookup
/// table has no column statistics (it is weighted uniformly); a tied one (no `output.weight`)
/// serves both uses, so its importance is the output statistics scaled to mean 1, plus 1.
///
/// The calibration text arrives as token ids, tokenized by the caller as plain text (no special
/// tokens), so this layer needs no tokenizer:
///
/// ```swift
/// let tokens = tokenizer.encode(CalibrationText.default.text, parseSpecial: false)
/// let matrix = try ImportanceMatrix.collect(model: transformer, tokens: tokens)
/// matrix.importance(forTensor: "blk.0.ffn_down.weight")   // [Float], one per column
/// ```
///
/// The accumulation is sequential in Double and the forward pass gives the same floats for any
/// thread count, so the statistics (and the quantized file) do not depend on the thread count.
public struct ImportanceMatrix: Sendable, Equatable {
    /// Mean squared activation of each input column, by tensor name.
    public let columns: [String: [Float]]
    /// Number of calibration tokens evaluated.
    public let tokenCount: Int

    /// Statistics from memory (tests, or statistics computed elsewhere).
    public init(columns: [String: [Float]], tokenCount: Int) {
        self.columns = columns
        self.tokenCount = tokenCount
    }

    /// The fewest calibration tokens accepted: below this the column means are mostly noise.
    public static let minimumTokens = 64

    /// The importance the encoders use for `name`: the column means plus 1 % of their average,
    /// so that a column the calibration text never exercised still counts a little (and a
    /// sub-block is never weighted all zero); `nil` when there are no statistics for it.
    public func importance(forTensor name: String) -> [Float]? {
        guard let means = columns[name], !means.isEmpty else { return nil }
        let floor = means.reduce(0, +) / Float(means.count) * 0.01
        return means.map { $0 + Swift.max(floor, .leastNormalMagnitude) }
    }

    /// Runs `model` over the first `maxTokens` of `tokens` in independent chunks of
    /// `chunkLength` (each from an empty cache, like perplexity) and averages the squared
    /// activations entering each matrix.
    ///
    /// - Parameters:
    ///   - model: The model to measure; its trace hook is borrowed and its cache emptied.
    ///   - tokens: The calibration text's token ids (a ``CalibrationText`` tokenized as plain text).
    ///   - maxTokens: How many of `tokens` to evaluate at most.
    ///   - chunkLength: Tokens per independent chunk (capped at the model's context).
    ///   - beginningOfSequence: The token that replaces each chunk's first (BOS, for a model
    ///     whose tokenizer adds it: ``Tokenizer/addsBOS``, as llama.cpp's imatrix does), or `nil`
    ///     to keep it.
    ///   - progress: Called after each chunk with the tokens done and the total.
    /// - Returns: The column means of every weight matrix the calibration exercised.
    /// - Throws: ``QuantizationError/calibrationTooShort(tokens:minimum:)`` when there are
    ///   fewer than ``minimumTokens`` tokens; ``QuantizationError/calibrationFailed(reason:)``
    ///   when the model cannot evaluate them.
    /// - Complexity: One forward pass over `min(maxTokens, tokens.count)` tokens.
    public static func collect(
        model: Transformer, tokens all: [Int], maxTokens: Int = 4096,
        chunkLength: Int = 512, beginningOfSequence: Int? = nil, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(QuantizationError) -> ImportanceMatrix {
        guard all.count >= minimumTokens else { throw .calibrationTooShort(tokens: all.count, minimum: minimumTokens) }
        let tokens = Array(all.prefix(maxTokens))
        let chunk = Swift.max(1, Swift.min(chunkLength, model.contextLength))
        let c = model.configuration
        let names = c.architecture.definition
        let outputName = model.file.tensor(named: names.output) != nil ? names.output : names.tokenEmbedding
        let normed = UnsafeMutablePointer<Float>.allocate(capacity: c.embeddingLength)
        defer { normed.deallocate() }

        // Sums of squares per trace entry (`attn_norm-3`, …), then mapped to tensor names.
        var sums: [String: [Double]] = [:]
        func accumulate(_ key: String, _ rows: Int, _ values: UnsafeBufferPointer<Float>) {
            let columns = values.count / Swift.max(1, rows)
            var sum = sums[key] ?? [Double](repeating: 0, count: columns)
            for r in 0..<rows {
                for j in 0..<columns {
                    let v = Double(values[r * columns + j])
                    sum[j] += v * v
                }
            }
            sums[key] = sum
        }
        let last = "l_out-\(c.layerCount - 1)", activation = "\(names.feedForwardActivation.traceName)"
        let previous = model.trace
        model.trace = { name, rows, values in
            if name == last {
                // The output projection sees rmsnorm(x) · output_norm of the last hidden state.
                let dim = c.embeddingLength
                for r in 0..<rows {
                    VectorMath.rmsNorm(values.baseAddress! + r * dim, weight: model.weights.outputNorm,
                                       epsilon: c.rmsNormEpsilon, into: normed, count: dim)
                    accumulate("output", 1, UnsafeBufferPointer(start: normed, count: dim))
                }
            } else if name.hasPrefix("attn_norm-") || name.hasPrefix("kqv_out-")
                        || name.hasPrefix("ffn_norm-") || name.hasPrefix(activation + "-") {
                accumulate(name, rows, values)
            }
        }
        defer { model.trace = previous }
        var done = 0
        do {
            for start in stride(from: 0, to: tokens.count, by: chunk) {
                let end = Swift.min(start + chunk, tokens.count)
                model.truncate(to: 0)
                var slice = Array(tokens[start..<end])
                if let beginningOfSequence { slice[0] = beginningOfSequence }
                try model.evaluate(slice, logits: .none)
                done = end
                progress(done, tokens.count)
            }
        } catch {
            throw .calibrationFailed(reason: "\(error)")
        }
        model.truncate(to: 0)

        let count = Double(tokens.count)
        func means(_ key: String) -> [Float]? { sums[key].map { $0.map { Float($0 / count) } } }
        var columns: [String: [Float]] = [:]
        for tensor in model.file.tensors {
            let role = TensorRole(tensor: tensor.name, in: names)
            if let layer = TensorRole.layer(ofTensor: tensor.name),
               let key = inputTrace(of: role, layer: layer, activation: activation) {
                columns[tensor.name] = means(key)
            }
        }
        if var output = means("output") {
            if outputName == names.tokenEmbedding {
                // A tied embedding is also the input lookup table, where every column counts the
                // same: weight both uses equally (output statistics scaled to mean 1, plus 1).
                let mean = output.reduce(0, +) / Float(Swift.max(1, output.count))
                if mean > 0 { output = output.map { $0 / mean + 1 } }
            }
            columns[outputName] = output
        }
        return ImportanceMatrix(columns: columns, tokenCount: tokens.count)
    }

    /// The trace entry of layer `layer` whose values a matrix of `role` multiplies: `attn_norm`
    /// for the query, key and value projections, `kqv_out` for the attention output, `ffn_norm`
    /// for the gate and up projections, the gated `activation` for the down projection; `nil`
    /// for the rest.
    static func inputTrace(of role: TensorRole, layer: Int, activation: String) -> String? {
        switch role {
        case .query, .key, .value: "attn_norm-\(layer)"
        case .attentionOutput: "kqv_out-\(layer)"
        case .gate, .up: "ffn_norm-\(layer)"
        case .down: "\(activation)-\(layer)"
        case .tokenEmbedding, .output, .norm, .other: nil
        }
    }
}
