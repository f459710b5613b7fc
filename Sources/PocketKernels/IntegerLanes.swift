// Lane helpers shared by the integer dot kernels of the 32-weight and k-quant formats.
//
// The kernels work on sixteen 32-bit lanes (one AVX-512 register): 16 bytes of packed weights
// are loaded as four 32-bit lanes and repeated over sixteen, then lane 4k+m is shifted right by
// 8k (``byteShifts``) so that its low byte is byte 4m+k of the 16, i.e. weight 4m+k of a half
// block: exactly the position that ``Q8Activations`` stores element 4m+k in (lane order). Only
// shifts, masks, wrapping adds and multiplies on 16-lane vectors appear in the inner loops; each
// compiles to one AVX-512 instruction (8-bit lanes and cross-width conversions do not, see
// docs/kernels.md).

/// Helpers for kernels that unpack packed weights into 16 lane-ordered 32-bit lanes.
package enum IntegerLanes {
    /// Per-lane shifts that bring byte `k` of repeated lane `m` into lane `4k + m`.
    ///
    ///
    /// Kernels copy it into a local before their loops. Read inside a loop, the lazily
    /// initialized global's `swift_once` check makes the compiler spill every vector register;
    /// written as a literal, the compiler splits each per-lane shift into uniform shifts of
    /// 128-bit pieces and inserts, several times slower.
    package static let byteShifts = SIMD16<UInt32>(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24)

    /// Sixteen bytes at `pointer + offset`, as four 32-bit lanes repeated over sixteen.
    @inline(__always)
    package static func repeated(_ pointer: UnsafeRawPointer, _ offset: Int) -> SIMD16<UInt32> {
        repeated(pointer.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self))
    }

    /// Four 32-bit lanes repeated over sixteen.
    @inline(__always)
    package static func repeated(_ lanes: SIMD4<UInt32>) -> SIMD16<UInt32> {
        let eight = SIMD8(lowHalf: lanes, highHalf: lanes)
        return SIMD16(lowHalf: eight, highHalf: eight)
    }

    /// The signed integers in `bits` (two's complement, each of magnitude below 2^22) as
    /// floats, exactly.
    ///
    /// Adding the integer to the bit pattern of 1.5·2^23 gives the float 1.5·2^23 plus the
    /// integer; subtracting 1.5·2^23 leaves the integer. Swift's generic integer-to-float
    /// vector conversion is a library call per vector; this is two instructions.
    @inline(__always)
    package static func exactFloats(_ bits: SIMD16<UInt32>) -> SIMD16<Float> {
        unsafeBitCast(bits &+ 0x4B40_0000, to: SIMD16<Float>.self) - 12_582_912
    }

    /// ``exactFloats(_:)-(SIMD16<UInt32>)`` for signed lanes.
    @inline(__always)
    package static func exactFloats(_ integers: SIMD16<Int32>) -> SIMD16<Float> {
        exactFloats(unsafeBitCast(integers, to: SIMD16<UInt32>.self))
    }

    /// ``exactFloats(_:)-(SIMD16<UInt32>)`` for eight lanes.
    @inline(__always)
    package static func exactFloats(_ integers: SIMD8<Int32>) -> SIMD8<Float> {
        unsafeBitCast(integers &+ 0x4B40_0000, to: SIMD8<Float>.self) - 12_582_912
    }

    /// Sums adjacent pairs of 16-bit lanes into 32-bit lanes (each pair's sum must fit in 16
    /// bits). Adding the low half shifted up to the whole lane leaves `high + low` in the upper
    /// 16 bits; an arithmetic shift brings it down with its sign. Followed by a multiplication,
    /// the compiler turns this into `vpmaddwd`/`vpdpwssd` where the CPU has them.
    @inline(__always)
    package static func pairSums(_ v: SIMD32<Int16>) -> SIMD16<Int32> {
        let u = unsafeBitCast(v, to: SIMD16<Int32>.self)
        return (u &+ (u &<< 16)) &>> 16
    }

    /// The fp16 number at `pointer + offset` as a float, exactly (NaN payloads aside).
    ///
    /// Converted with integer moves and one multiply, not `Float(Float16)`: that compiles to an
    /// insert into whatever vector register the compiler picks, often the loop's accumulator,
    /// which chains each block's scale behind the previous block's multiply-add (measured:
    /// Q4_0 at 15 instead of 25 G weights/s). Moving the half's exponent and mantissa into a
    /// float's fields gives 2^-112 times its value, normal or subnormal; infinities and NaNs
    /// take the other branch.
    @inline(__always)
    package static func half(_ pointer: UnsafeRawPointer, _ offset: Int) -> Float {
        let h = UInt32(pointer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        let magnitude = h & 0x7FFF
        let bits = (h & 0x8000) << 16 | magnitude << 13
        if magnitude >= 0x7C00 { return Float(bitPattern: bits | 0x7F80_0000) }
        return Float(bitPattern: bits) * 0x1p112
    }

    /// The sixteen activation values of half block `half` of the block at `values` (a
    /// lane-ordered block of 32), as unsigned lanes: wrapping products of unsigned lanes have
    /// the same bits as signed ones.
    @inline(__always)
    package static func activations(_ values: UnsafeRawPointer, _ half: Int) -> SIMD16<UInt32> {
        values.loadUnaligned(fromByteOffset: 64 * half, as: SIMD16<UInt32>.self)
    }
}
