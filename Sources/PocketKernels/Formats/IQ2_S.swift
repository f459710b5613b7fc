import PocketGGUF

// IQ2_S: 2-bit i-quant on a lattice codebook with free signs, super-blocks of 256 weights with
// 4-bit scales per 16, 82 bytes, 2.5625 bpw.
//
//   x = d·(0.5 + ls)·0.25·grid[g]_j·(−1)^s_j,   ls ∈ 0…15 per 16 weights
//
// Groups of 8 magnitudes in {8, 25, 43} from a codebook of 1024 (IQGrids.iq2s, ggml's
// iq2s_grid), indexed by 10 bits split over two fields; the 8 signs of a group are stored as a
// whole byte (bit j negates value j), with no parity constraint, so no sign table.
//
// Byte layout (ggml's block_iq2_s):
//   0..<2     d        fp16 super-block scale
//   2..<66    qs       bytes 0..<32: low 8 bits of the grid index of group l (weights 8l…8l+7);
//                      bytes 32..<64: the sign byte of group l
//   66..<74   qh       byte l / 4, bits 2(l % 4)…2(l % 4)+1: bits 8…9 of group l's grid index
//   74..<82   scales   byte ib: ls of weights 32ib…32ib+15 (low nibble) and 32ib+16…32ib+31
//                      (high nibble)
//
// Reference order (float32): db = (d·(0.5 + ls))·0.25, then (db·grid)·(±1), each exact.

/// 256 weights as 8-weight lattice points (10-bit index, 8 free signs) with a 4-bit scale per
/// 16 weights, under one fp16 scale.
public enum IQ2_S: BlockFormat {
    public static let type = GGMLType.iq2_s
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 82

    static let dOffset = 0
    static let qsOffset = 2
    static let signsOffset = 34
    static let qhOffset = 66
    static let scalesOffset = 74

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 64, .values),
        BlockField("qh", at: qhOffset, bytes: 8, .values),
        BlockField("scales", at: scalesOffset, bytes: 8, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq2s.withUnsafeBufferPointer { grid in
            for b in 0..<count {
                let block = source + b * bytesPerBlock
                let d = block.loadHalf(at: dOffset)
                for l in 0..<32 {
                    // Group l is in half l / 2 of sub-block l / 4: nibble (l / 2) % 2 of byte l / 4.
                    let ls = (block.byte(at: scalesOffset + l / 4) &>> UInt8(4 * ((l / 2) % 2))) & 0xF
                    let db = d * (0.5 + Float(ls)) * 0.25
                    IQ2_XXS.decodeGroup(
                        grid[gridIndex(block, l)], signs: block.byte(at: signsOffset + l), scale: db,
                        into: destination + b * weightsPerBlock + 8 * l)
                }
            }
        }
    }

    /// The 10-bit grid index of group `l` (0..<32): its qs byte, and two bits of qh above it.
    @inline(__always)
    static func gridIndex(_ block: UnsafeRawPointer, _ l: Int) -> Int {
        let high = (block.byte(at: qhOffset + l / 4) &>> UInt8(2 * (l % 4))) & 3
        return Int(block.byte(at: qsOffset + l)) | Int(high) << 8
    }
}
