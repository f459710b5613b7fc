import PocketGGUF
import Testing
@testable import PocketQuantizer

/// The recipe's choices, derived by hand from its documented rules.
@Suite struct QuantizationRecipeTests {
    @Test func defaultQ2KRecipeKeepsSensitiveTensorsAtHigherPrecision() {
        let recipe = QuantizationRecipe(target: .q2_k)
        func type(_ name: String, _ dimensions: [Int]) -> GGMLType { recipe.choice(forTensor: name, dimensions: dimensions).type }
        #expect(type("blk.3.attn_norm.weight", [576]) == .f32)
        #expect(type("token_embd.weight", [512, 100]) == .q6_K)
        #expect(type("output.weight", [512, 100]) == .q6_K)
        #expect(type("blk.0.attn_v.weight", [512, 64]) == .q4_K)
        #expect(type("blk.11.attn_output.weight", [512, 512]) == .q4_K)
        #expect(type("blk.0.attn_q.weight", [512, 512]) == .q2_K)
        #expect(type("blk.0.ffn_down.weight", [1536, 576]) == .q2_K)
    }

    @Test func pureRecipeUsesTheTargetForEveryMatrix() {
        let recipe = QuantizationRecipe(target: .q2_k, pure: true)
        for name in ["token_embd.weight", "output.weight", "blk.0.attn_v.weight", "blk.0.attn_output.weight", "blk.0.ffn_up.weight"] {
            #expect(recipe.choice(forTensor: name, dimensions: [256, 8]).type == .q2_K, "\(name)")
        }
        #expect(recipe.choice(forTensor: "output_norm.weight", dimensions: [256]).type == .f32)
    }

    @Test func rowsThatAreNotWholeSuperBlocksFallBack() {
        // 576 = 2.25 × 256 = 18 × 32 (SmolLM2's hidden size).
        let expected: [(GGMLType, GGMLType)] = [(.q2_K, .q4_0), (.q3_K, .q4_0), (.q4_K, .q5_0), (.q6_K, .q8_0),
                                                (.q4_0, .q4_0), (.q8_0, .q8_0)]
        for (requested, written) in expected {
            #expect(QuantizationRecipe.fallback(for: requested, rowLength: 576) == written, "\(requested)")
            #expect(QuantizationRecipe.fallback(for: requested, rowLength: 1536) == requested, "\(requested)")
        }
        #expect(QuantizationRecipe.fallback(for: .q2_K, rowLength: 48) == .f16)
        let choice = QuantizationRecipe(target: .q2_k).choice(forTensor: "blk.0.ffn_up.weight", dimensions: [576, 1536])
        #expect(choice.requested == .q2_K && choice.type == .q4_0 && choice.isFallback)
    }

    @Test func iQuantRowsThatAreNotWholeSuperBlocksFallBackToIQ4NL() {
        // 896 = 3.5 × 256 = 28 × 32 (Qwen2.5-0.5B's hidden size); llama.cpp writes IQ4_NL there
        // for every 256-weight i-quant (its Qwen2.5-Coder-0.5B IQ2_XXS…IQ4_XS files).
        for requested in [GGMLType.iq2_xxs, .iq2_xs, .iq2_s, .iq3_xxs, .iq3_s, .iq4_xs, .iq1_s, .iq1_m] {
            #expect(QuantizationRecipe.fallback(for: requested, rowLength: 896) == .iq4_nl, "\(requested)")
            #expect(QuantizationRecipe.fallback(for: requested, rowLength: 4864) == requested, "\(requested)")
            #expect(QuantizationRecipe.fallback(for: requested, rowLength: 100) == .f16, "\(requested)")
        }
        #expect(QuantizationRecipe.fallback(for: .iq4_nl, rowLength: 896) == .iq4_nl)
        #expect(QuantizationRecipe.fallback(for: .iq4_nl, rowLength: 48) == .f16)
        let choice = QuantizationRecipe(target: .iq3_s, pure: true).choice(forTensor: "blk.0.attn_q.weight", dimensions: [896, 896])
        #expect(choice.requested == .iq3_s && choice.type == .iq4_nl && choice.isFallback)
    }

