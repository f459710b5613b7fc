import Foundation
import PocketGGUF
import PocketKernels
import Testing
@testable import PocketQuantizer

/// The greedy allocation, the measured planner on a small file, and llama.cpp's reference mix.
@Suite struct BudgetPlannerTests {
    /// Two-bit / four-bit / eight-bit options with a given sensitivity (error at 2 bits).
    static func options(_ name: String, size: Int, sensitivity: Double) -> BudgetPlanner.Options {
        .init(name: name, candidates: [
            .init(type: .q2_K, bytes: 84 * size, error: sensitivity),
            .init(type: .q4_K, bytes: 144 * size, error: sensitivity / 16),
            .init(type: .q8_0, bytes: 272 * size, error: sensitivity / 4096),
        ])
    }

    @Test func respectsTheBudgetAndSpendsItOnTheMostSensitiveTensors() throws {
        let tensors = [
            Self.options("robust", size: 10, sensitivity: 0.01),
            Self.options("sensitive", size: 10, sensitivity: 1.0),
            Self.options("medium", size: 10, sensitivity: 0.1),
        ]
        // Room for exactly one upgrade to Q4_K above the all-Q2_K minimum.
        let budget = 3 * 840 + 600
        let chosen = try BudgetPlanner.allocate(tensors, budget: budget)
        let bytes = zip(tensors, chosen).reduce(0) { $0 + $1.0.candidates[$1.1].bytes }
        #expect(bytes <= budget)
        #expect(chosen == [0, 1, 0])
        // More room: the sensitive tensor keeps at least as many bits as any other.
        for budget in stride(from: 3 * 840, through: 3 * 2720, by: 500) {
            let chosen = try BudgetPlanner.allocate(tensors, budget: budget)
            let used = zip(tensors, chosen).reduce(0) { $0 + $1.0.candidates[$1.1].bytes }
            #expect(used <= budget)
            #expect(chosen[1] >= chosen[2] && chosen[2] >= chosen[0], "budget \(budget): \(chosen)")
        }
        // Everything fits: everything goes to the most precise type.
        #expect(try BudgetPlanner.allocate(tensors, budget: 1 << 30) == [2, 2, 2])
    }

    @Test func prefersTheCheaperUpgradeForTheSameGain() throws {
        // Same error reduction, one tensor is four times larger: the small one gets it.
        let tensors = [Self.options("large", size: 40, sensitivity: 1), Self.options("small", size: 10, sensitivity: 1)]
        let chosen = try BudgetPlanner.allocate(tensors, budget: 50 * 84 + 600)
        #expect(chosen == [0, 1])
    }

