import PocketGGUF

// IQ2_XXS: 2-bit i-quant on a lattice codebook, super-blocks of 256 weights in 8 sub-blocks of
// 32, 66 bytes, 2.0625 bpw.
//
//   x = d·(0.5 + ls)·0.25·grid[g]_j·(−1)^s_j,   ls ∈ 0…15 per sub-block of 32
//
// Weights come in groups of 8: an 8-bit index g picks one of 256 groups of 8 magnitudes in
// {8, 25, 43} (IQGrids.iq2xxs, ggml's iq2xxs_grid), and a 7-bit index picks the group's signs
// from IQGrids.signs (ggml's ksigns_iq2xs: the 8th sign is the parity of the other seven, so
// each group has an even number of minus signs). Bit j of the sign byte negates value j.
//
// Byte layout (ggml's block_iq2_xxs):
//   0..<2    d    fp16 super-block scale
//   2..<66   qs   8 × 8 bytes, one run per sub-block ib of 32 weights (groups 4ib…4ib+3):
//                   bytes 0..<4  the grid indices g of groups 0…3 (one byte each)
//                   bytes 4..<8  a UInt32 (little-endian): bits 7l…7l+6 the sign index of
//                                group l, bits 28…31 the sub-block scale ls
//
// Reference order (float32): db = (d·(0.5 + ls))·0.25, then (db·grid)·(±1). Every product is
// exact: d has 11 significant bits, 0.5 + ls at most 5, the grid values at most 6.

/// 256 weights as 8-weight lattice points (8-bit index, 7-bit sign pattern) in 8 sub-blocks
/// with 4-bit scales, under one fp16 scale.
public enum IQ2_XXS: BlockFormat {
    public static let type = GGMLType.iq2_xxs
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 66

    static let dOffset = 0
    static let qsOffset = 2

    // The 4-bit scales live inside qs (4 bits of 64 per sub-block), so qs counts as values.
    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 64, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq2xxs.withUnsafeBufferPointer { grid in
            IQGrids.signs.withUnsafeBufferPointer { signs in
                for b in 0..<count {
                    let block = source + b * bytesPerBlock
                    let d = block.loadHalf(at: dOffset)
                    for ib in 0..<8 {
                        let (indices, aux) = subBlockWords(block, ib)
                        let db = d * (0.5 + Float(aux >> 28)) * 0.25
                        for l in 0..<4 {
                            decodeGroup(
                                grid[Int((indices >> UInt32(8 * l)) & 0xFF)], signs: signs[Int((aux >> UInt32(7 * l)) & 127)],
                                scale: db, into: destination + b * weightsPerBlock + 32 * ib + 8 * l)
                        }
                    }
                }
            }
        }
    }

    /// The two little-endian words of sub-block `ib` (0..<8): the four grid indices, and the
    /// sign indices with the scale in the top 4 bits.
    @inline(__always)
    static func subBlockWords(_ block: UnsafeRawPointer, _ ib: Int) -> (indices: UInt32, aux: UInt32) {
        (UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 8 * ib, as: UInt32.self)),
         UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 8 * ib + 4, as: UInt32.self)))
    }

    /// Decodes one group of 8 weights `(scale·grid_j)·(±1)`: `group` holds magnitude j in byte
    /// j, bit j of `signs` negates it (by a multiply with −1, as the reference does, so NaN
    /// scales keep their bits). Shared with ``IQ2_XS`` and ``IQ2_S``.
    @inline(__always)
    static func decodeGroup(_ group: UInt64, signs: UInt8, scale: Float, into out: UnsafeMutablePointer<Float>) {
        for j in 0..<8 {
            let magnitude = Float(UInt8(truncatingIfNeeded: group >> UInt64(8 * j)))
            let sign: Float = (signs >> UInt8(j)) & 1 == 0 ? 1 : -1
            out[j] = scale * magnitude * sign
        }
    }
}
