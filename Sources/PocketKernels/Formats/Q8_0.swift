import PocketGGUF

// Q8_0: 8-bit symmetric, blocks of 32 weights, 34 bytes, 8.5 bpw.
//
//   x = d·q,   q ∈ −128…127
//
// Byte layout:
//   0..<2    d    fp16 block scale
//   2..<34   qs   32 signed bytes, weight j in byte j
//
// Reference order: Float(q)·d, one float32 product.

/// 32 weights as signed bytes with one fp16 scale.
public enum Q8_0: BlockFormat {
    public static let type = GGMLType.q8_0
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 34

    static let dOffset = 0
    static let qsOffset = 2

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 32, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            for j in 0..<32 {
                out[j] = Float(block.load(fromByteOffset: qsOffset + j, as: Int8.self)) * d
            }
        }
    }
}
