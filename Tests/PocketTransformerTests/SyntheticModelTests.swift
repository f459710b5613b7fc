import Foundation
import Testing
import PocketGGUF
import PocketKernels
import PocketTransformer

/// A tiny model with random F32 weights, written as a GGUF file in memory and run both by the
/// Transformer and by a plain double-precision reference written here from the formulas. It
/// checks shapes, grouped-query attention, both RoPE styles, Q/K/V biases, tied or separate
/// output projections, Gemma 3's block (scaled embedding, Q/K norms, post-norms, GELU, a
/// sliding window that binds, two RoPE bases), Qwen3's (Q/K norms, a head dimension of its own)
/// and RoPE frequency factors (`rope_freqs.weight`), without any model file.
@Suite struct SyntheticModelTests {
    struct Shape {
        var dim = 64, heads = 4, kvHeads = 2, ffn = 96, layers = 2, vocabulary = 50
        /// `attention.key_length`, when the head dimension is not `dim / heads`.
        var keyLength: Int? = nil
        /// `rope_freqs.weight`: one divisor per rotated pair.
        var ropeFactors: [Float]? = nil
        var headDim: Int { keyLength ?? dim / heads }
        /// Width of all query heads together.
        var queryLength: Int { heads * headDim }

        /// The shape for `architecture`: Gemma 3 needs 6 layers for a global one among its
        /// local ones; Qwen3's heads are wider than `dim / heads` (32, not 16), as in its models.
        static func of(_ architecture: String) -> Shape {
            var shape = Shape()
            if architecture == "gemma3" { shape.layers = 6 }
            if architecture == "qwen3" { shape.keyLength = 32 }
            return shape
        }
    }

    /// Gemma 3's window in the synthetic file: 3 positions, so that it binds within 8 tokens.
    static let gemmaWindow = 3
    /// Gemma 3's global RoPE base in the synthetic file (its local layers use 10,000).
    static let gemmaGlobalBase = 1_000_000.0

    /// Deterministic weights: `tensors[name] = (dimensions, values)`.
    static func weights(_ s: Shape, architecture: String, tied: Bool, seed: UInt64) -> [(String, [Int], [Float])] {
        var random = SplitMix64(seed: seed)
        func values(_ count: Int, scale: Float) -> [Float] {
            (0..<count).map { _ in (random.nextUnitFloat() * 2 - 1) * scale }
        }
        func norm(_ count: Int) -> [Float] { (0..<count).map { _ in 0.8 + random.nextUnitFloat() * 0.4 } }
        let kv = s.kvHeads * s.headDim, q = s.queryLength
        var out: [(String, [Int], [Float])] = [("token_embd.weight", [s.dim, s.vocabulary], values(s.dim * s.vocabulary, scale: 1))]
        for l in 0..<s.layers {
            let p = "blk.\(l)."
            out.append((p + "attn_norm.weight", [s.dim], norm(s.dim)))
            out.append((p + "attn_q.weight", [s.dim, q], values(s.dim * q, scale: 0.3)))
            out.append((p + "attn_k.weight", [s.dim, kv], values(s.dim * kv, scale: 0.3)))
            out.append((p + "attn_v.weight", [s.dim, kv], values(s.dim * kv, scale: 0.3)))
            if architecture == "qwen2" {
                out.append((p + "attn_q.bias", [q], values(q, scale: 0.2)))
                out.append((p + "attn_k.bias", [kv], values(kv, scale: 0.2)))
                out.append((p + "attn_v.bias", [kv], values(kv, scale: 0.2)))
            }
            if architecture == "gemma3" || architecture == "qwen3" {
                out.append((p + "attn_q_norm.weight", [s.headDim], norm(s.headDim)))
                out.append((p + "attn_k_norm.weight", [s.headDim], norm(s.headDim)))
            }
            if architecture == "gemma3" {
                out.append((p + "post_attention_norm.weight", [s.dim], norm(s.dim)))
                out.append((p + "post_ffw_norm.weight", [s.dim], norm(s.dim)))
            }
            out.append((p + "attn_output.weight", [q, s.dim], values(q * s.dim, scale: 0.2)))
            out.append((p + "ffn_norm.weight", [s.dim], norm(s.dim)))
            out.append((p + "ffn_gate.weight", [s.dim, s.ffn], values(s.dim * s.ffn, scale: 0.2)))
            out.append((p + "ffn_up.weight", [s.dim, s.ffn], values(s.dim * s.ffn, scale: 0.2)))
            out.append((p + "ffn_down.weight", [s.ffn, s.dim], values(s.ffn * s.dim, scale: 0.2)))
        }
        out.append(("output_norm.weight", [s.dim], norm(s.dim)))
        if !tied { out.append(("output.weight", [s.dim, s.vocabulary], values(s.dim * s.vocabulary, scale: 0.5))) }
        if let factors = s.ropeFactors { out.append(("rope_freqs.weight", [factors.count], factors)) }
        return out
    }

