/// How a ``Transformer`` orders its floating-point operations: a Pocket addition.
///
/// Pocket's own kernels round differently from llama.cpp's (other lane splits, other batch
/// tilings), which moves logits by a few units in the last place. Mostly that changes nothing;
/// where two tokens nearly tie, greedy decoding then picks another token and the texts part.
/// ``llamaCpp`` computes in llama.cpp's order instead, for reproducing its outputs exactly.
///
/// ```swift
/// let model = try Transformer(contentsOf: url, arithmetic: .llamaCpp)
/// ```
public enum ArithmeticOrder: Sendable, Equatable {
    /// Pocket's kernels: repacked weights, SIMD products and split attention (the default).
    case fastest
    /// llama.cpp's order, as its x86 CPU backend computes on an AVX-512 machine with repacked
    /// weights (its default), for the formats of the k-quant mixes (Q4_K, Q6_K, Q5_0, Q8_0;
    /// ``LlamaOrderProducts``), RoPE with its fused products (``RotaryEmbedding/applyFused(to:position:)``)
    /// and attention with a half-precision accumulator (``LlamaOrderAttention``). Several
    /// times slower than ``fastest`` in prefill: a reference mode, not a speed mode. Products
    /// of other formats use Pocket's kernels. Decoding drafts nothing (a ``PromptLookup`` is
    /// ignored): llama.cpp evaluates one token per pass, and a draft would be a batch.
    ///
    /// Exact where llama.cpp takes the paths reproduced here: prompts of fewer than 64 tokens
    /// evaluated in one batch (``Transformer/batchSize`` at least the prompt), decoding over
    /// fewer than 512 cached positions. Past those llama.cpp switches to tiled attention for
    /// prompts and to attention split over its threads for decoding, which round otherwise;
    /// results there are close to llama.cpp's, not identical.
    case llamaCpp
}
