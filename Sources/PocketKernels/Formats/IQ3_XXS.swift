import PocketGGUF

// IQ3_XXS: 3-bit lattice i-quant, super-blocks of 256 weights in 8 sub-blocks of 32, 98 bytes,
// 3.0625 bpw.
//
//   x = d·(ls + ½)/2·grid[q]_k·sign,   q ∈ 0…255 per group of 4, ls ∈ 0…15 per sub-block
//
// Each group of 4 weights is one point of a fixed lattice codebook (``IQGrids/iq3xxs``: 256
// groups of magnitudes in {4, 12, …, 62}), picked by one byte. Signs come per 8 weights as a
// 7-bit index into ``IQGrids/signs`` (ggml's `ksigns_iq2xs`: an even number of minus signs, the
// eighth sign implied by the other seven).
//
// Byte layout (ggml's block_iq3_xxs):
//   0..<2    d    fp16 super-block scale
//   2..<98   qs   64 grid indices: byte 8ib + j is group j (weights 4j…4j+3) of sub-block ib;
//                 then 8 little-endian UInt32 words, word ib for sub-block ib: bits 7l…7l+6
//                 index the signs of weights 8l…8l+7 (bit i of the sign byte negates weight
//                 8l + i), bits 28…31 are ls
//
// The 4-bit scales share the sign words, so the whole `qs` field is listed as values.
//
// Reference order (float32): db = (d·(0.5 + ls))·0.5, then (db·grid)·(±1), each product
// exact (11 + 5 and 16 + 6 significant bits).

/// 256 weights as 4-weight lattice points with 7-bit sign patterns and 4-bit sub-block scales,
/// under one fp16 scale.
public enum IQ3_XXS: BlockFormat {
    public static let type = GGMLType.iq3_xxs
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 98

    static let dOffset = 0
    static let qsOffset = 2
    /// Where the 8 sign-and-scale words start (inside `qs`, after the 64 grid indices).
    static let signsOffset = 66

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 96, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq3xxs.withUnsafeBufferPointer { grid in
            IQGrids.signs.withUnsafeBufferPointer { ksigns in
                for b in 0..<count {
                    let block = source + b * bytesPerBlock
                    let d = block.loadHalf(at: dOffset)
                    for ib in 0..<8 {
                        let out = destination + b * weightsPerBlock + 32 * ib
                        let signs = signWord(block, ib, ksigns)
                        let db = d * (0.5 + Float(signs.scale)) * 0.5
                        for j in 0..<8 {
                            let point = grid[Int(block.byte(at: qsOffset + 8 * ib + j))]
                            for k in 0..<4 {
                                let w = 4 * j + k
                                let magnitude = Float(point &>> UInt32(8 * k) & 0xFF)
                                let sign: Float = signs.bits &>> UInt32(w) & 1 == 0 ? 1 : -1
                                out[w] = db * magnitude * sign
                            }
                        }
                    }
                }
            }
        }
    }

    /// The signs of sub-block `ib` (0..<8) as one word, bit w negating weight w (0..<32), and
    /// the sub-block's 4-bit scale `ls`.
    @inline(__always)
    static func signWord(
        _ block: UnsafeRawPointer, _ ib: Int, _ ksigns: UnsafeBufferPointer<UInt8>
    ) -> (bits: UInt32, scale: UInt32) {
        let aux = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: signsOffset + 4 * ib, as: UInt32.self))
        let s0 = UInt32(ksigns[Int(aux & 0x7F)]), s1 = UInt32(ksigns[Int(aux &>> 7 & 0x7F)])
        let s2 = UInt32(ksigns[Int(aux &>> 14 & 0x7F)]), s3 = UInt32(ksigns[Int(aux &>> 21 & 0x7F)])
        return (s0 | s1 &<< 8 | s2 &<< 16 | s3 &<< 24, aux &>> 28)
    }
}
