// Exhaustive point search on the IQ3 lattice codebooks (IQ3_XXS's 256 points, IQ3_S's 512).
//
// A group of 4 weights x with importances w is decoded as a·m_p·sign, with a ≥ 0 the
// sub-block's scale, m_p the magnitudes of codebook point p and the signs stored separately.
// With each sign equal to the weight's own sign (the best choice), the error of point p is
//
//   Σ w·(|x| − a·m_p)² = Σ w·x² − 2a·L_p + a²·Q_p,   L_p = Σ w·|x|·m_p,   Q_p = Σ w·m_p²
//
// L_p and Q_p do not depend on a, so they are computed once per group (``prepare``) and every
// trial scale costs one multiply-add per point (``best``): all points are scanned, 16 at a
// time, with no neighbour lists and no misses. When one weight's sign must be flipped (IQ3_XXS's
// parity), flipping weight k of point p adds 4a·w_k·|x_k|·m_pk, so the cheapest flip is the k
// with the least w·|x|·m and the flipped error is the same form with L_p replaced by
// L_p − 2·min_k w_k·|x_k|·m_pk.
//
// Everything is float32 in a fixed order; nothing allocates.

/// A 4-dimensional magnitude codebook laid out for SIMD search: component k of point p at
/// `k * count + p`, its square at `(4 + k) * count + p`.
struct MagnitudeGrid: Sendable {
    /// The 8 component planes.
    let table: [Float]
    /// Number of points, a multiple of 16.
    let count: Int

    /// The planes of `points`, each packing 4 magnitudes in its bytes (component k in bits
    /// 8k…8k+7, ggml's grid layout).
    init(_ points: [UInt32]) {
        count = points.count
        var table = [Float](repeating: 0, count: 8 * points.count)
        for (p, point) in points.enumerated() {
            for k in 0..<4 {
                let m = Float(point >> UInt32(8 * k) & 0xFF)
                table[k * points.count + p] = m
                table[(4 + k) * points.count + p] = m * m
            }
        }
        self.table = table
    }

    /// IQ3_XXS's codebook.
    static let iq3xxs = MagnitudeGrid(IQGrids.iq3xxs)
    /// IQ3_S's codebook.
    static let iq3s = MagnitudeGrid(IQGrids.iq3s)
}

