// The activation blocks of llama.cpp's CPU products, quantized with its rounding rules, for
// ``LlamaOrderProducts``. The integer codes and scales must be llama.cpp's bit for bit, since
// every product's result follows from them.

/// Activation vectors quantized as ggml's CPU backend quantizes them: `Q8_K` (256 values, one
/// float scale, sums of sixteen) for the k-quant products and `Q8_0` (32 values, an fp16 scale)
/// for the Q5_0 and Q8_0 products.
///
/// Two `Q8_K` rules exist in ggml and both are kept: the one for rows quantized four at a time
/// for the repacked Q4_K kernel (`ggml_quantize_mat_q8_K_4x8`, AVX2) and the reference one
/// (`quantize_row_q8_K_ref`) for every other row. They differ only when `+max` and `−max` both
/// occur in a block, in the sign of the scale.
struct LlamaOrderActivations {
    /// Codes, `tokens × columns`.
    var codes: [Int8] = []
    /// One scale per block: `tokens × columns / 256` for `Q8_K`, `tokens × columns / 32` for `Q8_0`.
    var scales: [Float] = []
    /// `Q8_K` only: the sum of each sixteen codes, `tokens × columns / 16`.
    var sums: [Int32] = []

    /// `Q8_K` blocks of `tokens` rows of `columns` floats at `x`; rows `0..<groupedRows` with the
    /// four-row rule.
    mutating func quantizeSuperBlocks(_ x: UnsafePointer<Float>, tokens: Int, columns: Int, groupedRows: Int) {
        let blocks = columns / 256
        Self.zero(&codes, tokens * columns)
        Self.zero(&scales, tokens * blocks)
        Self.zero(&sums, tokens * columns / 16)
        for t in 0..<tokens {
            for b in 0..<blocks {
                let block = t * blocks + b, v = x + t * columns + 256 * b
                var largest: Float = 0, signedLargest: Float = 0, positiveLargest = false
                for j in 0..<256 where abs(v[j]) > largest { largest = abs(v[j]); signedLargest = v[j] }
                if largest == 0 { continue }
                for j in 0..<256 where v[j] == largest { positiveLargest = true }
                // 4×8 rule: negative scale when +max occurs; reference rule: −127 over the first
                // value of largest magnitude.
                let inverse: Float = t < groupedRows ? (positiveLargest ? -127 / largest : 127 / largest) : -127 / signedLargest
                scales[block] = 1 / inverse
                for j in 0..<256 {
                    let q = (inverse * v[j]).rounded(.toNearestOrEven)
                    codes[t * columns + 256 * b + j] = Int8(max(-128, min(127, q)))
                }
                for g in 0..<16 {
                    var sum: Int32 = 0
                    for j in 0..<16 { sum += Int32(codes[t * columns + 256 * b + 16 * g + j]) }
                    sums[block * 16 + g] = sum
                }
            }
        }
    }

    /// Makes `array` `count` zeros, in the storage it already has when that is large enough
    /// (every product quantizes its input anew).
    private static func zero<T: Numeric>(_ array: inout [T], _ count: Int) {
        array.removeAll(keepingCapacity: true)
        array.append(contentsOf: repeatElement(0, count: count))
    }

    /// `Q8_0` blocks of `tokens` rows of `columns` floats at `x` (`quantize_row_q8_0`, AVX2):
    /// the scale `max/127` rounded to fp16, the codes `x · (127/max)` rounded to nearest even.
    mutating func quantizeBlocks(_ x: UnsafePointer<Float>, tokens: Int, columns: Int) {
        let blocks = columns / 32
        Self.zero(&codes, tokens * columns)
        Self.zero(&scales, tokens * blocks)
        Self.zero(&sums, 0)
        for t in 0..<tokens {
            for b in 0..<blocks {
                let v = x + t * columns + 32 * b
                var largest: Float = 0
                for j in 0..<32 { largest = max(largest, abs(v[j])) }
                scales[t * blocks + b] = Float(Float16(largest / 127))
                let inverse: Float = largest != 0 ? 127 / largest : 0
                for j in 0..<32 {
                    let q = (v[j] * inverse).rounded(.toNearestOrEven)
                    codes[t * columns + 32 * b + j] = Int8(max(-128, min(127, q)))
                }
            }
        }
    }
}
