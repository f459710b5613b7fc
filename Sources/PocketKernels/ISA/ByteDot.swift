// The byte dot-product primitives the `X86` kernels are written in (`Formats/<F>+X86.swift`).
//
// One interface (``ByteDotInstructions``), one implementation per instruction-set tier chosen
// at build time by Package.swift, each in its own folder: AVX-512 VNNI (`AVX512/`, one
// instruction per primitive), AVX2 (`AVX2/`) and SSE2 (`SSE2/`, the baseline every x86-64 CPU
// has), the same results bit for bit. The kernels therefore exist once, and the tests that hold
// them bit-exact to their scalar references run on whichever tier is compiled. The members here
// are shared: the fp16 conversions where the target has F16C (SSE2 converts with integers), a
// sum, and the offset weights' choice of product.

#if POCKET_X86_KERNELS
import _Builtin_intrinsics.intel

/// The instructions the `X86` kernels are written in: byte and 16-bit dot products, fp16
/// conversions and byte shuffles on Swift SIMD values, from the toolchain's
/// `_Builtin_intrinsics.intel` (AVX-512 VNNI, AVX2 or SSE2, chosen at build time; the members
/// are listed in ``ByteDotInstructions``).
package enum ByteDot {
    #if POCKET_F16C
    /// The two fp16 numbers at `pointer + offset` (e.g. a block's scale and minimum) as
    /// floats, with the CPU's conversion instruction (`vcvtph2ps`): exact, like
    /// ``IntegerLanes/half(_:_:)``, in two instructions instead of a dozen.
    @inline(__always)
    package static func halves(_ pointer: UnsafeRawPointer, _ offset: Int) -> SIMD2<Float> {
        let bits = pointer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        return _mm_cvtph_ps(_mm_cvtsi32_si128(bits)).lowHalf
    }

    /// The fp16 number at `pointer + offset` as a float (see ``halves(_:_:)``).
    @inline(__always)
    package static func half(_ pointer: UnsafeRawPointer, _ offset: Int) -> Float {
        let bits = Int32(pointer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        return _mm_cvtph_ps(_mm_cvtsi32_si128(bits))[0]
    }

    /// The two fp16 numbers in `bits` (low half first) as floats (`vcvtph2ps`, exact).
    @inline(__always)
    package static func halves(_ bits: UInt32) -> SIMD2<Float> {
        _mm_cvtph_ps(_mm_cvtsi32_si128(Int32(bitPattern: bits))).lowHalf
    }
    #endif

    /// The sum of the lanes, halving the vector each step (the standard library's `sum()` is
    /// a call that adds one lane at a time: measured at 7% of a decode).
    @inline(__always)
    package static func sum(_ v: SIMD16<Float>) -> Float {
        let eight = v.lowHalf + v.highHalf
        let four = eight.lowHalf + eight.highHalf
        return (four[0] + four[2]) + (four[1] + four[3])
    }

    /// ``dot(_:_:_:)-(SIMD16<Int32>,_,_)`` for weights stored as the signed ones plus
    /// `2^offsetShift` (Q4_0: 8, Q5_0: 16, Q8_0: 128): the small product when every weight
    /// stays below 128. `offsetShift` is a constant of the calling kernel, so the choice folds
    /// away.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, offsetWeights weights: SIMD16<UInt32>, offsetShift: Int32, _ signed: SIMD16<UInt32>
    ) -> SIMD16<Int32> {
        offsetShift < 7 ? dot(accumulator, small: weights, signed) : dot(accumulator, weights, signed)
    }

    /// ``ByteDotInstructions/transposeWords(_:into:)`` one word at a time: the tiers without
    /// 512-bit shuffles.
    @inline(__always)
    static func transposeWordsOneByOne(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer) {
        for j in 0..<16 {
            for i in 0..<16 {
                destination.storeBytes(of: source.load(fromByteOffset: 64 &* i &+ 4 &* j, as: UInt32.self),
                                       toByteOffset: 64 &* j &+ 4 &* i, as: UInt32.self)
            }
        }
    }

    /// ``dot(_:offsetWeights:offsetShift:_:)-(SIMD16<Int32>,_,_,_)`` on 256 bits.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD8<Int32>, offsetWeights weights: SIMD8<UInt32>, offsetShift: Int32, _ signed: SIMD8<UInt32>
    ) -> SIMD8<Int32> {
        offsetShift < 7 ? dot(accumulator, small: weights, signed) : dot(accumulator, weights, signed)
    }
}
#endif
