import Foundation

/// Attention of one query head in llama.cpp's order of operations: a Pocket addition, the
/// attention step of ``LlamaOrderProducts``' mode.
///
/// This is ggml's `flash_attn_ext_f16_one_chunk` with a half-precision value cache, the path
/// llama.cpp takes for prompts shorter than its tiled kernel's 32-query tiles and for decoding
/// over fewer than 512 cached positions: per position the score `q·k` (``VectorMath/dot(_:_:count:)-(_,UnsafePointer<Float16>,_)``,
/// ggml's `ggml_vec_dot_f16` order), times `scale`; a new maximum rescales the accumulator,
/// `acc = fp16(acc · e^(old − new))`, otherwise the weight is `e^(s − max)`; then
/// `acc = fp16(acc + v · w)` fused, and the running sum `S = S · r + w` as one fused
/// multiply-add (GCC contracts ggml's expression). The accumulator stays in half precision
/// throughout, decoding included; the output is `acc · (1/S)`.
public enum LlamaOrderAttention {
    /// `out = Σ_j softmax_j(q · k_j · scale) · v_j` over positions `0..<length`.
    ///
    /// - Parameters:
    ///   - query: `headDimension` floats, already rounded to half precision.
    ///   - keys: Key row of position 0; position `j` is `rowStride` halves further. `values` likewise.
    ///   - out: `headDimension` floats; the accumulator until the final scaling.
    public static func attend(
        query: UnsafePointer<Float>, headDimension hd: Int, keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>,
        rowStride: Int, length: Int, scale: Float, into acc: UnsafeMutablePointer<Float>
    ) {
        acc.update(repeating: 0, count: hd)
        var maximum = -Float.infinity, sum: Float = 0
        for j in 0..<length {
            let s = VectorMath.dot(query, keys + j * rowStride, count: hd) * scale
            var rescale: Float = 1, weight: Float = 1
            if s > maximum {
                let old = maximum
                maximum = s
                rescale = expf(old - maximum)
                for d in 0..<hd { acc[d] = HalfConversion.rounded(acc[d] * rescale) }
            } else {
                weight = expf(s - maximum)
            }
            let v = values + j * rowStride
            for d in 0..<hd { acc[d] = HalfConversion.rounded(acc[d].addingProduct(HalfConversion.widened(v[d]), weight)) }
            sum = weight.addingProduct(sum, rescale)
        }
        let inverse: Float = sum == 0 ? 0 : 1 / sum
        for d in 0..<hd { acc[d] *= inverse }
    }
}
