import PocketGGUF

// IQ4_XS: 4-bit non-linear with 6-bit sub-block scales, super-blocks of 256 weights, 136 bytes,
// 4.25 bpw.
//
//   x = d·(ls − 32)·kvalues[q],   q ∈ 0…15, ls ∈ 0…63 per sub-block of 32
//
// kvalues is IQ4_NL's codebook; each of the 8 sub-blocks is an IQ4_NL block whose scale is
// d·(ls − 32).
//
// Byte layout (ggml's block_iq4_xs):
//   0..<2     d         fp16 super-block scale
//   2..<4     scales_h  UInt16 (little-endian): bits 2ib…2ib+1 are the high 2 bits of ls of sub-block ib
//   4..<8     scales_l  4 bytes: byte ib/2 holds the low 4 bits of ls of sub-block ib (low nibble
//                       for even ib, high nibble for odd)
//   8..<136   qs        8 × 16 bytes of nibbles; sub-block ib's 16 bytes decode as IQ4_NL's
//
// Reference order: dl = d·Float(ls − 32) (exact), then dl·Float(kvalues[q]), one rounding.

/// 256 weights as 4-bit codebook indices in 8 sub-blocks with 6-bit scales, under one fp16 scale.
public enum IQ4_XS: BlockFormat {
    public static let type = GGMLType.iq4_xs
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 136

    static let dOffset = 0
    static let scalesHighOffset = 2
    static let scalesLowOffset = 4
    static let qsOffset = 8

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("scales_h", at: scalesHighOffset, bytes: 2, .scales),
        BlockField("scales_l", at: scalesLowOffset, bytes: 4, .scales),
        BlockField("qs", at: qsOffset, bytes: 128, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQ4_NL.codebook.withUnsafeBufferPointer { kvalues in
            for b in 0..<count {
                let block = source + b * bytesPerBlock
                let d = block.loadHalf(at: dOffset)
                for ib in 0..<8 {
                    let dl = d * Float(subBlockScale(block, ib))
                    IQ4_NL.decode(block + qsOffset + 16 * ib, scale: dl, kvalues, into: destination + b * weightsPerBlock + 32 * ib)
                }
            }
        }
    }

    /// The signed scale `ls − 32` (−32…31) of sub-block `ib` (0..<8) of the super-block at `block`.
    @inline(__always)
    static func subBlockScale(_ block: UnsafeRawPointer, _ ib: Int) -> Int32 {
        let high = UInt32(UInt16(littleEndian: block.loadUnaligned(fromByteOffset: scalesHighOffset, as: UInt16.self)))
        let low = UInt32(block.byte(at: scalesLowOffset + ib / 2))
        let ls = (low &>> UInt32(4 * (ib % 2))) & 0xF | ((high &>> UInt32(2 * ib)) & 3) << 4
        return Int32(ls) - 32
    }
}
