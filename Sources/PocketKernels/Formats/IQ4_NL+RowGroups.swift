// IQ4_NL in row groups (``RowGroups``): the four words of nibbles `qs` as they are, like Q4_0's
// (word k holds weights 4k…4k+3 in its low nibbles and 16+4k…16+4k+3 in its high ones). The
// kernel unpacks the nibbles as Q4_0's and looks each up in the codebook plus 128 (1…241) with
// a byte shuffle, as the row kernel does (`IQ4_NL+X86.swift`): unsigned bytes exceeding the
// signed codebook values by 128, so the shared loops treat the column as Q8_0's (offsetShift 7):
// - AVX-512: one `vpdpbusd` per weight vector, the block started from −128·Σx;
// - AVX2, and SSE2's half-width loops: the "flipped" signed product, |w|·(x with w's sign), no
//   offset; its bound (no activation byte −128) holds for ``Q8Activations``' ±127;
// - SSE2's one-vector loop: the full unsigned product with the offset.
// The codebook's 128 + c is c with its top bit flipped, which is what the flipped product reads.
// SSE2 cannot widen these columns once for many vectors (`WidenedColumns+SSE2.swift` needs
// weights below 128), so it runs Q8_0's half-width loops.

extension IQ4_NL: WordGroupFormat {
    public static var halfCount: Int { 1 }
    public static var weightOffset: Int32 { 128 }

    /// The codebook values plus 128, in weight order.
    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] {
        nibbles(block, at: qsOffset).map { UInt8(bitPattern: codebook[Int($0)]) ^ 0x80 }
    }
}

#if POCKET_X86_KERNELS
extension IQ4_NL.X86: GroupColumnKernel {
    public typealias Format = IQ4_NL

    @inline(__always)
    static func columnWeights<Lanes>(_ words: UnsafeRawPointer, as lanes: Lanes.Type) -> GroupWeights<Lanes> {
        GroupWeights<Lanes>.fourBit(words).lookedUp(in: table)
    }
}

extension GroupWeights {
    /// Every byte `q` (below 16) replaced by byte `q` of `table`, whose 16-byte lanes are all
    /// the same (`vpshufb`): a 4-bit codebook lookup.
    @inline(__always)
    func lookedUp(in table: SIMD16<UInt32>) -> GroupWeights {
        // `Lanes` is one of two concrete types; the check folds away once specialized.
        @inline(__always) func look(_ v: Lanes) -> Lanes {
            if Lanes.scalarCount == 16 {
                return unsafeBitCast(ByteDot.shuffleBytes(table, unsafeBitCast(v, to: SIMD16<UInt32>.self)), to: Lanes.self)
            }
            let half = unsafeBitCast(v, to: SIMD8<UInt32>.self)
            #if POCKET_512BIT_VECTORS
            let looked = ByteDot.shuffleBytes(table, SIMD16(lowHalf: half, highHalf: half)).lowHalf
            #else
            let looked = ByteDot.shuffleBytes(table.lowHalf, half)
            #endif
            return unsafeBitCast(looked, to: Lanes.self)
        }
        return GroupWeights(w0: look(w0), w1: look(w1), w2: look(w2), w3: look(w3),
                            w4: look(w4), w5: look(w5), w6: look(w6), w7: look(w7))
    }
}
#endif
