import PocketGGUF

// Q3_K: 3-bit k-quant, super-blocks of 256 weights in 16 sub-blocks of 16, 110 bytes, 3.4375 bpw.
//
//   x = d·(scale − 32)·q,   q = low2 − (high bit ? 0 : 4) ∈ −4…3, scale 6-bit per sub-block
//
// Byte layout:
//   0..<32     hmask    high bits: weight i's is bit i/32 of byte i%32 (set means no −4)
//   32..<96    qs       low 2 bits: weight i = 128h + 32j + l is bits 2j…2j+1 of byte 32h + l
//   96..<108   scales   sixteen 6-bit scales: low nibbles of sub-block s in byte s%8 (low
//                       nibble for s < 8, high for s ≥ 8); top two bits in byte 8 + s%4, bits
//                       2(s/4)…2(s/4)+1
//   108..<110  d        fp16 super-block scale
//
// Reference order (float32): (d·(scale − 32))·q.

/// 3-bit weights with 6-bit signed per-sub-block scales.
public enum Q3_K: BlockFormat {
    public static let type = GGMLType.q3_K
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 110

    static let hmaskOffset = 0
    static let qsOffset = 32
    static let scalesOffset = 96
    static let dOffset = 108

    public static let layout = [
        BlockField("hmask", at: hmaskOffset, bytes: 32, .values),
        BlockField("qs", at: qsOffset, bytes: 64, .values),
        BlockField("scales", at: scalesOffset, bytes: 12, .scales),
        BlockField("d", at: dOffset, bytes: 2, .scales),
    ]

    /// The signed scale of sub-block `s` (−32…31) from the 12 packed scale bytes.
    @inline(__always)
    static func scale(_ scales: UnsafeRawPointer, _ s: Int) -> Int32 {
        let low = scales.byte(at: s % 8) &>> UInt8(4 * (s / 8)) & 0xF
        let high = scales.byte(at: 8 + s % 4) &>> UInt8(2 * (s / 4)) & 3
        return Int32(low | high &<< 4) - 32
    }

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            for s in 0..<16 {
                let dl = d * Float(scale(block + scalesOffset, s))
                // Sub-block s covers weights 16s..<16s+16: half h, 2-bit plane j, bytes l0..<l0+16;
                // its high bits are bit s/2 of the hmask bytes l0..<l0+16.
                let h = s / 8, j = (s % 8) / 2, l0 = (s % 2) * 16
                let qs = block + qsOffset + 32 * h + l0
                let hmask = block + hmaskOffset + l0
                for k in 0..<16 {
                    let low = Int32(qs.byte(at: k) &>> UInt8(2 * j) & 3)
                    let high = hmask.byte(at: k) &>> UInt8(s / 2) & 1
                    out[16 * s + k] = dl * Float(high == 0 ? low - 4 : low)
                }
            }
        }
    }
}
