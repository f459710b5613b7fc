import Foundation

/// GELU with the tanh approximation, evaluated the way ggml's CPU backend does, so that GeGLU
/// models (Gemma) agree with llama.cpp's reference outputs.
///
/// ggml does not evaluate the formula on single-precision inputs: with `GGML_GELU_FP16` (always
/// defined in its CPU backend) it rounds the input to half precision and looks the result up in
/// a table of `gelu(h)` for every half `h`, itself rounded to half precision; inputs at or
/// below −10 give 0 and inputs at or above 10 give the input unchanged. The table's rounding is
/// up to 2⁻¹¹ relative, far more than the formula's own error, so reproducing llama.cpp's
/// completions needs the table rather than a better GELU.
///
/// ```swift
/// GELU.gated(gate, up: up, count: ffn)   // gate[i] = gelu(gate[i]) · up[i]
/// ```
enum GELU {
    /// `gelu(h)` for each of the 65,536 half-precision bit patterns `h`, rounded to half
    /// precision and widened back: ggml's `ggml_table_gelu_f16`.
    static let table: [Float] = (0..<65_536).map { bits in
        Float(Float16(formula(Float(Float16(bitPattern: UInt16(bits))))))
    }

    /// `0.5·x·(1 + tanh(√(2/π)·x·(1 + 0.044715·x²)))` in single precision, in ggml's order of
    /// operations (`ggml_gelu_f32`), with the C library's `tanhf` as ggml calls it.
    static func formula(_ x: Float) -> Float {
        let sqrtTwoOverPi: Float = 0.79788456080286535587989211986876, a: Float = 0.044715
        return 0.5 * x * (1 + tanhf(sqrtTwoOverPi * x * (1 + a * x * x)))
    }

    /// GeGLU in place: `gate[i] = gelu(gate[i]) · up[i]` for `count` values, as ggml's
    /// `ggml_vec_geglu_f32` (`x · up` without the table above 10, 0 at or below −10).
    static func gated(_ gate: UnsafeMutablePointer<Float>, up: UnsafePointer<Float>, count: Int) {
        table.withUnsafeBufferPointer { t in
            for i in 0..<count {
                let x = gate[i]
                gate[i] = x <= -10 ? 0 : x >= 10 ? x * up[i] : t[Int(Float16(x).bitPattern)] * up[i]
            }
        }
    }
}
