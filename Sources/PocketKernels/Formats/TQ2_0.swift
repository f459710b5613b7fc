import PocketGGUF

// TQ2_0: ternary weights in 2 bits, super-blocks of 256 weights, 66 bytes, 2.0625 bpw.
//
//   x = d·(q − 1),   q ∈ 0…3 (q = 3 gives 2: the encoder only writes 0…2, the decoder accepts all)
//
// Byte layout (ggml's block_tq2_0):
//   0..<64    qs   2-bit values; weight 128g + 32j + l (g ∈ 0…1, j ∈ 0…3, l ∈ 0…31) is bits
//                  2j…2j+1 of byte 32g + l
//   64..<66   d    fp16 super-block scale (after the values)
//
// Reference order: d·Float(q − 1), one float32 product (exact).

/// 256 ternary weights packed four to a byte, with one fp16 scale after them.
public enum TQ2_0: BlockFormat {
    public static let type = GGMLType.tq2_0
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 66

    static let qsOffset = 0
    static let dOffset = 64

    public static let layout = [
        BlockField("qs", at: qsOffset, bytes: 64, .values),
        BlockField("d", at: dOffset, bytes: 2, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let d = block.loadHalf(at: dOffset)
            let out = destination + b * weightsPerBlock
            for g in 0..<2 {
                for j in 0..<4 {
                    for l in 0..<32 {
                        let q = Int32((block.byte(at: qsOffset + 32 * g + l) >> UInt8(2 * j)) & 3) - 1
                        out[128 * g + 32 * j + l] = d * Float(q)
                    }
                }
            }
        }
    }
}
