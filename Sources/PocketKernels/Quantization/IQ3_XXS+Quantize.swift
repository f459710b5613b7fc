// IQ3_XXS encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Every group of 4 weights gets its sums L_p, Q_p (and the parity-flipped L_p) over all 256
//    points of the codebook (``GridPointSearch``).
// 2. Each sub-block of 32 searches its scale a: trial scales put its largest weight at
//    0.6…1.1 × 62 (the largest magnitude); for each, every group takes its best point, with the
//    sign parity handled exactly (below), and a is refitted by least squares to those points
//    (a = Σ L / Σ Q) and tried again. The scale with the least error wins.
// 3. The sub-block scales are quantized against one fp16 factor: a = d·(ls + ½)/2 with
//    ls ∈ 0…15, the largest scale mapping to ls = 15; the factor is also tried 3 % and 6 %
//    smaller and larger, each sub-block its rounded ls and ls ± 1, and the exact error with the
//    points re-chosen for the decoder's scale picks.
// 4. With d and the ls fixed, the points and sign flips are chosen once more for the final
//    scales and stored.
//
// Parity: each 8 weights' signs must have an even number of minus signs (the eighth sign is
// implied). When the weights' own signs are odd, exactly one of the 8 must be flipped, and
// flipping more never helps. The 8 weights are two groups; the best is either group 1 with its
// cheapest flip and group 2 as is, or the reverse, each with its own best point under the flip,
// so the choice is exact for the scale.
//
// With importance weights (``ImportanceWeightedFormat``) every sum is weighted per weight.

extension IQ3_XXS: ImportanceWeightedFormat, GridScaleSearch {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (23, 23)  // llama_ftype IQ3_XXS

    static var largestMagnitude: Float { 62 }

    @inline(__always)
    static func decodedScale(_ d: Float, level: Int32) -> Float { d * (0.5 + Float(level)) * 0.5 }

    @inline(__always)
    static func nearestLevel(_ fit: Float, _ d: Float) -> Int32 { roundedClamped(fit * (d > 0 ? 2 / d : 0) - 0.5, 0, 15) }

    static var magnitudeGrid: MagnitudeGrid { .iq3xxs }

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        encodeBlocks(source, importance: importance, blocks: count, into: destination)
    }

    /// Encodes one super-block of 256 weights.
    @inline(__always)
    static func encode(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ grid: UnsafePointer<Float>, _ scratch: GridScratch,
        into block: UnsafeMutableRawPointer
    ) {
        let n = scratch.count
        for g in 0..<64 {
            GridPointSearch.prepare(x + 4 * g, w + 4 * g, grid: grid, count: n,
                                    linear: scratch.linear(g), square: scratch.square(g), flipped: scratch.flipped(g))
        }
        for h in 0..<32 {
            var bits: UInt8 = 0
            for i in 0..<8 where x[8 * h + i] < 0 { bits |= 1 << UInt8(i) }
            scratch.signs[h] = bits
        }
        let d = chooseScales(x, scratch)

        block.storeHalf(d, at: dOffset)
        for g in 0..<64 { block.storeByte(UInt8(truncatingIfNeeded: scratch.points[g]), at: qsOffset + g) }
        for ib in 0..<8 {
            var word = UInt32(scratch.levels[ib]) << 28
            for h in 0..<4 {
                var bits = scratch.signs[4 * ib + h]
                for half in 0..<2 where scratch.flips[8 * ib + 2 * h + half] != 0 {
                    let g = 8 * ib + 2 * h + half
                    bits ^= 1 << UInt8(4 * half + cheapestFlip(x + 4 * g, w + 4 * g, grid, n, Int(scratch.points[g])))
                }
                word |= UInt32(bits & 0x7F) << UInt32(7 * h)
            }
            block.storeBytes(of: word.littleEndian, toByteOffset: signsOffset + 4 * ib, as: UInt32.self)
        }
    }

    /// The weight (0..<4) of a group whose sign flip costs least at point `p`: the least
    /// w·|x|·m, the lowest on ties (the term ``GridPointSearch/prepare`` subtracted).
    @inline(__always)
    static func cheapestFlip(_ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ grid: UnsafePointer<Float>, _ n: Int, _ p: Int) -> Int {
        var best = 0, least = Float.infinity
        for k in 0..<4 {
            let term = w[k] * abs(x[k]) * grid[k * n + p]
            if term < least {
                least = term
                best = k
            }
        }
        return best
    }

    /// The error (less Σ w·x²) of sub-block `ib` at scale `a` with the best points and exact
    /// parity, and the sums Σ L, Σ Q at those points for a least-squares refit; with `store`,
    /// also records the points and flips in `scratch`.
    @inline(__always)
    static func subBlockCost(_ ib: Int, scale a: Float, _ scratch: GridScratch, store: Bool) -> (cost: Float, linear: Float, square: Float) {
        let n = scratch.count
        var cost: Float = 0, linear: Float = 0, square: Float = 0
        for h in 0..<4 {
            let g1 = 8 * ib + 2 * h, g2 = g1 + 1
            let plain1 = GridPointSearch.best(scale: a, linear: scratch.linear(g1), square: scratch.square(g1), count: n)
            let plain2 = GridPointSearch.best(scale: a, linear: scratch.linear(g2), square: scratch.square(g2), count: n)
            var p1 = plain1.index, p2 = plain2.index, flip1 = false, flip2 = false
            var c = plain1.cost + plain2.cost
            if scratch.signs[4 * ib + h].nonzeroBitCount & 1 == 1 {
                let flipped1 = GridPointSearch.best(scale: a, linear: scratch.flipped(g1), square: scratch.square(g1), count: n)
                let flipped2 = GridPointSearch.best(scale: a, linear: scratch.flipped(g2), square: scratch.square(g2), count: n)
                if flipped1.cost + plain2.cost <= plain1.cost + flipped2.cost {
                    p1 = flipped1.index; flip1 = true
                    c = flipped1.cost + plain2.cost
                } else {
                    p2 = flipped2.index; flip2 = true
                    c = plain1.cost + flipped2.cost
                }
            }
            cost += c
            linear += (flip1 ? scratch.flipped(g1) : scratch.linear(g1))[Int(p1)]
                + (flip2 ? scratch.flipped(g2) : scratch.linear(g2))[Int(p2)]
            square += scratch.square(g1)[Int(p1)] + scratch.square(g2)[Int(p2)]
            if store {
                scratch.points[g1] = p1; scratch.points[g2] = p2
                scratch.flips[g1] = flip1 ? 1 : 0; scratch.flips[g2] = flip2 ? 1 : 0
            }
        }
        return (cost, linear, square)
    }
}
