// The shared inner step of the integer kernels that multiply 32-weight activation blocks on
// sixteen 32-bit lanes (Q4_0, Q5_0, Q3_K, Q4_K, Q5_K, Q6_K): each format only unpacks its
// weights into lane order; the multiply with the activations, the exact conversion to floats
// and the scaled accumulation are the same for all of them, in `dot` and in `dot4`.

extension IntegerLanes {
    /// One activation block (at `x`) times its 32 lane-ordered weights (`low`: weights 0…15,
    /// `high`: 16…31), summed into sixteen lanes and converted to floats exactly.
    @inline(__always)
    package static func blockProducts(_ low: SIMD16<UInt32>, _ high: SIMD16<UInt32>, _ x: UnsafeRawPointer) -> SIMD16<Float> {
        exactFloats(low &* activations(x, 0) &+ high &* activations(x, 1))
    }
}

/// The accumulators of a `dot4`: one set of sixteen float lanes per activation vector. Each
/// block's weights, unpacked once by the caller, are multiplied with all four vectors; each
/// vector gets exactly the operations of a single `dot`, so results are bit-identical to it.
package struct FourProducts {
    private var p0 = SIMD16<Float>(), p1 = SIMD16<Float>(), p2 = SIMD16<Float>(), p3 = SIMD16<Float>()
    private let v0, v1, v2, v3: UnsafeRawPointer
    private let s0, s1, s2, s3: UnsafePointer<Float>

    @inline(__always)
    package init(_ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector)) {
        v0 = UnsafeRawPointer(x.0.values); v1 = UnsafeRawPointer(x.1.values)
        v2 = UnsafeRawPointer(x.2.values); v3 = UnsafeRawPointer(x.3.values)
        s0 = x.0.scales; s1 = x.1.scales; s2 = x.2.scales; s3 = x.3.scales
    }

    /// Adds activation block `b` times the weights, scaled by `d` times the block's scale.
    @inline(__always)
    package mutating func add(_ low: SIMD16<UInt32>, _ high: SIMD16<UInt32>, block b: Int, scale d: Float) {
        p0.multiplyAdd(IntegerLanes.blockProducts(low, high, v0 + 128 * b), SIMD16(repeating: d * s0[b]))
        p1.multiplyAdd(IntegerLanes.blockProducts(low, high, v1 + 128 * b), SIMD16(repeating: d * s1[b]))
        p2.multiplyAdd(IntegerLanes.blockProducts(low, high, v2 + 128 * b), SIMD16(repeating: d * s2[b]))
        p3.multiplyAdd(IntegerLanes.blockProducts(low, high, v3 + 128 * b), SIMD16(repeating: d * s3[b]))
    }

    /// The four sums of lanes.
    @inline(__always)
    package var sums: SIMD4<Float> { SIMD4(p0.sum(), p1.sum(), p2.sum(), p3.sum()) }
}
