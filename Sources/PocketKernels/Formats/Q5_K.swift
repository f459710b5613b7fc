import PocketGGUF

// Q5_K: 5-bit k-quant, super-blocks of 256 weights in 8 sub-blocks of 32, 176 bytes, 5.5 bpw.
//
//   x = d·scale·q − dmin·min,   q = low nibble | high bit << 4 ∈ 0…31, scale and min 6-bit
//
// Byte layout:
//   0..<2      d        fp16 super-block scale of the scales
//   2..<4      dmin     fp16 super-block scale of the mins
//   4..<16     scales   packed exactly as in Q4_K (`Q4_K.scaleAndMin`)
//   16..<48    qh       high bits: weight i = 32s + l has its 5th bit at bit s of byte l
//   48..<176   qs       low nibbles, arranged as Q4_K's qs
//
// Reference order (float32): (d·scale)·q − (dmin·min); the two products per sub-block first.

/// 5-bit weights with 6-bit per-sub-block scales and mins.
public enum Q5_K: BlockFormat {
    public static let type = GGMLType.q5_K
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 176

    static let dOffset = 0
    static let dminOffset = 2
    static let scalesOffset = 4
    static let qhOffset = 16
    static let qsOffset = 48

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("dmin", at: dminOffset, bytes: 2, .scales),
        BlockField("scales", at: scalesOffset, bytes: 12, .scales),
        BlockField("qh", at: qhOffset, bytes: 32, .values),
        BlockField("qs", at: qsOffset, bytes: 128, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            let dmin = block.loadHalf(at: dminOffset)
            let qh = block + qhOffset
            for s in 0..<8 {
                let (scale, min) = Q4_K.scaleAndMin(block + scalesOffset, s)
                let dl = d * Float(scale)
                let ml = dmin * Float(min)
                let qs = block + qsOffset + 32 * (s / 2)
                let shift = UInt8(4 * (s % 2))
                for l in 0..<32 {
                    let q = qs.byte(at: l) &>> shift & 0xF | (qh.byte(at: l) &>> UInt8(s) & 1) &<< 4
                    out[32 * s + l] = dl * Float(q) - ml
                }
            }
        }
    }
}
