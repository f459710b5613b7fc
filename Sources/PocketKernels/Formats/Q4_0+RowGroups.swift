// Q4_0 in row groups (``RowGroups``): the four words of nibbles `qs` as they are; word k
// holds weights 4k…4k+3 in its low nibbles and 16+4k…16+4k+3 in its high ones.

extension Q4_0: WordGroupFormat {
    public static var halfCount: Int { 1 }
    public static var weightOffset: Int32 { 8 }

    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] { nibbles(block, at: qsOffset) }
}

#if POCKET_X86_KERNELS
extension Q4_0.X86: GroupColumnKernel {
    public typealias Format = Q4_0

    @inline(__always)
    static func columnWeights<Lanes>(_ words: UnsafeRawPointer, as lanes: Lanes.Type) -> GroupWeights<Lanes> {
        GroupWeights<Lanes>.fourBit(words)
    }
}
#endif