    @Test func lowBitIQuantRecipesKeepAttentionValueAndOutputHigher() {
        for target in [QuantizationTarget.iq3_xxs, .iq3_s] {
            let recipe = QuantizationRecipe(target: target)
            #expect(recipe.choice(forTensor: "blk.0.attn_v.weight", dimensions: [512, 64]).type == .q4_K)
            #expect(recipe.choice(forTensor: "blk.0.attn_output.weight", dimensions: [512, 512]).type == .q4_K)
            #expect(recipe.choice(forTensor: "output.weight", dimensions: [512, 100]).type == .q6_K)
            #expect(recipe.choice(forTensor: "blk.0.ffn_up.weight", dimensions: [512, 1536]).type == target.type)
        }
        #expect(QuantizationRecipe(target: .iq4_xs).choice(forTensor: "blk.0.attn_v.weight", dimensions: [512, 64]).type == .iq4_xs)
    }

    @Test func q8RecipeDoesNotLowerTheOutput() {
        #expect(QuantizationRecipe(target: .q8_0).choice(forTensor: "output.weight", dimensions: [256, 4]).type == .q8_0)
        #expect(QuantizationRecipe(target: .q4_0).choice(forTensor: "blk.0.attn_v.weight", dimensions: [256, 4]).type == .q4_0)
    }

    @Test func targetsParseCaseInsensitivelyAndRejectUnknownNames() throws {
        #expect(try QuantizationTarget(parsing: "Q2_K") == .q2_k)
        #expect(try QuantizationTarget(parsing: "q8_0").type == .q8_0)
        #expect(throws: QuantizationError.unknownType("q1_x")) { try QuantizationTarget(parsing: "q1_x") }
        #expect(QuantizationError.unknownType("q1_x").description.contains("q2_k"))
    }

    @Test func fileTypesAreLlamaCppNumbers() {
        // llama.cpp's llama_ftype: MOSTLY_Q4_0 = 2, Q4_1 = 3, Q8_0 = 7, Q5_0 = 8, Q2_K = 10,
        // Q3_K_S = 11, Q3_K_M = 12, Q4_K_S = 14, Q4_K_M = 15, Q6_K = 18, IQ3_XXS = 23,
        // IQ4_NL = 25, IQ3_S = 26, IQ4_XS = 30.
        let expected: [(QuantizationTarget, Bool, UInt32)] = [
            (.q4_0, false, 2), (.q4_1, false, 3), (.q8_0, false, 7), (.q5_0, false, 8), (.q2_k, false, 10),
            (.q2_k, true, 10), (.q3_k, true, 11), (.q3_k, false, 12), (.q4_k, true, 14), (.q4_k, false, 15),
            (.q6_k, false, 18), (.iq3_xxs, false, 23), (.iq4_nl, true, 25), (.iq3_s, false, 26), (.iq4_xs, false, 30),
        ]
        for (target, pure, number) in expected {
            #expect(QuantizationRecipe(target: target, pure: pure).fileType == number, "\(target) pure \(pure)")
        }
    }

    @Test func targetsAreTheQuantizedEncoders() throws {
        let names = QuantizationTarget.allCases.map(\.name)
        #expect(Array(names.prefix(8)) == ["q4_0", "q4_1", "q5_0", "q8_0", "q2_k", "q3_k", "q4_k", "q6_k"])
        for name in ["iq3_xxs", "iq4_nl", "iq3_s", "iq4_xs"] { #expect(names.contains(name), "\(name)") }
        #expect(QuantizationTarget.allCases.map(\.type.rawValue) == QuantizationTarget.allCases.map(\.type.rawValue).sorted())
        #expect(try QuantizationTarget(parsing: "IQ3_S") == .iq3_s)
        #expect(QuantizationTarget(.f16) == nil)
        #expect(QuantizationTarget(.q5_K) == nil)  // a decoder but no encoder
    }
}
