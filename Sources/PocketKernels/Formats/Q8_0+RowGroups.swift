// Q8_0 in row groups (``RowGroups``): the eight words of weights with each byte flipped to
// unsigned (xor 0x80: q + 128) when the groups are built, so the kernel only loads them.

extension Q8_0: WordGroupFormat {
    public static var halfCount: Int { 1 }
    public static var weightOffset: Int32 { 128 }

    public static func groupWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> { words ^ 0x8080_8080 }
    public static func blockWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> { words ^ 0x8080_8080 }

    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] {
        (0..<32).map { block.byte(at: qsOffset + $0) ^ 0x80 }
    }
}

#if POCKET_X86_KERNELS
extension Q8_0.X86: GroupColumnKernel {
    public typealias Format = Q8_0

    @inline(__always)
    static func columnWeights<Lanes>(_ words: UnsafeRawPointer, as lanes: Lanes.Type) -> GroupWeights<Lanes> {
        GroupWeights.loaded(words)
    }
}
#endif
