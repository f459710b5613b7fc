import PocketGGUF

// Q6_K: 6-bit k-quant, super-blocks of 256 weights in 16 sub-blocks of 16, 210 bytes, 6.5625 bpw.
//
//   x = d·scale·(q − 32),   q = low nibble | high2 << 4 ∈ 0…63, scale signed 8-bit per sub-block
//
// Byte layout:
//   0..<128    ql       low nibbles: weight i = 128h + 64n + l (h < 2, n < 2, l < 64) is
//                       nibble n of byte 64h + l
//   128..<192  qh       high 2 bits: weight i = 128h + 32j + l (j < 4, l < 32) is bits
//                       2j…2j+1 of byte 32h + l
//   192..<208  scales   16 signed bytes, one per sub-block
//   208..<210  d        fp16 super-block scale
//
// Reference order (float32): (d·scale)·(q − 32).

/// 6-bit weights with 8-bit signed per-sub-block scales.
public enum Q6_K: BlockFormat {
    public static let type = GGMLType.q6_K
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 210

    static let qlOffset = 0
    static let qhOffset = 128
    static let scalesOffset = 192
    static let dOffset = 208

    public static let layout = [
        BlockField("ql", at: qlOffset, bytes: 128, .values),
        BlockField("qh", at: qhOffset, bytes: 64, .values),
        BlockField("scales", at: scalesOffset, bytes: 16, .scales),
        BlockField("d", at: dOffset, bytes: 2, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            for s in 0..<16 {
                let dl = d * Float(block.load(fromByteOffset: scalesOffset + s, as: Int8.self))
                // Sub-block s covers weights 16s..<16s+16, r = position inside its half.
                let h = s / 8, r0 = 16 * (s % 8)
                let ql = block + qlOffset + 64 * h + r0 % 64
                let qh = block + qhOffset + 32 * h + r0 % 32
                let lowShift = UInt8(4 * (r0 / 64)), highShift = UInt8(2 * (r0 / 32))
                for k in 0..<16 {
                    let q = ql.byte(at: k) &>> lowShift & 0xF | (qh.byte(at: k) &>> highShift & 3) &<< 4
                    out[16 * s + k] = dl * Float(Int32(q) - 32)
                }
            }
        }
    }
}
