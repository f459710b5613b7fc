import PocketGGUF

// Q2_K: 2-bit k-quant, super-blocks of 256 weights in 16 sub-blocks of 16, 84 bytes, 2.625 bpw.
//
//   x = d·scale·q − dmin·min,   q ∈ 0…3, scale and min 4-bit per sub-block
//
// Byte layout:
//   0..<16    scales   byte s: scale of sub-block s (low nibble), its min (high nibble)
//   16..<80   qs       2-bit values: weight i = 128h + 32j + l (h < 2, j < 4, l < 32) is
//                      bits 2j…2j+1 of byte 32h + l
//   80..<82   d        fp16 super-block scale of the scales
//   82..<84   dmin     fp16 super-block scale of the mins
//
// Reference order (float32): (d·scale)·q − (dmin·min); the two products per sub-block first.

/// 2-bit weights with 4-bit per-sub-block scales and mins.
public enum Q2_K: BlockFormat {
    public static let type = GGMLType.q2_K
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 84

    static let scalesOffset = 0
    static let qsOffset = 16
    static let dOffset = 80
    static let dminOffset = 82

    public static let layout = [
        BlockField("scales", at: scalesOffset, bytes: 16, .scales),
        BlockField("qs", at: qsOffset, bytes: 64, .values),
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("dmin", at: dminOffset, bytes: 2, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            let dmin = block.loadHalf(at: dminOffset)
            for s in 0..<16 {
                let packed = block.byte(at: scalesOffset + s)
                let dl = d * Float(packed & 0xF)
                let ml = dmin * Float(packed &>> 4)
                // Sub-block s covers weights 16s..<16s+16: half h, 2-bit plane j, bytes l0..<l0+16.
                let h = s / 8, j = (s % 8) / 2, l0 = (s % 2) * 16
                let qs = block + qsOffset + 32 * h + l0
                for k in 0..<16 {
                    let q = qs.byte(at: k) &>> UInt8(2 * j) & 3
                    out[16 * s + k] = dl * Float(q) - ml
                }
            }
        }
    }
}
