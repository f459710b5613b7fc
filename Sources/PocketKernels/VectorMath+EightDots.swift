// Eight attention scores at once: one query against eight consecutive key rows.
//
// Each score is ``VectorMath/dot(_:_:count:)-(_,UnsafePointer<Float16>,_)`` bit for bit. Its
// last steps (eight lanes to four, then two pairs) are a chain of dependent shuffles and adds per
// score; here they are done for eight scores together, lanes transposed as they go, so that each
// instruction finishes a step for several scores and the result is one vector of eight scores.

#if POCKET_256BIT_VECTORS
import _Builtin_intrinsics.intel
#endif

extension VectorMath {
    /// `dot(a, b + j · stride, count: count)` for `j` in `0..<8`, bit for bit, for `count` a
    /// multiple of 64.
    @inline(__always)
    public static func eightDots(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float16>, stride: Int, count: Int) -> SIMD8<Float> {
        eightScores { eightLanes(a, b + $0 &* stride, count: count) }
    }

    /// ``eightDots(_:_:stride:count:)-(_,UnsafePointer<Float16>,_,_)`` on half-precision rows
    /// already widened to single precision, bit for bit (widening is exact).
    @inline(__always)
    static func eightDots(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, stride: Int, count: Int) -> SIMD8<Float> {
        eightScores { eightLanes(a, b + $0 &* stride, count: count) }
    }

    /// `reduced(lanes(j))` for `j` in `0..<8`, bit for bit.
    @inline(__always)
    static func eightScores(_ lanes: (Int) -> SIMD8<Float>) -> SIMD8<Float> {
        #if POCKET_256BIT_VECTORS
        // Step 1, per pair of scores: each one's eight lanes halved to four ([four_j | four_k]).
        @inline(__always) func halved(_ j: Int) -> __m256 {
            let e = lanes(j), f = lanes(j + 1)
            return unsafeBitCast(SIMD8(lowHalf: e.lowHalf + e.highHalf, highHalf: f.lowHalf + f.highHalf), to: __m256.self)
        }
        // Step 2, per two pairs: lanes 0 + 2 and 1 + 3 of each score's four, side by side.
        @inline(__always) func paired(_ x: __m256, _ y: __m256) -> __m256 {
            let (xd, yd) = (_mm256_castps_pd(x), _mm256_castps_pd(y))
            return _mm256_add_ps(_mm256_castpd_ps(_mm256_unpacklo_pd(xd, yd)), _mm256_castpd_ps(_mm256_unpackhi_pd(xd, yd)))
        }
        let first = paired(halved(0), halved(2)), second = paired(halved(4), halved(6))
        // Step 3: the two halves of each pair added; the scores come out as 0, 2, 4, 6, 1, 3, 5, 7.
        let scores = _mm256_hadd_ps(first, second)
        let order = unsafeBitCast(SIMD8<Int32>(0, 4, 1, 5, 2, 6, 3, 7), to: __m256i.self)
        return unsafeBitCast(_mm256_permutevar8x32_ps(scores, order), to: SIMD8<Float>.self)
        #else
        return reducedTogether(lanes)
        #endif
    }

    /// `reduced(lanes(j))` for `j` in `0..<8` with 128-bit steps, four scores per instruction,
    /// bit for bit (each score's sums in ``reduced(_:)``'s order). Setting the scores one lane at
    /// a time instead went through memory: a stall on every score.
    @inline(__always)
    static func reducedTogether(_ lanes: (Int) -> SIMD8<Float>) -> SIMD8<Float> {
        @inline(__always) func four(_ j: Int) -> SIMD4<Float> {
            let e = lanes(j)
            return e.lowHalf + e.highHalf
        }
        // Lanes 0 + 2 and 1 + 3 of two scores' fours, side by side.
        @inline(__always) func paired(_ x: SIMD4<Float>, _ y: SIMD4<Float>) -> SIMD4<Float> {
            SIMD4(x[0], x[1], y[0], y[1]) + SIMD4(x[2], x[3], y[2], y[3])
        }
        // The two halves of each of four scores added: the scores in order.
        @inline(__always) func finished(_ p: SIMD4<Float>, _ q: SIMD4<Float>) -> SIMD4<Float> {
            SIMD4(p[0], p[2], q[0], q[2]) + SIMD4(p[1], p[3], q[1], q[3])
        }
        return SIMD8(lowHalf: finished(paired(four(0), four(1)), paired(four(2), four(3))),
                     highHalf: finished(paired(four(4), four(5)), paired(four(6), four(7))))
    }
}
