// IQ3_S encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Every group of 4 weights gets its sums L_p, Q_p over all 512 points of the codebook
//    (``GridPointSearch``); every weight keeps its own sign (one sign bit each).
// 2. Each sub-block of 32 searches its scale a: trial scales put its largest weight at
//    0.6…1.1 × 15 (the largest magnitude); for each, every group takes its best point and a is
//    refitted by least squares to those points (a = Σ L / Σ Q) and tried again. The scale with
//    the least error wins.
// 3. The sub-block scales are quantized against one fp16 factor: a = d·(1 + 2·ls) with
//    ls ∈ 0…15, the largest scale mapping to ls = 15; the factor is also tried 3 % and 6 %
//    smaller and larger, each sub-block its rounded ls and ls ± 1, and the exact error with the
//    points re-chosen for the decoder's scale picks.
// 4. With d and the ls fixed, the points are chosen once more for the final scales and stored.
//
// With importance weights (``ImportanceWeightedFormat``) every sum is weighted per weight.

extension IQ3_S: ImportanceWeightedFormat, GridScaleSearch {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (26, 26)  // llama_ftype IQ3_S

    static var largestMagnitude: Float { 15 }

    @inline(__always)
    static func decodedScale(_ d: Float, level: Int32) -> Float { d * Float(1 + 2 * level) }

    @inline(__always)
    static func nearestLevel(_ fit: Float, _ d: Float) -> Int32 { roundedClamped((fit * (d > 0 ? 1 / d : 0) - 1) * 0.5, 0, 15) }

    static var magnitudeGrid: MagnitudeGrid { .iq3s }

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
                                    linear: scratch.linear(g), square: scratch.square(g), flipped: nil)
        }
        let d = chooseScales(x, scratch)

        block.storeHalf(d, at: dOffset)
        for ib in 0..<8 {
            var high: UInt8 = 0
            for j in 0..<8 {
                let p = scratch.points[8 * ib + j]
                block.storeByte(UInt8(truncatingIfNeeded: p), at: qsOffset + 8 * ib + j)
                high |= UInt8(truncatingIfNeeded: p >> 8 & 1) << UInt8(j)
            }
            block.storeByte(high, at: qhOffset + ib)
            for l in 0..<4 {
                var bits: UInt8 = 0
                for i in 0..<8 where x[32 * ib + 8 * l + i] < 0 { bits |= 1 << UInt8(i) }
                block.storeByte(bits, at: signsOffset + 4 * ib + l)
            }
        }
        for k in 0..<4 {
            block.storeByte(UInt8(scratch.levels[2 * k]) | UInt8(scratch.levels[2 * k + 1]) << 4, at: scalesOffset + k)
        }
    }

    /// The error (less Σ w·x²) of sub-block `ib` at scale `a` with the best points, and the
    /// sums Σ L, Σ Q at those points for a least-squares refit; with `store`, also records the
    /// points in `scratch`.
    @inline(__always)
    static func subBlockCost(_ ib: Int, scale a: Float, _ scratch: GridScratch, store: Bool) -> (cost: Float, linear: Float, square: Float) {
        let n = scratch.count
        var cost: Float = 0, linear: Float = 0, square: Float = 0
        for g in 8 * ib..<8 * ib + 8 {
            let best = GridPointSearch.best(scale: a, linear: scratch.linear(g), square: scratch.square(g), count: n)
            cost += best.cost
            linear += scratch.linear(g)[Int(best.index)]
            square += scratch.square(g)[Int(best.index)]
            if store { scratch.points[g] = best.index }
        }
        return (cost, linear, square)
    }
}
