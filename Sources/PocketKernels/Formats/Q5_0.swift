import PocketGGUF

// Q5_0: 5-bit symmetric, blocks of 32 weights, 22 bytes, 5.5 bpw.
//
//   x = d·(q − 16),   q = low nibble | high bit << 4 ∈ 0…31
//
// Byte layout:
//   0..<2    d    fp16 block scale
//   2..<6    qh   little-endian UInt32: bit i is the high (5th) bit of weight i
//   6..<22   qs   16 bytes of nibbles: byte j holds the low bits of weight j (low nibble) and
//                 weight j+16 (high nibble)
//
// Reference order: d·Float(q − 16), one float32 product.

/// 32 weights as 5-bit offsets around zero with one fp16 scale.
public enum Q5_0: BlockFormat {
    public static let type = GGMLType.q5_0
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 22

    static let dOffset = 0
    static let qhOffset = 2
    static let qsOffset = 6

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qh", at: qhOffset, bytes: 4, .values),
        BlockField("qs", at: qsOffset, bytes: 16, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            let qh = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
            for j in 0..<16 {
                let byte = UInt32(block.byte(at: qsOffset + j))
                let low = byte & 0xF | (qh &>> UInt32(j) & 1) &<< 4
                let high = byte &>> 4 | (qh &>> UInt32(j + 16) & 1) &<< 4
                out[j] = d * Float(Int32(low) - 16)
                out[j + 16] = d * Float(Int32(high) - 16)
            }
        }
    }
}