    @Test func isDeterministicAndRejectsAnImpossibleBudget() throws {
        let tensors = (0..<20).map { Self.options("t\($0)", size: 1 + $0 % 3, sensitivity: Double($0 % 5) + 0.5) }
        let first = try BudgetPlanner.allocate(tensors, budget: 4000)
        #expect(try BudgetPlanner.allocate(tensors, budget: 4000) == first)
        #expect(throws: QuantizationError.budgetTooSmall(budget: 100, minimum: tensors.reduce(0) { $0 + $1.candidates[0].bytes })) {
            try BudgetPlanner.allocate(tensors, budget: 100)
        }
    }

    @Test func planOnASmallFileStaysWithinBudgetAndFollowsTheImportance() throws {
        let file = try GGUFFile(data: SmallModel.data())
        let pool = ThreadPool(threads: 2)
        let minimum = file.tensors.reduce(0) { sum, tensor in
            let types: [GGMLType] = tensor.dimensions.count > 1 ? QuantizationPlanner.candidateTypes(rowLength: tensor.dimensions[0]) : [.f32]
            return sum + GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: types[0])!
        }
        let plan = try #require(try QuantizationPlanner.plan(input: file, target: .q2_k, importance: nil, budget: minimum + 400, pool: pool))
        #expect(plan.byteCount <= plan.budget && plan.budget == minimum + 400)
        #expect(plan.entries.map(\.name) == file.tensors.map(\.name))
        #expect(plan.entries.first { $0.name == "blk.0.attn_norm.weight" }?.type == .f32)
        #expect(plan.entries.first { $0.name == "blk.0.odd.weight" }?.type == .f16)
        // The estimated errors are those of the chosen types and shrink with more bits.
        let down = try #require(file.tensor(named: "blk.0.ffn_down.weight"))
        let q2 = QuantizationPlanner.relativeError(of: down, in: file, as: .q2_K, importance: nil, sampleRows: 8)
        let q6 = QuantizationPlanner.relativeError(of: down, in: file, as: .q6_K, importance: nil, sampleRows: 8)
        #expect(q6 < q2 / 10 && q2 > 0)
        // Same inputs, same plan; a reference-mix budget exists only for q2_k and q3_k.
        #expect(try QuantizationPlanner.plan(input: file, target: .q2_k, importance: nil, budget: minimum + 400, pool: ThreadPool(threads: 1)) == plan)
        #expect(try QuantizationPlanner.plan(input: file, target: .q4_0, importance: nil, pool: pool) == nil)
        #expect(throws: QuantizationError.budgetTooSmall(budget: minimum - 1, minimum: minimum)) {
            try QuantizationPlanner.plan(input: file, target: .q2_k, importance: nil, budget: minimum - 1, pool: pool)
        }
    }

    @Test func importanceChangesTheMeasuredError() throws {
        let file = try GGUFFile(data: SmallModel.data())
        let down = try #require(file.tensor(named: "blk.0.ffn_down.weight"))
        // Importance on a few columns only: the weighted encoder serves those columns, so
        // their (weighted) error is smaller than the unweighted encoding's.
        let importance = (0..<512).map { $0 % 64 == 0 ? Float(1000) : 1 }
        let weighted = QuantizationPlanner.relativeError(of: down, in: file, as: .q2_K, importance: importance, sampleRows: 3)
        let x = SmallModel.decoded(file, down)
        var encoded = [UInt8](repeating: 0, count: 2 * Q2_K.bytesPerBlock * 3)
        x.withUnsafeBufferPointer { p in encoded.withUnsafeMutableBytes { Q2_K.quantize(p.baseAddress!, blocks: 6, into: $0.baseAddress!) } }
        var y = [Float](repeating: 0, count: x.count)
        encoded.withUnsafeBytes { b in y.withUnsafeMutableBufferPointer { Q2_K.dequantize(b.baseAddress!, blocks: 6, into: $0.baseAddress!) } }
        var error = 0.0, signal = 0.0
        for i in 0..<x.count {
            let m = Double(importance[i % 512]), d = Double(y[i] - x[i])
            error += m * d * d
            signal += m * Double(x[i]) * Double(x[i])
        }
        #expect(weighted < error / signal)
    }

    @Test(.enabled(if: SmolLM2.isInstalled, "SmolLM2, the small test model, is not installed (run Weights/fetch)"))
    func referenceMixIsLlamaQuantizesSizeForSmolLM2() {
        // Tensor bytes of `llama-quantize --allow-requantize SmolLM2-135M-Instruct.Q4_1.gguf OUT Q2_K`
        // (and Q3_K), summed from the files llama.cpp wrote.
        #expect(ReferenceMix.byteCount(of: SmolLM2.file, target: .q2_k) == 86_416_128)
        #expect(ReferenceMix.byteCount(of: SmolLM2.file, target: .q3_k) == 91_724_544)
        #expect(ReferenceMix.byteCount(of: SmolLM2.file, target: .q4_0) == nil)
    }

    @Test func referenceMixFollowsLlamaCppsRules() {
        func type(_ name: String, _ dimensions: [Int], _ target: QuantizationTarget, gqa: Int = 3, tied: Bool = true) -> GGMLType? {
            ReferenceMix.type(forTensor: name, dimensions: dimensions, target: target, layerCount: 24,
                              queryHeadsPerKeyHead: gqa, tiedEmbedding: tied)
        }
        #expect(type("token_embd.weight", [576, 49152], .q2_k) == .q8_0)
        #expect(type("token_embd.weight", [896, 151936], .q2_k, tied: false) == .q4_0)
        #expect(type("blk.3.attn_v.weight", [896, 128], .q2_k, gqa: 7) == .q5_0)
        #expect(type("blk.3.attn_v.weight", [576, 192], .q2_k) == .q4_0)
        #expect(type("blk.3.ffn_down.weight", [4864, 896], .q2_k) == .q3_K)
        #expect(type("blk.0.ffn_down.weight", [4864, 896], .q3_k) == .q5_K)
        #expect(type("blk.1.attn_v.weight", [896, 128], .q3_k) == .q5_1)
        #expect(type("blk.5.ffn_down.weight", [4864, 896], .q3_k) == .q4_K)
        #expect(type("blk.0.attn_norm.weight", [896], .q3_k) == .f32)
    }

    /// The i-quant mixes, tensor by tensor, against what `llama-quantize` (with an imatrix) wrote
    /// for Qwen2.5-Coder-0.5B (24 layers, 14 query heads on 2 key heads, untied output; 896-weight
    /// rows, 4864 for ffn_down), read from its IQ2_XXS…IQ4_NL files with `gguf.GGUFReader`.
    /// Targets without a Pocket encoder are skipped.
    @Test func iQuantMixesAreLlamaCppsForQwen() {
        let shapes: [(String, [Int])] = [
            ("output.weight", [896, 151936]), ("token_embd.weight", [896, 151936]), ("blk.5.attn_k.weight", [896, 128]),
            ("blk.5.attn_output.weight", [896, 896]), ("blk.5.attn_q.weight", [896, 896]), ("blk.5.attn_v.weight", [896, 128]),
            ("blk.2.ffn_down.weight", [4864, 896]), ("blk.3.ffn_down.weight", [4864, 896]), ("blk.5.ffn_gate.weight", [896, 4864]),
            ("blk.5.ffn_up.weight", [896, 4864]), ("blk.5.attn_norm.weight", [896]),
        ]
        // Columns in `shapes` order; Pocket's iq2_s is llama.cpp's IQ2_M. attn_v of IQ4_XS/NL is
        // Q5_1 in llama.cpp's files (its Q5_K's fallback); Pocket writes Q6_K's, Q8_0.
        let expected: [(GGMLType, [GGMLType])] = [
            (.iq2_xxs, [.q8_0, .q4_0, .iq4_nl, .iq4_nl, .iq4_nl, .q5_0, .q2_K, .iq2_xxs, .iq4_nl, .iq4_nl, .f32]),
            (.iq2_xs, [.q8_0, .q4_0, .iq4_nl, .iq4_nl, .iq4_nl, .q5_0, .q2_K, .iq2_xs, .iq4_nl, .iq4_nl, .f32]),
            (.iq2_s, [.q8_0, .iq4_nl, .iq4_nl, .iq4_nl, .iq4_nl, .q5_0, .iq3_s, .iq2_s, .iq4_nl, .iq4_nl, .f32]),
            (.iq3_xxs, [.q8_0, .iq4_nl, .iq4_nl, .iq4_nl, .iq4_nl, .q5_0, .iq3_xxs, .iq3_xxs, .iq4_nl, .iq4_nl, .f32]),
            (.iq3_s, [.q8_0, .iq4_nl, .iq4_nl, .iq4_nl, .iq4_nl, .q5_0, .iq3_s, .iq3_s, .iq4_nl, .iq4_nl, .f32]),
            (.iq4_xs, [.q8_0, .iq4_nl, .iq4_nl, .iq4_nl, .iq4_nl, .q8_0, .iq4_xs, .iq4_xs, .iq4_nl, .iq4_nl, .f32]),
            (.iq4_nl, [.q8_0, .iq4_nl, .iq4_nl, .iq4_nl, .iq4_nl, .q8_0, .iq4_nl, .iq4_nl, .iq4_nl, .iq4_nl, .f32]),
        ]
        var checked = 0
        for (type, types) in expected {
            guard let target = QuantizationTarget(type) else { continue }
            checked += 1
            for ((name, dimensions), written) in zip(shapes, types) {
                let mixed = ReferenceMix.type(forTensor: name, dimensions: dimensions, target: target, layerCount: 24,
                                              queryHeadsPerKeyHead: 7, tiedEmbedding: false, architecture: .qwen2)
                #expect(mixed == written, "\(type) \(name)")
            }
        }
        #expect(checked >= 4)
    }

    @Test func iQuantMixesOnWholeSuperBlocksAndFewKeyHeadsSharers() {
        func type(_ name: String, _ target: QuantizationTarget, gqa: Int = 1, tied: Bool = false) -> GGMLType? {
            ReferenceMix.type(forTensor: name, dimensions: [2048, 2048], target: target, layerCount: 32,
                              queryHeadsPerKeyHead: gqa, tiedEmbedding: tied)
        }
        #expect(type("blk.0.attn_v.weight", .iq3_xxs) == .iq3_s)
        #expect(type("blk.0.attn_v.weight", .iq3_xxs, gqa: 4) == .q4_K)
        #expect(type("blk.0.attn_v.weight", .iq3_s) == .iq3_s)
        #expect(type("blk.0.attn_v.weight", .iq4_xs, gqa: 8) == .q6_K)
        #expect(type("token_embd.weight", .iq3_xxs) == .iq3_s)
        #expect(type("token_embd.weight", .iq3_xxs, tied: true) == .q6_K)
        #expect(type("output.weight", .iq4_xs) == .q6_K)
        #expect(type("blk.3.ffn_down.weight", .iq3_s) == .iq3_s)
        #expect(type("blk.7.attn_q.weight", .iq4_xs) == .iq4_xs)
        #expect(ReferenceMix.hasMix(.iq3_s) && !ReferenceMix.hasMix(.q4_0))
    }

    @Test func planOnTheIQuantLadderStaysWithinABitsPerWeightBudget() throws {
        let file = try GGUFFile(data: SmallModel.data())
        let pool = ThreadPool(threads: 2)
        // Rows of 512 take the 256-weight i-quants, 32-weight rows IQ4_NL, others F16.
        let ladder = QuantizationPlanner.candidateTypes(rowLength: 512, iQuants: true)
        #expect(ladder.contains(.iq3_xxs) && ladder.contains(.iq3_s) && ladder.contains(.iq4_xs))
        #expect(!ladder.contains(.q2_K))
        #expect(QuantizationPlanner.candidateTypes(rowLength: 96, iQuants: true).first == .iq4_nl)
        #expect(QuantizationPlanner.usesIQuantLadder(.iq3_s) && !QuantizationPlanner.usesIQuantLadder(.q2_k))
        let weights = file.tensors.reduce(0) { $0 + $1.elementCount }
        let minimum = file.tensors.reduce(0) { sum, tensor in
            let types: [GGMLType] = tensor.dimensions.count > 1
                ? QuantizationPlanner.candidateTypes(rowLength: tensor.dimensions[0], iQuants: true) : [.f32]
            return sum + GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: types[0])!
        }
        var previous = Double.infinity
        for bitsPerWeight in [Double(minimum) * 8 / Double(weights) + 0.3, 5, 9] {
            let budget = QuantizationPlanner.budget(of: file, bitsPerWeight: bitsPerWeight)
            #expect(budget == Int(bitsPerWeight * Double(weights) / 8))
            let plan = try #require(try QuantizationPlanner.plan(input: file, target: .iq3_s, importance: nil, budget: budget, pool: pool))
            #expect(plan.byteCount <= budget)
            for entry in plan.entries {
                let tensor = try #require(file.tensor(named: entry.name))
                let allowed: [GGMLType] = tensor.dimensions.count > 1
                    ? QuantizationPlanner.candidateTypes(rowLength: tensor.dimensions[0], iQuants: true) : [.f32]
                #expect(allowed.contains(entry.type), "\(entry.name): \(entry.type)")
            }
            // More bits, less estimated error.
            #expect(plan.expectedError <= previous)
            previous = plan.expectedError
        }
        // The i-quant errors shrink along the ladder on a real-looking matrix.
        let down = try #require(file.tensor(named: "blk.0.ffn_down.weight"))
        let errors = [GGMLType.iq3_xxs, .iq3_s, .iq4_xs, .q6_K].map {
            QuantizationPlanner.relativeError(of: down, in: file, as: $0, importance: nil, sampleRows: 8)
        }
        #expect(errors == errors.sorted(by: >) && errors[0] > 0, "\(errors)")
    }
}