/// The per-group sums and the scan over every point of a ``MagnitudeGrid``.
enum GridPointSearch {
    /// 16 floats from `p` (no alignment needed).
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    /// Fills `linear[p]` = L_p, `square[p]` = Q_p and, when given, `flipped[p]` =
    /// L_p − 2·min_k w_k·|x_k|·m_pk for every point of the grid.
    ///
    /// - Parameters:
    ///   - x: 4 weights.
    ///   - w: Their importances.
    ///   - grid: The planes of a ``MagnitudeGrid``; `count` its points.
    @inline(__always)
    static func prepare(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, grid: UnsafePointer<Float>, count: Int,
        linear: UnsafeMutablePointer<Float>, square: UnsafeMutablePointer<Float>, flipped: UnsafeMutablePointer<Float>?
    ) {
        let a0 = SIMD16(repeating: w[0] * abs(x[0])), a1 = SIMD16(repeating: w[1] * abs(x[1]))
        let a2 = SIMD16(repeating: w[2] * abs(x[2])), a3 = SIMD16(repeating: w[3] * abs(x[3]))
        let w0 = SIMD16(repeating: w[0]), w1 = SIMD16(repeating: w[1])
        let w2 = SIMD16(repeating: w[2]), w3 = SIMD16(repeating: w[3])
        for v in stride(from: 0, to: count, by: 16) {
            let t0 = a0 * load(grid + v), t1 = a1 * load(grid + count + v)
            let t2 = a2 * load(grid + 2 * count + v), t3 = a3 * load(grid + 3 * count + v)
            let l = (t0 + t1) + (t2 + t3)
            let q = (w0 * load(grid + 4 * count + v) + w1 * load(grid + 5 * count + v))
                + (w2 * load(grid + 6 * count + v) + w3 * load(grid + 7 * count + v))
            UnsafeMutableRawPointer(linear + v).storeBytes(of: l, as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(square + v).storeBytes(of: q, as: SIMD16<Float>.self)
            if let flipped {
                let cheapest = pointwiseMin(pointwiseMin(t0, t1), pointwiseMin(t2, t3))
                UnsafeMutableRawPointer(flipped + v).storeBytes(of: l - 2 * cheapest, as: SIMD16<Float>.self)
            }
        }
    }

    /// The point minimizing a²·Q_p − 2a·L_p (the group's error at scale `a`, less the constant
    /// Σ w·x²) and that value; the lowest index on ties, point 0 when every value is NaN.
    @inline(__always)
    static func best(
        scale a: Float, linear: UnsafePointer<Float>, square: UnsafePointer<Float>, count: Int
    ) -> (index: Int32, cost: Float) {
        let aa = SIMD16(repeating: a * a), twoA = SIMD16(repeating: 2 * a)
        var bestCost = SIMD16<Float>(repeating: .infinity)
        var bestIndex = SIMD16<Int32>(repeating: 0)
        let lanes = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        for v in stride(from: 0, to: count, by: 16) {
            let cost = aa * load(square + v) - twoA * load(linear + v)
            let better = cost .< bestCost
            bestCost.replace(with: cost, where: better)
            bestIndex.replace(with: lanes &+ Int32(v), where: better)
        }
        let least = bestCost.min()
        bestIndex.replace(with: .max, where: bestCost .!= least)
        let index = bestIndex.min()
        return (index == .max ? 0 : index, least)
    }

    /// The largest |x| of `x[0..<count]` (NaN ignored).
    @inline(__always)
    static func largestMagnitude(_ x: UnsafePointer<Float>, _ count: Int) -> Float {
        var m: Float = 0
        for i in 0..<count where abs(x[i]) > m { m = abs(x[i]) }
        return m
    }
}

/// Scratch memory of one IQ3 encoder call, allocated once per `quantize` call: the sums of
/// every group of a super-block, the chosen points, and the sub-block fits.
struct GridScratch {
    /// Points per group's sum planes.
    let count: Int
    /// 256 importances of 1, for encoding without importance.
    let ones: UnsafeMutablePointer<Float>
    /// Per group g (0..<64): L at `3g·count`, Q at `(3g + 1)·count`, flipped L at `(3g + 2)·count`.
    let sums: UnsafeMutablePointer<Float>
    /// Float sub-block scales (8).
    let fits: UnsafeMutablePointer<Float>
    /// Chosen point of every group (64).
    let points: UnsafeMutablePointer<Int32>
    /// Quantized sub-block scales (8).
    let levels: UnsafeMutablePointer<Int32>
    /// Per group: 1 when one of its signs is flipped for parity (64).
    let flips: UnsafeMutablePointer<UInt8>
    /// Sign bits of every 8 weights, bit i set when weight i is negative (32).
    let signs: UnsafeMutablePointer<UInt8>

    @inline(__always) func linear(_ g: Int) -> UnsafeMutablePointer<Float> { sums + 3 * g * count }
    @inline(__always) func square(_ g: Int) -> UnsafeMutablePointer<Float> { sums + (3 * g + 1) * count }
    @inline(__always) func flipped(_ g: Int) -> UnsafeMutablePointer<Float> { sums + (3 * g + 2) * count }

    /// Runs `body` with scratch for a grid of `count` points (heap memory for the sums when
    /// they exceed the stack's temporary allocation, once per call either way).
    static func with<R>(points count: Int, _ body: (GridScratch) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 256 + 64 * 3 * count + 8) { floats in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64 + 8) { ints in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + 32) { bytes in
                    let f = floats.baseAddress!, i = ints.baseAddress!, b = bytes.baseAddress!
                    f.initialize(repeating: 1, count: 256)
                    return body(GridScratch(count: count, ones: f, sums: f + 256, fits: f + 256 + 64 * 3 * count,
                                            points: i, levels: i + 64, flips: b, signs: b + 64))
                }
            }
        }
    }
}
