/// The scale search the IQ3 encoders share: a float scale per sub-block of 32, then one fp16
/// factor `d` and a 4-bit level per sub-block, each chosen by the exact error of the points
/// ``GridPointSearch`` re-chooses at the decoder's scale. A format says how its levels map to
/// scales and how a sub-block's points cost (IQ3_XXS handles sign parity there); the search
/// is the same.
protocol GridScaleSearch: BlockFormat {
    /// The format's codebook.
    static var magnitudeGrid: MagnitudeGrid { get }
    /// Encodes one super-block of 256 weights `x` with importances `w` into `block`.
    static func encode(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ grid: UnsafePointer<Float>, _ scratch: GridScratch,
        into block: UnsafeMutableRawPointer)
    /// The largest magnitude of the codebook (a sub-block's largest weight lands near it).
    static var largestMagnitude: Float { get }
    /// The scale the decoder computes from `d` and a 4-bit level, in its float32 operations.
    static func decodedScale(_ d: Float, level: Int32) -> Float
    /// The level (0…15) whose decoded scale is nearest `fit` under `d` (0 when `d` is 0).
    static func nearestLevel(_ fit: Float, _ d: Float) -> Int32
    /// The error (less Σ w·x²) of sub-block `ib` at scale `a` with its best points, and the
    /// sums Σ L, Σ Q at those points for a least-squares refit; with `store`, also records
    /// the points (and whatever else the format chooses with them) in `scratch`.
    static func subBlockCost(_ ib: Int, scale a: Float, _ scratch: GridScratch, store: Bool) -> (cost: Float, linear: Float, square: Float)
}

/// Where the trial scales put a sub-block's largest weight, as fractions of the largest magnitude.
private let reaches: [Float] = [1.1, 1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6]
/// Stretches of the super-block factor tried around "largest scale maps to level 15".
private let factorStretches: [Float] = [1, 0.97, 1.03, 0.94, 1.06]

extension GridScaleSearch {
    /// Encodes `count` blocks from `source` (importance `nil`: all weights equal), one scratch
    /// space for all of them.
    static func encodeBlocks(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        let grid = magnitudeGrid
        grid.table.withUnsafeBufferPointer { table in
            GridScratch.with(points: grid.count) { scratch in
                for b in 0..<count {
                    let x = source + b * weightsPerBlock
                    let w = importance.map { $0 + b * weightsPerBlock } ?? UnsafePointer(scratch.ones)
                    encode(x, w, table.baseAddress!, scratch, into: destination + b * bytesPerBlock)
                }
            }
        }
    }

    /// Fits every sub-block of the super-block `x` (into `scratch.fits`), chooses `d` and the
    /// levels, and leaves the levels and points for them in `scratch`; returns `d`.
    @inline(__always)
    static func chooseScales(_ x: UnsafePointer<Float>, _ scratch: GridScratch) -> Float {
        var largest: Float = 0
        for ib in 0..<8 {
            scratch.fits[ib] = fitSubBlock(x + 32 * ib, ib, scratch)
            largest = Swift.max(largest, scratch.fits[ib])
        }
        // Start from the unstretched factor so that input too large for fp16 keeps its
        // (infinite) factor rather than collapsing to zero.
        let base = largest / decodedScale(1, level: 15)
        var d = KQuantScales.nonzeroHalf(base), bestCost = Float.infinity
        for stretch in factorStretches {
            let candidate = KQuantScales.nonzeroHalf(base * stretch)
            let cost = assignScales(candidate, scratch, store: false)
            if cost < bestCost {
                bestCost = cost
                d = candidate
            }
        }
        _ = assignScales(d, scratch, store: true)
        return d
    }

    /// The scale of sub-block `ib` (weights `x`) with the least error found; 0 for zeros.
    @inline(__always)
    static func fitSubBlock(_ x: UnsafePointer<Float>, _ ib: Int, _ scratch: GridScratch) -> Float {
        let largest = GridPointSearch.largestMagnitude(x, 32)
        guard largest > 0, largest.isFinite else { return largest }
        var best = largest / largestMagnitude, bestCost = Float.infinity
        for reach in reaches {
            var a = largest / (largestMagnitude * reach)
            for _ in 0..<2 {
                let trial = subBlockCost(ib, scale: a, scratch, store: false)
                if trial.cost < bestCost {
                    bestCost = trial.cost
                    best = a
                }
                let refit = trial.linear / trial.square
                guard trial.square > 0, refit > 0, refit.isFinite else { break }
                a = refit
            }
        }
        return best
    }

    /// Quantizes the sub-block fits against `d` (each to its nearest level or a neighbour, by
    /// the exact error with re-chosen points) and returns the total; with `store`, also records
    /// the levels and points.
    @inline(__always)
    static func assignScales(_ d: Float, _ scratch: GridScratch, store: Bool) -> Float {
        var total: Float = 0
        for ib in 0..<8 {
            let nearest = nearestLevel(scratch.fits[ib], d)
            var bestCost = Float.infinity, best = nearest
            for level in Swift.max(0, nearest - 1)...Swift.min(15, nearest + 1) {
                let cost = subBlockCost(ib, scale: decodedScale(d, level: level), scratch, store: false).cost
                if cost < bestCost {
                    bestCost = cost
                    best = level
                }
            }
            total += bestCost
            if store {
                scratch.levels[ib] = best
                _ = subBlockCost(ib, scale: decodedScale(d, level: best), scratch, store: true)
            }
        }
        return total
    }
}
