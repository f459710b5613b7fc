import PocketGGUF

// IQ2_XS: 2-bit i-quant on a lattice codebook, super-blocks of 256 weights with 4-bit scales per
// 16, 74 bytes, 2.3125 bpw.
//
//   x = d·(0.5 + ls)·0.25·grid[g]_j·(−1)^s_j,   ls ∈ 0…15 per 16 weights
//
// As IQ2_XXS, weights come in groups of 8 magnitudes in {8, 25, 43}, but from a codebook of 512
// groups (IQGrids.iq2xs, ggml's iq2xs_grid), and each group carries its own 16-bit code: a 9-bit
// grid index and a 7-bit index into IQGrids.signs (ggml's ksigns_iq2xs; bit j negates value j).
//
// Byte layout (ggml's block_iq2_xs):
//   0..<2     d        fp16 super-block scale
//   2..<66    qs       32 UInt16 (little-endian), one per group l (weights 8l…8l+7): bits 0…8
//                      the grid index g, bits 9…15 the sign index
//   66..<74   scales   byte ib: ls of weights 32ib…32ib+15 (low nibble) and 32ib+16…32ib+31
//                      (high nibble)
//
// Reference order (float32): db = (d·(0.5 + ls))·0.25, then (db·grid)·(±1), each exact.

/// 256 weights as 8-weight lattice points (9-bit index, 7-bit sign pattern) with a 4-bit scale
/// per 16 weights, under one fp16 scale.
public enum IQ2_XS: BlockFormat {
    public static let type = GGMLType.iq2_xs
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 74

    static let dOffset = 0
    static let qsOffset = 2
    static let scalesOffset = 66

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 64, .values),
        BlockField("scales", at: scalesOffset, bytes: 8, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq2xs.withUnsafeBufferPointer { grid in
            IQGrids.signs.withUnsafeBufferPointer { signs in
                for b in 0..<count {
                    let block = source + b * bytesPerBlock
                    let d = block.loadHalf(at: dOffset)
                    for l in 0..<32 {
                        // Group l is in half l / 2 of sub-block l / 4: nibble (l / 2) % 2 of byte l / 4.
                        let ls = (block.byte(at: scalesOffset + l / 4) &>> UInt8(4 * ((l / 2) % 2))) & 0xF
                        let db = d * (0.5 + Float(ls)) * 0.25
                        let code = groupCode(block, l)
                        IQ2_XXS.decodeGroup(
                            grid[Int(code & 511)], signs: signs[Int(code &>> 9)], scale: db,
                            into: destination + b * weightsPerBlock + 8 * l)
                    }
                }
            }
        }
    }

    /// The 16-bit code of group `l` (0..<32): grid index in bits 0…8, sign index in bits 9…15.
    @inline(__always)
    static func groupCode(_ block: UnsafeRawPointer, _ l: Int) -> UInt16 {
        UInt16(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 2 * l, as: UInt16.self))
    }
}