    static func file(_ s: Shape, architecture: String, tied: Bool, tensors: [(String, [Int], [Float])]) throws -> GGUFFile {
        var writer = GGUFWriter()
        let a = architecture + "."
        writer.setMetadata("general.architecture", .string(architecture))
        writer.setMetadata(a + "block_count", .uint32(UInt32(s.layers)))
        writer.setMetadata(a + "context_length", .uint32(1024))
        writer.setMetadata(a + "embedding_length", .uint32(UInt32(s.dim)))
        writer.setMetadata(a + "feed_forward_length", .uint32(UInt32(s.ffn)))
        writer.setMetadata(a + "attention.head_count", .uint32(UInt32(s.heads)))
        writer.setMetadata(a + "attention.head_count_kv", .uint32(UInt32(s.kvHeads)))
        if let keyLength = s.keyLength { writer.setMetadata(a + "attention.key_length", .uint32(UInt32(keyLength))) }
        writer.setMetadata(a + "rope.freq_base", .float32(architecture == "gemma3" ? Float(gemmaGlobalBase) : 10_000))
        if architecture == "gemma3" { writer.setMetadata(a + "attention.sliding_window", .uint32(UInt32(gemmaWindow))) }
        writer.setMetadata(a + "attention.layer_norm_rms_epsilon", .float32(1e-5))
        writer.setMetadata(a + "vocab_size", .uint32(UInt32(s.vocabulary)))
        for (name, dims, values) in tensors {
            writer.addTensor(name: name, dimensions: dims, type: .f32, byteCount: values.count * 4)
        }
        let data = try writer.encoded { index, _, sink in
            try tensors[index].2.withUnsafeBytes { try sink($0) }
        }
        return try GGUFFile(data: data)
    }

