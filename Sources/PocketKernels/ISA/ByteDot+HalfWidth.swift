// The 512-bit members of the tiers without 512-bit vectors (AVX2, SSE2): each is its 256-bit
// member on the two halves, so it is written once here, and a tier supplies only the 256-bit
// forms (`ISA/<tier>/`).

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
extension ByteDot {
    /// ``dot(_:flipped:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dot(_ accumulator: SIMD16<Int32>, flipped: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32> {
        SIMD16(lowHalf: dot(accumulator.lowHalf, flipped: flipped.lowHalf, signed.lowHalf),
               highHalf: dot(accumulator.highHalf, flipped: flipped.highHalf, signed.highHalf))
    }

    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dot(_ accumulator: SIMD16<Int32>, _ unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32> {
        SIMD16(lowHalf: dot(accumulator.lowHalf, unsigned.lowHalf, signed.lowHalf),
               highHalf: dot(accumulator.highHalf, unsigned.highHalf, signed.highHalf))
    }

    /// ``dotHalves(_:_:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dotHalves(_ accumulator: SIMD16<Int32>, _ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<Int32> {
        SIMD16(lowHalf: dotHalves(accumulator.lowHalf, a.lowHalf, b.lowHalf),
               highHalf: dotHalves(accumulator.highHalf, a.highHalf, b.highHalf))
    }

    /// Lanes 0…7 `pair[0]`, lanes 8…15 `pair[1]`: one scale per 32-value block for a product
    /// that covers two blocks.
    @inline(__always)
    package static func spread(_ pair: SIMD2<Float>) -> SIMD16<Float> {
        SIMD16(lowHalf: SIMD8(repeating: pair[0]), highHalf: SIMD8(repeating: pair[1]))
    }

    /// The two fp16 numbers in `bits` (low half first) as floats over lanes 0…7 and 8…15.
    @inline(__always)
    package static func spreadHalves(_ bits: UInt32) -> SIMD16<Float> {
        spread(halves(bits))
    }

    /// ``shuffleBytes(_:_:)-(SIMD8<UInt32>,_)`` on 512 bits (each 128-bit lane its own table).
    @inline(__always)
    package static func shuffleBytes(_ table: SIMD16<UInt32>, _ index: SIMD16<UInt32>) -> SIMD16<UInt32> {
        SIMD16(lowHalf: shuffleBytes(table.lowHalf, index.lowHalf), highHalf: shuffleBytes(table.highHalf, index.highHalf))
    }

    /// The lanes as floats (exact below 2^24).
    @inline(__always)
    package static func floats(_ v: SIMD16<Int32>) -> SIMD16<Float> {
        SIMD16(lowHalf: floats(v.lowHalf), highHalf: floats(v.highHalf))
    }
}
#endif
