// Q5_0 in row groups (``RowGroups``). The block's five words (`qh`, then the four words of
// nibbles) are stored rearranged so that each of the kernel's eight weight vectors unpacks
// with at most four instructions (against up to five for a nibble or'ed with its shifted fifth
// bit). With q_j the 5-bit weight j, g_k the column's word k and byte i of a word:
//
//   g_k, k = 0…3   bits 0…4 of byte i: q_{4k+i} whole; bits 5…7: the high three bits of
//                  q_{16+4k+i}, xor-ed with what g_4 puts over them (below)
//   g_4            bits 8i+2k and 8i+2k+1: the low two bits of q_{16+4k+i}, xor-ed with bits 3
//                  and 4 of q_{4k+i}
//
// so that, per 32-bit lane,
//
//   weights 4k…4k+3      = g_k & 0x1F1F1F1F
//   weights 16+4k…16+4k+3 = ((g_k >> 3) ^ (g_4 >> 2k)) & 0x1F1F1F1F
//
// Each byte of `g_k >> 3` brings bits 3…4 of q_{4k+i} under the low two bits and the stored
// three bits under the high ones; `g_4 >> 2k` brings q_{16+4k+i}'s two bits (already xor-ed
// with bits 3…4 of q_{4k+i}) and, above them, whichever bits of g_4 follow. Those are known
// when the column is built, so the three stored bits are xor-ed with them in advance: the xor
// leaves exactly q_{16+4k+i}. The words hold the same 160 bits of weights as the block.

extension Q5_0: WordGroupFormat {
    public static var halfCount: Int { 1 }
    public static var weightOffset: Int32 { 16 }

    /// The block's words (`qh`, then the nibbles) as the column's five words (the layout
    /// above), a word at a time: the repacking of a model at load runs through here.
    public static func groupWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> {
        let nibble: UInt32 = 0x0F0F_0F0F
        var grouped = SIMD8<UInt32>()
        var low = SIMD4<UInt32>(), high = SIMD4<UInt32>()  // per k: q_{4k+i}, q_{16+4k+i} as byte i
        for k in 0..<4 {
            let n = words[1 + k]
            low[k] = n & nibble | spread(words[0] &>> UInt32(4 * k)) &<< 4
            high[k] = n &>> 4 & nibble | spread(words[0] &>> UInt32(16 + 4 * k)) &<< 4
        }
        // g_4 first: its bits are what the high bits of g_0…g_3 are xor-ed with.
        var g4: UInt32 = 0
        for k in 0..<4 { g4 |= ((high[k] ^ low[k] &>> 3) & 0x0303_0303) &<< UInt32(2 * k) }
        for k in 0..<4 {
            let stored = (high[k] &>> 2 ^ g4 &>> UInt32(2 * k + 2)) & 0x0707_0707
            grouped[k] = low[k] | stored &<< 5
        }
        grouped[4] = g4
        return grouped
    }

    /// The column's five words back as the block's `qh` and nibbles.
    public static func blockWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> {
        let five: UInt32 = 0x1F1F_1F1F, nibble: UInt32 = 0x0F0F_0F0F
        var block = SIMD8<UInt32>()
        for k in 0..<4 {
            let low = words[k] & five, high = (words[k] &>> 3 ^ words[4] &>> UInt32(2 * k)) & five
            block[0] |= gather(low &>> 4) &<< UInt32(4 * k) | gather(high &>> 4) &<< UInt32(16 + 4 * k)
            block[1 + k] = low & nibble | (high & nibble) &<< 4
        }
        return block
    }

    /// Bits 0…3 of `bits` as bit 0 of bytes 0…3 (each bit times 2^7i lands alone at 8i).
    @inline(__always)
    static func spread(_ bits: UInt32) -> UInt32 { (bits & 0xF) &* 0x0020_4081 & 0x0101_0101 }

    /// Bit 0 of bytes 0…3 as bits 0…3 (the inverse of ``spread(_:)``).
    @inline(__always)
    static func gather(_ bytes: UInt32) -> UInt32 { ((bytes & 0x0101_0101) &* 0x0102_0408) &>> 24 }

    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] {
        fiveBitWeights(block, qhOffset: qhOffset, qsOffset: qsOffset)
    }
}

#if POCKET_X86_KERNELS
extension Q5_0.X86: GroupColumnKernel {
    public typealias Format = Q5_0

    @inline(__always)
    static func columnWeights<Lanes>(_ words: UnsafeRawPointer, as lanes: Lanes.Type) -> GroupWeights<Lanes> {
        let g0 = words.loadUnaligned(as: Lanes.self)
        let g1 = words.loadUnaligned(fromByteOffset: 64, as: Lanes.self)
        let g2 = words.loadUnaligned(fromByteOffset: 128, as: Lanes.self)
        let g3 = words.loadUnaligned(fromByteOffset: 192, as: Lanes.self)
        let g4 = words.loadUnaligned(fromByteOffset: 256, as: Lanes.self)
        let five = Lanes(repeating: 0x1F1F_1F1F)
        return GroupWeights(
            w0: g0 & five, w1: g1 & five, w2: g2 & five, w3: g3 & five,
            w4: (g0 &>> 3 ^ g4) & five, w5: (g1 &>> 3 ^ g4 &>> 2) & five,
            w6: (g2 &>> 3 ^ g4 &>> 4) & five, w7: (g3 &>> 3 ^ g4 &>> 6) & five)
    }
}
#endif
