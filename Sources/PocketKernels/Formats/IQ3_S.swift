import PocketGGUF

// IQ3_S: 3-bit lattice i-quant, super-blocks of 256 weights in 8 sub-blocks of 32, 110 bytes,
// 3.4375 bpw.
//
//   x = d·(1 + 2·ls)·grid[q]_k·sign,   q ∈ 0…511 per group of 4, ls ∈ 0…15 per sub-block
//
// Each group of 4 weights is one point of a fixed lattice codebook (``IQGrids/iq3s``: 512
// groups of odd magnitudes 1…15) picked by a 9-bit index; every weight has its own sign bit.
//
// Byte layout (ggml's block_iq3_s):
//   0..<2      d       fp16 super-block scale
//   2..<66     qs      low 8 bits of the 64 grid indices: byte 8ib + j is group j (weights
//                      4j…4j+3) of sub-block ib
//   66..<74    qh      ninth index bits: bit j of byte ib belongs to group j of sub-block ib
//   74..<106   signs   one bit per weight: bit i of byte 4ib + l negates weight 8l + i of
//                      sub-block ib (the 4 bytes of a sub-block read as one little-endian word:
//                      bit w negates weight w)
//   106..<110  scales  4-bit ls: low nibble of byte k for sub-block 2k, high nibble for 2k + 1
//
// Reference order (float32): db = d·(1 + 2·ls), then (db·grid)·(±1), each product exact
// (11 + 5 and 16 + 4 significant bits).

/// 256 weights as 4-weight lattice points with 9-bit indices, one sign bit per weight and 4-bit
/// sub-block scales, under one fp16 scale.
public enum IQ3_S: BlockFormat {
    public static let type = GGMLType.iq3_s
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 110

    static let dOffset = 0
    static let qsOffset = 2
    static let qhOffset = 66
    static let signsOffset = 74
    static let scalesOffset = 106

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 64, .values),
        BlockField("qh", at: qhOffset, bytes: 8, .values),
        BlockField("signs", at: signsOffset, bytes: 32, .values),
        BlockField("scales", at: scalesOffset, bytes: 4, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq3s.withUnsafeBufferPointer { grid in
            for b in 0..<count {
                let block = source + b * bytesPerBlock
                let d = block.loadHalf(at: dOffset)
                for ib in 0..<8 {
                    let out = destination + b * weightsPerBlock + 32 * ib
                    let db = d * Float(1 + 2 * subBlockScale(block, ib))
                    let signs = signWord(block, ib)
                    for j in 0..<8 {
                        let point = grid[gridIndex(block, ib, j)]
                        for k in 0..<4 {
                            let w = 4 * j + k
                            let magnitude = Float(point &>> UInt32(8 * k) & 0xFF)
                            let sign: Float = signs &>> UInt32(w) & 1 == 0 ? 1 : -1
                            out[w] = db * magnitude * sign
                        }
                    }
                }
            }
        }
    }

    /// The 9-bit grid index of group `j` (0..<8) of sub-block `ib` (0..<8).
    @inline(__always)
    static func gridIndex(_ block: UnsafeRawPointer, _ ib: Int, _ j: Int) -> Int {
        let low = Int(block.byte(at: qsOffset + 8 * ib + j))
        let high = Int(block.byte(at: qhOffset + ib) &>> UInt8(j) & 1)
        return low | high &<< 8
    }

    /// The sign bits of sub-block `ib` (0..<8): bit w negates weight w (0..<32).
    @inline(__always)
    static func signWord(_ block: UnsafeRawPointer, _ ib: Int) -> UInt32 {
        UInt32(littleEndian: block.loadUnaligned(fromByteOffset: signsOffset + 4 * ib, as: UInt32.self))
    }

    /// The 4-bit scale `ls` (0…15) of sub-block `ib` (0..<8).
    @inline(__always)
    static func subBlockScale(_ block: UnsafeRawPointer, _ ib: Int) -> Int32 {
        Int32(block.byte(at: scalesOffset + ib / 2) &>> UInt8(4 * (ib % 2)) & 0xF)
    }
}