    /// The forward pass from the formulas, in double precision, for every position.
    static func reference(_ s: Shape, architecture: String, tied: Bool, tensors: [(String, [Int], [Float])], tokens: [Int]) -> [[Double]] {
        var w: [String: [Double]] = [:]
        for (name, _, values) in tensors { w[name] = values.map(Double.init) }
        func matvec(_ name: String, _ x: [Double], rows: Int) -> [Double] {
            let m = w[name]!, cols = x.count
            return (0..<rows).map { r in (0..<cols).reduce(0) { $0 + m[r * cols + $1] * x[$1] } }
        }
        func rmsnorm(_ x: [Double], _ name: String) -> [Double] {
            let scale = 1 / ((x.reduce(0) { $0 + $1 * $1 } / Double(x.count)) + 1e-5).squareRoot()
            return x.indices.map { x[$0] * scale * w[name]![$0] }
        }
        let gemma = architecture == "gemma3"
        // Gemma 3: layers 0-4 of each 6 are local (window, base 10,000), the 6th global.
        func isLocal(_ layer: Int) -> Bool { gemma && layer % 6 < 5 }
        func rope(_ x: inout [Double], position: Int, layer: Int) {
            let d = s.headDim, base = gemma && !isLocal(layer) ? gemmaGlobalBase : 10_000
            for head in 0..<(x.count / d) {
                for i in 0..<(d / 2) {
                    let theta = Double(position) * pow(base, -2 * Double(i) / Double(d)) / Double(s.ropeFactors?[i] ?? 1)
                    let (a, b) = architecture != "llama" ? (head * d + i, head * d + i + d / 2) : (head * d + 2 * i, head * d + 2 * i + 1)
                    let (u, v) = (x[a], x[b])
                    x[a] = u * cos(theta) - v * sin(theta)
                    x[b] = u * sin(theta) + v * cos(theta)
                }
            }
        }
        let kvLength = s.kvHeads * s.headDim
        var keys = [[[Double]]](repeating: [], count: s.layers), values = keys
        var logits: [[Double]] = []
        // RMSNorm of each head of `x` with the one per-head weight `name` (Gemma's and Qwen3's Q/K norms).
        func headNorm(_ x: [Double], _ name: String) -> [Double] {
            stride(from: 0, to: x.count, by: s.headDim).flatMap { rmsnorm(Array(x[$0..<($0 + s.headDim)]), name) }
        }
        func gelu(_ x: Double) -> Double { 0.5 * x * (1 + tanh(0.7978845608028654 * x * (1 + 0.044715 * x * x))) }
        for (position, token) in tokens.enumerated() {
            var x = Array(w["token_embd.weight"]![(token * s.dim)..<((token + 1) * s.dim)])
            if gemma { x = x.map { $0 * Double(s.dim).squareRoot() } }
            for l in 0..<s.layers {
                let p = "blk.\(l)."
                let h = rmsnorm(x, p + "attn_norm.weight")
                var q = matvec(p + "attn_q.weight", h, rows: s.queryLength)
                var k = matvec(p + "attn_k.weight", h, rows: kvLength)
                var v = matvec(p + "attn_v.weight", h, rows: kvLength)
                if let b = w[p + "attn_q.bias"] { q = zip(q, b).map(+) }
                if let b = w[p + "attn_k.bias"] { k = zip(k, b).map(+) }
                if let b = w[p + "attn_v.bias"] { v = zip(v, b).map(+) }
                if w[p + "attn_q_norm.weight"] != nil {
                    q = headNorm(q, p + "attn_q_norm.weight")
                    k = headNorm(k, p + "attn_k_norm.weight")
                }
                rope(&q, position: position, layer: l)
                rope(&k, position: position, layer: l)
                // Positions this query sees: the last `gemmaWindow` on a local layer.
                let first = isLocal(l) ? max(0, position - gemmaWindow + 1) : 0
                keys[l].append(k)
                values[l].append(v)
                var attention = [Double](repeating: 0, count: s.queryLength)
                for head in 0..<s.heads {
                    let kvHead = head / (s.heads / s.kvHeads)
                    let qh = q[(head * s.headDim)..<((head + 1) * s.headDim)]
                    let scores = (first...position).map { j in
                        zip(qh, keys[l][j][(kvHead * s.headDim)..<((kvHead + 1) * s.headDim)]).reduce(0) { $0 + $1.0 * $1.1 } / Double(s.headDim).squareRoot()
                    }
                    let m = scores.max()!
                    let e = scores.map { exp($0 - m) }
                    let total = e.reduce(0, +)
                    for j in first...position {
                        for d in 0..<s.headDim {
                            attention[head * s.headDim + d] += e[j - first] / total * values[l][j][kvHead * s.headDim + d]
                        }
                    }
                }
                var attended = matvec(p + "attn_output.weight", attention, rows: s.dim)
                if gemma { attended = rmsnorm(attended, p + "post_attention_norm.weight") }
                x = zip(x, attended).map(+)
                let h2 = rmsnorm(x, p + "ffn_norm.weight")
                let gate = matvec(p + "ffn_gate.weight", h2, rows: s.ffn)
                let up = matvec(p + "ffn_up.weight", h2, rows: s.ffn)
                let act = zip(gate, up).map { gemma ? gelu($0) * $1 : $0 / (1 + exp(-$0)) * $1 }
                var down = matvec(p + "ffn_down.weight", act, rows: s.dim)
                if gemma { down = rmsnorm(down, p + "post_ffw_norm.weight") }
                x = zip(x, down).map(+)
            }
            logits.append(matvec(tied ? "token_embd.weight" : "output.weight", rmsnorm(x, "output_norm.weight"), rows: s.vocabulary))
        }
        return logits
    }

