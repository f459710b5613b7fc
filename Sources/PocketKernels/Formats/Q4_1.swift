import PocketGGUF

// Q4_1: 4-bit affine, blocks of 32 weights, 20 bytes, 5.0 bpw.
//
//   x = d·q + m,   q ∈ 0…15
//
// Byte layout:
//   0..<2    d    fp16 block scale
//   2..<4    m    fp16 block minimum
//   4..<20   qs   16 bytes of nibbles: byte j holds weight j (low) and weight j+16 (high)
//
// Reference order: (d·q) + m, two float32 operations (not fused).

/// 32 weights as 4-bit steps above a minimum, with fp16 scale and minimum.
public enum Q4_1: BlockFormat {
    public static let type = GGMLType.q4_1
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 20

    static let dOffset = 0
    static let mOffset = 2
    static let qsOffset = 4

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("m", at: mOffset, bytes: 2, .scales),
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
            for j in 0..<16 {
                let byte = block.byte(at: qsOffset + j)
                out[j] = d * Float(byte & 0xF) + m
                out[j + 16] = d * Float(byte &>> 4) + m
            }
        }
    }
}
