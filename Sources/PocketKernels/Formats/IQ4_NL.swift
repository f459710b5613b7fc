import PocketGGUF

// IQ4_NL: 4-bit non-linear, blocks of 32 weights, 18 bytes, 4.5 bpw.
//
//   x = d·kvalues[q],   q ∈ 0…15
//
// kvalues (ggml's `kvalues_iq4nl`) = −127 −104 −83 −65 −49 −35 −22 −10 1 13 25 38 53 69 89 113:
// a fixed codebook, denser near zero, instead of Q4_0's evenly spaced q − 8.
//
// Byte layout (ggml's block_iq4_nl):
//   0..<2    d    fp16 block scale
//   2..<18   qs   16 bytes of nibbles: byte j holds weight j (low) and weight j+16 (high)
//
// Reference order: d·Float(kvalues[q]), one float32 product (exact: 11 × 8 significant bits).

/// 32 weights as 4-bit indices into a fixed non-linear codebook, with one fp16 scale.
public enum IQ4_NL: BlockFormat {
    public static let type = GGMLType.iq4_nl
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 18

    static let dOffset = 0
    static let qsOffset = 2

    /// The codebook shared with ``IQ4_XS``: ggml's `kvalues_iq4nl`.
    static let codebook: [Int8] = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113]

    public static let layout = [
        BlockField("d", at: dOffset, bytes: 2, .scales),
        BlockField("qs", at: qsOffset, bytes: 16, .values),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        codebook.withUnsafeBufferPointer { kvalues in
            for b in 0..<count {
                let block = source + b * bytesPerBlock
                decode(block + qsOffset, scale: block.loadHalf(at: dOffset), kvalues, into: destination + b * weightsPerBlock)
            }
        }
    }

    /// Decodes 16 bytes of nibbles at `qs` into 32 weights `scale·kvalues[q]` (weight j from the
    /// low nibble of byte j, weight j+16 from its high nibble); shared with ``IQ4_XS``.
    @inline(__always)
    static func decode(
        _ qs: UnsafeRawPointer, scale: Float, _ kvalues: UnsafeBufferPointer<Int8>, into out: UnsafeMutablePointer<Float>
    ) {
        for j in 0..<16 {
            let byte = qs.byte(at: j)
            out[j] = scale * Float(kvalues[Int(byte & 0xF)])
            out[j + 16] = scale * Float(kvalues[Int(byte &>> 4)])
        }
    }
}
