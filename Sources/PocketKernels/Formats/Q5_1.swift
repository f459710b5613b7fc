import PocketGGUF

// Q5_1: 5-bit affine, blocks of 32 weights, 24 bytes, 6.0 bpw.
//
//   x = d·q + m,   q = low nibble | high bit << 4 ∈ 0…31
//
// Byte layout:
//   0..<2    d    fp16 block scale
//   2..<4    m    fp16 block minimum
//   4..<8    qh   little-endian UInt32: bit i is the high (5th) bit of weight i
//   8..<24   qs   16 bytes of nibbles: byte j holds the low bits of weight j (low nibble) and
//                 weight j+16 (high nibble)
//
// Reference order: (d·q) + m, two float32 operations (not fused).

/// 32 weights as 5-bit steps above a minimum, with fp16 scale and minimum.
public enum Q5_1: BlockFormat {
    public static let type = GGMLType.q5_1
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 24

    static let dOffset = 0
    static let mOffset = 2
    static let qhOffset = 4
    static let qsOffset = 8

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("m", at: mOffset, bytes: 2, .scales),
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
            let m = block.loadHalf(at: mOffset)
            let qh = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
            for j in 0..<16 {
                let byte = UInt32(block.byte(at: qsOffset + j))
                let low = byte & 0xF | (qh &>> UInt32(j) & 1) &<< 4
                let high = byte &>> 4 | (qh &>> UInt32(j + 16) & 1) &<< 4
                out[j] = d * Float(low) + m
                out[j + 16] = d * Float(high) + m
            }
        }
    }
}
