import PocketGGUF

// TQ1_0: ternary weights in base 3, super-blocks of 256 weights, 54 bytes, 1.6875 bpw.
//
//   x = d·(t − 1),   t ∈ 0…2 a base-3 digit
//
// Five ternary digits fit one byte (3^5 = 243 ≤ 256). The encoder stores the number n of five
// digits t0 t1 t2 t3 t4 (most significant first) as the byte ⌈n·256/243⌉, a fixed-point
// fraction n/243 of 256. Digit j is then read without a division: multiplying the byte by 3^j
// (modulo 256) shifts the fraction j digits left, and the top digit of the fraction is
// (byte·3) >> 8. So digit j of byte c is ((c·3^j mod 256)·3) >> 8.
//
// Byte layout (ggml's block_tq1_0):
//   0..<32    qs[0..<32]    5 digits per byte: digit j of byte l is weight 32j + l (0…159)
//   32..<48   qs[32..<48]   5 digits per byte: digit j of byte 32 + l is weight 160 + 16j + l
//   48..<52   qh            4 digits per byte (the fifth is 0): digit j of byte 48 + l is weight
//                           240 + 4j + l
//   52..<54   d             fp16 super-block scale
//
// Reference order: d·Float(t − 1), one float32 product (exact).

/// 256 ternary weights packed five (or four) to a byte in base 3, with one fp16 scale.
public enum TQ1_0: BlockFormat {
    public static let type = GGMLType.tq1_0
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 54

    static let qsOffset = 0
    static let qhOffset = 48
    static let dOffset = 52

    public static let layout = [
        BlockField("qs", at: qsOffset, bytes: 48, .values),
        BlockField("qh", at: qhOffset, bytes: 4, .values),
        BlockField("d", at: dOffset, bytes: 2, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let d = block.loadHalf(at: dOffset)
            let out = destination + b * weightsPerBlock
            var power: UInt8 = 1  // 3^j
            for j in 0..<5 {
                for l in 0..<32 { out[32 * j + l] = d * Float(digit(block.byte(at: qsOffset + l), power) - 1) }
                for l in 0..<16 { out[160 + 16 * j + l] = d * Float(digit(block.byte(at: qsOffset + 32 + l), power) - 1) }
                if j < 4 {
                    for l in 0..<4 { out[240 + 4 * j + l] = d * Float(digit(block.byte(at: qhOffset + l), power) - 1) }
                }
                power &*= 3
            }
        }
    }

    /// Ternary digit `j` (0…4, most significant first) of the packed byte `c`, given
    /// `power` = 3^j: 0, 1 or 2.
    @inline(__always)
    static func digit(_ c: UInt8, _ power: UInt8) -> Int32 {
        Int32((UInt16(c &* power) * 3) >> 8)
    }
}
