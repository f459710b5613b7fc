import PocketGGUF

// Q4_K: 4-bit k-quant, super-blocks of 256 weights in 8 sub-blocks of 32, 144 bytes, 4.5 bpw.
//
//   x = d·scale·q − dmin·min,   q ∈ 0…15, scale and min 6-bit per sub-block
//
// Byte layout:
//   0..<2     d        fp16 super-block scale of the scales
//   2..<4     dmin     fp16 super-block scale of the mins
//   4..<16    scales   eight 6-bit scales and eight 6-bit mins (see `scaleAndMin`)
//   16..<144  qs       nibbles: weight i = 64c + 32n + l (c < 4, n < 2, l < 32) is nibble n of
//                      byte 32c + l
//
// Reference order (float32): (d·scale)·q − (dmin·min); the two products per sub-block first.

/// 4-bit weights with 6-bit per-sub-block scales and mins.
public enum Q4_K: BlockFormat {
    public static let type = GGMLType.q4_K
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 144

    static let dOffset = 0
    static let dminOffset = 2
    static let scalesOffset = 4
    static let qsOffset = 16

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("dmin", at: dminOffset, bytes: 2, .scales),
        BlockField("scales", at: scalesOffset, bytes: 12, .scales),
        BlockField("qs", at: qsOffset, bytes: 128, .values),
    ]

    /// The 6-bit scale and min of sub-block `s` (0…7) from the 12 packed bytes shared by Q4_K
    /// and Q5_K.
    ///
    /// Bytes 0…3 hold scales 0…3 in their low 6 bits, bytes 4…7 mins 0…3; bytes 8…11 hold the
    /// low 4 bits of scales 4…7 (low nibble) and mins 4…7 (high nibble), whose top 2 bits are
    /// the top 2 bits of bytes 0…3 (scales) and 4…7 (mins).
    @inline(__always)
    static func scaleAndMin(_ scales: UnsafeRawPointer, _ s: Int) -> (scale: UInt8, min: UInt8) {
        if s < 4 {
            return (scales.byte(at: s) & 0x3F, scales.byte(at: s + 4) & 0x3F)
        }
        let packed = scales.byte(at: s + 4)
        let scaleTop = scales.byte(at: s - 4) &>> 6, minTop = scales.byte(at: s) &>> 6
        return (packed & 0xF | scaleTop &<< 4, packed &>> 4 | minTop &<< 4)
    }

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for b in 0..<count {
            let block = source + b * bytesPerBlock
            let out = destination + b * weightsPerBlock
            let d = block.loadHalf(at: dOffset)
            let dmin = block.loadHalf(at: dminOffset)
            for s in 0..<8 {
                let (scale, min) = scaleAndMin(block + scalesOffset, s)
                let dl = d * Float(scale)
                let ml = dmin * Float(min)
                // Sub-block s is nibble s%2 of bytes 32(s/2)..<32(s/2)+32.
                let qs = block + qsOffset + 32 * (s / 2)
                let shift = UInt8(4 * (s % 2))
                for l in 0..<32 {
                    out[32 * s + l] = dl * Float(qs.byte(at: l) &>> shift & 0xF) - ml
                }
            }
        }
    }
}
