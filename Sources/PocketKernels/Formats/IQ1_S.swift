import PocketGGUF

// IQ1_S: 1-bit-class lattice codes, super-blocks of 256 weights, 50 bytes, 1.5625 bpw.
//
//   x = d·(2s + 1)·(g + δ),   g ∈ {−1, 0, 1},  δ = ±1/8,  s ∈ 0…7
//
// Weights come in groups of 8: each group is an 11-bit index into a codebook of 2048 vectors of
// 8 values in {−1, 0, 1} (ggml's `iq1s_grid`, ``IQGrids/iq1s``). Each sub-block of 32 weights
// (4 groups) has a 3-bit scale s and a shift δ of ±1/8 added to every value, which centres the
// codebook's values on the weights.
//
// Byte layout (ggml's block_iq1_s):
//   0..<2     d    fp16 super-block scale
//   2..<34    qs   32 bytes: byte 4ib + l is the low 8 bits of the index of group l (weights
//                  32ib + 8l …+7) of sub-block ib
//   34..<50   qh   8 UInt16 (little-endian), word ib for sub-block ib: bits 3l…3l+2 are the high
//                  3 bits of group l's index, bits 12…14 are s, bit 15 the sign of δ (set: −1/8)
//
// Reference order: dl = d·Float(2s + 1) (exact), then dl·(g + δ) (g + δ exact, the product
// exact: at most 11 + 4 + 4 significant bits).

/// 256 weights as 11-bit indices into a ternary lattice codebook, groups of 8, with a 3-bit
/// scale and a ±1/8 shift per 32 and one fp16 scale.
public enum IQ1_S: BlockFormat {
    public static let type = GGMLType.iq1_s
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 50

    static let dOffset = 0
    static let qsOffset = 2
    static let qhOffset = 34

    /// ggml's `IQ1S_DELTA`: the shift added to every codebook value (with the sub-block's sign).
    static let delta: Float = 0.125

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 32, .values),
        BlockField("qh", at: qhOffset, bytes: 16, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq1s.withUnsafeBufferPointer { grid in
            for b in 0..<count {
                let block = source + b * bytesPerBlock
                let d = block.loadHalf(at: dOffset)
                for ib in 0..<8 {
                    let qh = high(block, ib)
                    let dl = d * Float(2 * ((qh >> 12) & 7) + 1)
                    let shift = qh & 0x8000 == 0 ? delta : -delta
                    for l in 0..<4 {
                        let index = Int(block.byte(at: qsOffset + 4 * ib + l)) | Int((qh >> (3 * l)) & 7) << 8
                        decodeGroup(grid[index], scale: dl, shift: shift, into: destination + b * weightsPerBlock + 32 * ib + 8 * l)
                    }
                }
            }
        }
    }

    /// The qh word of sub-block `ib` (0..<8) of the super-block at `block`.
    @inline(__always)
    static func high(_ block: UnsafeRawPointer, _ ib: Int) -> UInt16 {
        UInt16(littleEndian: block.loadUnaligned(fromByteOffset: qhOffset + 2 * ib, as: UInt16.self))
    }

    /// Writes the 8 weights `scale·(g_i + shift)` of a codebook entry (value i in byte i, two's
    /// complement); shared with ``IQ1_M``.
    @inline(__always)
    static func decodeGroup(_ entry: UInt64, scale: Float, shift: Float, into out: UnsafeMutablePointer<Float>) {
        for i in 0..<8 {
            out[i] = scale * (Float(Int8(truncatingIfNeeded: entry >> UInt64(8 * i))) + shift)
        }
    }
}