    @Test(arguments: [("llama", true), ("llama", false), ("qwen2", true), ("qwen3", true), ("gemma3", true)])
    func forwardPassMatchesTheFormulas(architecture: String, tied: Bool) throws {
        try checkForwardPass(Shape.of(architecture), architecture: architecture, tied: tied)
    }

    /// `rope_freqs.weight` divides each pair's angle by its factor, in every family that has it
    /// (Llama 3.1's long-context scaling): factors of 1 and 8 and one between, on both RoPE styles.
    @Test(arguments: ["llama", "qwen2"])
    func ropeFrequencyFactorsMatchTheFormulas(architecture: String) throws {
        var shape = Shape.of(architecture)
        shape.ropeFactors = [1, 2.5, 8, 8, 8, 8, 8, 8]
        try checkForwardPass(shape, architecture: architecture, tied: true)
    }

    private func checkForwardPass(_ shape: Shape, architecture: String, tied: Bool) throws {
        let tensors = Self.weights(shape, architecture: architecture, tied: tied, seed: 7)
        let file = try Self.file(shape, architecture: architecture, tied: tied, tensors: tensors)
        let tokens = [3, 17, 42, 0, 8, 8, 49, 21]
        let expected = Self.reference(shape, architecture: architecture, tied: tied, tensors: tensors, tokens: tokens)
        for batchSize in [64, 3] {
            let model = try Transformer(file: file, contextLength: 16, batchSize: batchSize, pool: ThreadPool(threads: 2))
            var got: [[Float]] = []
            try model.evaluate(tokens, logits: .all) { _, logits in got.append(Array(logits)) }
            #expect(got.count == tokens.count)
            for (i, (ours, theirs)) in zip(got, expected).enumerated() {
                let scale = theirs.map(abs).max()!
                let worst = zip(ours, theirs).map { abs(Double($0) - $1) }.max()!
                // Keys, values and queries are rounded to half precision (as in llama.cpp):
                // ~1e-3 relative error per value, a few times that after two layers.
                #expect(worst <= 0.02 * scale, "\(architecture) tied \(tied) position \(i): \(worst) vs scale \(scale)")
            }
        }
    }

    /// Decoding past `Attention.Schedule.splitDecodingLength` cached positions splits each token's
    /// attention by position across the threads and merges the parts; the logits still follow
    /// the formulas (2 and 3 threads: even and uneven ranges).
    @Test(arguments: [2, 3])
    func decodingALongContextMatchesTheFormulas(threads: Int) throws {
        let shape = Shape()
        let tensors = Self.weights(shape, architecture: "llama", tied: true, seed: 11)
        let file = try Self.file(shape, architecture: "llama", tied: true, tensors: tensors)
        var random = SplitMix64(seed: 3)
        let tokens = (0..<600).map { _ in Int(random.next() % UInt64(shape.vocabulary)) }
        let expected = Self.reference(shape, architecture: "llama", tied: true, tensors: tensors, tokens: tokens)
        let model = try Transformer(file: file, contextLength: 640, pool: ThreadPool(threads: threads))
        for (i, token) in tokens.enumerated() {
            let logits = try model.evaluate([token])
            guard i >= 500, i % 20 == 0 || i == tokens.count - 1 else { continue }
            let scale = expected[i].map(abs).max()!
            let worst = zip(logits, expected[i]).map { abs(Double($0) - $1) }.max()!
            #expect(worst <= 0.02 * scale, "\(threads) threads, position \(i): \(worst) vs scale \(scale)")
        }
    }

