import PocketGGUF

// IQ1_M: 1-bit-class lattice codes, super-blocks of 256 weights, 56 bytes, 1.75 bpw.
//
//   x = d·(2s + 1)·(g + δ),   g ∈ {−1, 0, 1},  δ = ±1/8,  s ∈ 0…7
//
// IQ1_S's codebook (``IQGrids/iq1s``) and shift, with finer side information: a 3-bit scale s
// per 16 weights and a sign of δ per group of 8. There is no fp16 field: the super-block scale
// d is assembled from the top nibbles of the four 16-bit scale words.
//
// Byte layout (ggml's block_iq1_m):
//   0..<32    qs        32 bytes: byte k is the low 8 bits of the index of group k (weights
//                       8k…8k+7)
//   32..<48   qh        16 bytes of nibbles, group k in byte k/2 (low nibble for even k): bits
//                       0…2 are the high 3 bits of its index, bit 3 the sign of δ (set: −1/8)
//   48..<56   scales    four UInt16 words (little-endian), listed as the fields scales0…scales3:
//                       bits 3t…3t+2 of word w are s of the 16 weights 64w + 16t …+15; bits
//                       12…15 of word w are bits 4w…4w+3 of the fp16 d
//
// Reference order: dl = d·Float(2s + 1) (exact), then dl·(g + δ) (exact, as IQ1_S's).

/// 256 weights as 11-bit indices into IQ1_S's ternary lattice codebook, with a 3-bit scale per
/// 16, a ±1/8 shift per 8, and an fp16 scale spread over the scale words.
public enum IQ1_M: BlockFormat {
    public static let type = GGMLType.iq1_m
    public static let weightsPerBlock = 256
    public static let bytesPerBlock = 56

    static let qsOffset = 0
    static let qhOffset = 32
    static let scalesOffset = 48

    // The scale words are four fields because the format reads them as four 16-bit words, each
    // holding three sub-block scales and one nibble of d.
    public static let layout = [
        BlockField("qs", at: qsOffset, bytes: 32, .values),
        BlockField("qh", at: qhOffset, bytes: 16, .values),
        BlockField("scales0", at: scalesOffset, bytes: 2, .scales),
        BlockField("scales1", at: scalesOffset + 2, bytes: 2, .scales),
        BlockField("scales2", at: scalesOffset + 4, bytes: 2, .scales),
        BlockField("scales3", at: scalesOffset + 6, bytes: 2, .scales),
    ]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        IQGrids.iq1s.withUnsafeBufferPointer { grid in
            for b in 0..<count {
                let block = source + b * bytesPerBlock
                let words = scaleWords(block)
                let d = HalfConversion.widened(halfBits(words))
                for k in 0..<32 {
                    let dl = d * Float(halfBlockScale(words, k / 2) * 2 + 1)
                    let nibble = groupNibble(block, k)
                    let shift = nibble & 8 == 0 ? IQ1_S.delta : -IQ1_S.delta
                    let index = Int(block.byte(at: qsOffset + k)) | Int(nibble & 7) << 8
                    IQ1_S.decodeGroup(grid[index], scale: dl, shift: shift, into: destination + b * weightsPerBlock + 8 * k)
                }
            }
        }
    }

    /// The four scale words of the super-block at `block`, word w in bits 16w…16w+15.
    @inline(__always)
    static func scaleWords(_ block: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: block.loadUnaligned(fromByteOffset: scalesOffset, as: UInt64.self))
    }

    /// The fp16 bit pattern of d: the top nibble of word w is its bits 4w…4w+3.
    @inline(__always)
    static func halfBits(_ words: UInt64) -> UInt16 {
        UInt16(truncatingIfNeeded: (words >> 12) & 0xF | (words >> 24) & 0xF0 | (words >> 36) & 0xF00 | (words >> 48) & 0xF000)
    }

    /// The 3-bit scale s (0…7) of the 16 weights `16t…16t+15` (`t` in 0..<16).
    @inline(__always)
    static func halfBlockScale(_ words: UInt64, _ t: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: words >> UInt64(16 * (t >> 2) + 3 * (t & 3))) & 7
    }

    /// The qh nibble of group `k` (0..<32): high index bits 0…2, sign of δ in bit 3.
    @inline(__always)
    static func groupNibble(_ block: UnsafeRawPointer, _ k: Int) -> UInt8 {
        (block.byte(at: qhOffset + k / 2) >> UInt8(4 * (k & 1))) & 0xF
    }
}
