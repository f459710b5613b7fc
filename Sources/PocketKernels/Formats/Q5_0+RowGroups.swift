// Q5_0 in row groups (``RowGroups``): word 0 is the fifth bits `qh`, rearranged so that the
// fifth bits of weights 4j…4j+3 are bit j of its four bytes; words 1…4 are the nibbles `qs`.
// The AVX-512 kernel then puts the fifth bits of weight vector j in place with one shift and
// one mask.

extension Q5_0: WordGroupFormat {
    public static var halfCount: Int { 1 }
    public static var weightOffset: Int32 { 16 }

    /// Word 0 (`qh`): bit 4j + i of the block's word (weight 4j + i) becomes bit 8i + j.
    public static func groupWord(_ word: UInt32, at index: Int) -> UInt32 {
        guard index == 0 else { return word }
        var grouped: UInt32 = 0
        for i in 0..<4 { for j in 0..<8 { grouped |= (word &>> UInt32(4 * j + i) & 1) &<< UInt32(8 * i + j) } }
        return grouped
    }

    public static func blockWord(_ word: UInt32, at index: Int) -> UInt32 {
        guard index == 0 else { return word }
        var block: UInt32 = 0
        for i in 0..<4 { for j in 0..<8 { block |= (word &>> UInt32(8 * i + j) & 1) &<< UInt32(4 * j + i) } }
        return block
    }

    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] {
        let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
        return nibbles(block, at: qsOffset).enumerated().map { i, q in q | UInt8(qh &>> UInt32(i) & 1) &<< 4 }
    }
}

#if POCKET_X86_KERNELS
extension Q5_0.X86: GroupColumnKernel {
    public typealias Format = Q5_0

    @inline(__always)
    static func columnWeights<Lanes>(_ words: UnsafeRawPointer, as lanes: Lanes.Type) -> GroupWeights<Lanes> {
        let qh = words.loadUnaligned(as: Lanes.self)
        let n0 = GroupWeights<Lanes>.nibbles(words.loadUnaligned(fromByteOffset: 64, as: Lanes.self))
        let n1 = GroupWeights<Lanes>.nibbles(words.loadUnaligned(fromByteOffset: 128, as: Lanes.self))
        let n2 = GroupWeights<Lanes>.nibbles(words.loadUnaligned(fromByteOffset: 192, as: Lanes.self))
        let n3 = GroupWeights<Lanes>.nibbles(words.loadUnaligned(fromByteOffset: 256, as: Lanes.self))
        let bit = Lanes(repeating: 0x1010_1010)
        return GroupWeights(
            w0: n0.low | qh &<< 4 & bit, w1: n1.low | qh &<< 3 & bit,
            w2: n2.low | qh &<< 2 & bit, w3: n3.low | qh &<< 1 & bit,
            w4: n0.high | qh & bit, w5: n1.high | qh &>> 1 & bit,
            w6: n2.high | qh &>> 2 & bit, w7: n3.high | qh &>> 3 & bit)
    }
}
#endif