    /// The trace hands over every step of the forward pass under llama.cpp's name, in order,
    /// with its shape, and the values are that step's results: the residual sums add up, SwiGLU
    /// combines the traced gate and up, the last entry is the logits.
    @Test func theTraceNamesEveryStepInOrder() throws {
        let shape = Shape(), tokens = [3, 1, 4]
        let tensors = Self.weights(shape, architecture: "qwen2", tied: false, seed: 13)
        let file = try Self.file(shape, architecture: "qwen2", tied: false, tensors: tensors)
        let model = try Transformer(file: file, contextLength: 16, pool: ThreadPool(threads: 1))
        var entries: [(name: String, rows: Int, values: [Float])] = []
        model.trace = { entries.append(($0, $1, Array($2))) }
        var logits: [Float] = []
        try model.evaluate(tokens, logits: .all) { _, row in logits += row }

        let kv = shape.kvHeads * shape.headDim
        var expected: [(name: String, columns: Int)] = []
        for l in 0..<shape.layers {
            let steps = [("attn_norm", shape.dim), ("Qcur", shape.dim), ("Kcur", kv), ("Vcur", kv), ("kqv_out", shape.dim),
                         ("attn_out", shape.dim), ("ffn_inp", shape.dim), ("ffn_norm", shape.dim), ("ffn_gate", shape.ffn),
                         ("ffn_up", shape.ffn), ("ffn_swiglu", shape.ffn), ("ffn_out", shape.dim), ("l_out", shape.dim)]
            expected += steps.map { ("\($0.0)-\(l)", $0.1) }
        }
        expected += [("result_norm", shape.dim), ("result_output", shape.vocabulary)]
        #expect(entries.map(\.name) == expected.map(\.name))
        #expect(entries.map(\.values.count) == expected.map { tokens.count * $0.columns })
        #expect(entries.allSatisfy { $0.rows == tokens.count })

        func values(_ name: String) -> [Float] { entries.first { $0.name == name }?.values ?? [] }
        #expect(values("result_output") == logits)
        for l in 0..<shape.layers {
            #expect(values("l_out-\(l)") == zip(values("ffn_inp-\(l)"), values("ffn_out-\(l)")).map(+))
            if l > 0 {
                #expect(values("ffn_inp-\(l)") == zip(values("l_out-\(l - 1)"), values("attn_out-\(l)")).map(+))
            }
            let swiGLU = zip(values("ffn_gate-\(l)"), values("ffn_up-\(l)")).map { gate, up in gate / (1 + exp(-gate)) * up }
            #expect(zip(swiGLU, values("ffn_swiglu-\(l)")).allSatisfy { abs($0 - $1) <= 1e-4 * max(1, abs($0)) })
        }
    }

    @Test func missingTensorsAndBadShapesAreErrors() throws {
        let shape = Shape()
        var tensors = Self.weights(shape, architecture: "llama", tied: true, seed: 1)
        tensors.removeAll { $0.0 == "blk.1.ffn_up.weight" }
        let file = try Self.file(shape, architecture: "llama", tied: true, tensors: tensors)
        #expect(throws: TransformerError.missingTensor("blk.1.ffn_up.weight")) {
            try Transformer(file: file, contextLength: 8)
        }
        var wrong = Self.weights(shape, architecture: "llama", tied: true, seed: 1)
        let index = wrong.firstIndex { $0.0 == "blk.0.attn_k.weight" }!
        wrong[index] = ("blk.0.attn_k.weight", [shape.dim, shape.dim], [Float](repeating: 0, count: shape.dim * shape.dim))
        let bad = try Self.file(shape, architecture: "llama", tied: true, tensors: wrong)
        #expect(throws: TransformerError.self) { try Transformer(file: bad, contextLength: 8) }
        // A RoPE frequency factor divides an angle: zero is refused, naming the tensor.
        var zeroFactor = shape
        zeroFactor.ropeFactors = [1, 0, 8, 8, 8, 8, 8, 8]
        let factors = try Self.file(
            zeroFactor, architecture: "llama", tied: true, tensors: Self.weights(zeroFactor, architecture: "llama", tied: true, seed: 1))
        #expect(throws: TransformerError.invalidTensor(name: "rope_freqs.weight", reason: "factor 1 is 0.0, expected a positive number")) {
            try Transformer(file: factors, contextLength: 8)
        }
    }

    @Test func unsupportedArchitecturesAreNamed() throws {
        var writer = GGUFWriter()
        writer.setMetadata("general.architecture", .string("mamba"))
        let file = try GGUFFile(data: writer.encoded { _, _, _ in })
        #expect(throws: TransformerError.unsupportedArchitecture("mamba")) { try Transformer(file: file) }
    }
}
