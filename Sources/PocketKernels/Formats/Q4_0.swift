import PocketGGUF

// Q4_0: 4-bit symmetric, blocks of 32 weights, 18 bytes, 4.5 bpw.
//
//   x = d·(q − 8),   q ∈ 0…15
//
// Byte layout:
//   0..<2    d    fp16 block scale
//   2..<18   qs   16 bytes of nibbles: byte j holds weight j (low) and weight j+16 (high)
//
// Reference order: d·Float(q − 8), one float32 product.

/// 32 weights as 4-bit offsets around zero with one fp16 scale.
public enum Q4_0: BlockFormat {
    public static let type = GGMLType.q4_0
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 18

    static let dOffset = 0
    static let qsOffset = 2

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 16, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            for j in 0..<16 {
                let byte = block.byte(at: qsOffset + j)
                out[j] = d * Float(Int32(byte & 0xF) - 8)
                out[j + 16] = d * Float(Int32(byte &>> 4) - 8)
            }
        }
    }
}
