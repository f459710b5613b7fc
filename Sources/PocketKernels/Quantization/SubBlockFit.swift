// Least-squares scale (and minimum) search for one k-quant sub-block.
//
// A k-quant sub-block of n weights is decoded either as an affine grid, x ≈ a·q − b with
// q ∈ 0…qmax, a ≥ 0 and b ≥ 0 (Q2_K, Q4_K), or as a symmetric one, x ≈ s·q with
// q ∈ qmin…qmax (Q3_K, Q6_K). The obvious grid (stretch it over the sub-block's range) wastes
// levels when a few weights are outliers. For a fixed assignment of levels q the best a and b
// are a 2×2 linear least-squares problem, and for fixed a and b the best q is rounding; the fit
// alternates the two from a fixed set of starting grids (the range grid with 0.1-level steps
// of stretch) and keeps the grid with the smallest squared error. The range grid itself is one
// of the candidates, so the fit is never worse than it (before the sub-block scales are
// themselves quantized by the caller).
//
// With importance weights w (one per weight, see ``ImportanceWeightedFormat``) every squared
// error and every least-squares sum is weighted: the fit minimizes Σ wᵢ·(xᵢ − x̂ᵢ)². Without
// weights (nil) each wᵢ is taken as exactly 1, which multiplies nothing: the unweighted fit is
// the same float operations as before weights existed, byte for byte.
//
// Everything is float32 in a fixed order, so the result depends on the input only.

/// Scale searches shared by the k-quant encoders.
enum SubBlockFit {
    /// Starting grids tried per sub-block: stretches −0.5, −0.4, …, +1.5 levels around the range.
    static let stretches: [Float] = (0...20).map { Float($0) / 10 - 0.5 }

    /// The affine grid `x ≈ a·q − b` (q ∈ 0…`levels`, a ≥ 0, b ≥ 0) with the least squared
    /// error found from the starting grids.
    ///
    /// - Parameters:
    ///   - x: The sub-block's weights.
    ///   - count: Number of weights (16 or 32).
    ///   - levels: Largest level, `qmax` (3 for Q2_K, 15 for Q4_K).
    ///   - w: Importance of each weight, or nil for all 1.
    /// - Returns: `scale` = a and `offset` = b; both 0 for an all-zero sub-block.
    static func affine(_ x: UnsafePointer<Float>, count: Int, levels: Int32, weights w: UnsafePointer<Float>? = nil) -> (scale: Float, offset: Float) {
        var low: Float = 0, high: Float = 0  // the grid must reach 0 from below: −b ≤ 0
        for i in 0..<count {
            low = Swift.min(low, x[i])
            high = Swift.max(high, x[i])
        }
        guard high > low else { return (0, -low) }
        let qmax = Float(levels)
        var best = (scale: (high - low) / qmax, offset: -low)
        var bestError = affineError(x, count, levels, best.scale, best.offset, w)
        var n = Float(count)
        if let w {
            n = 0
            for i in 0..<count { n += w[i] }
        }
        for stretch in stretches {
            var a = (high - low) / (qmax + stretch), m = low  // x ≈ a·q + m, m = −b
            for _ in 0..<2 {
                // Assign levels for the current grid, then refit a and m to those levels.
                var sq: Float = 0, sqq: Float = 0, sx: Float = 0, sqx: Float = 0
                let inverse = 1 / a
                for i in 0..<count {
                    let wi: Float = w?[i] ?? 1
                    let q = Float(roundedClamped((x[i] - m) * inverse, 0, levels))
                    sq += wi * q; sqq += wi * q * q; sx += wi * x[i]; sqx += wi * q * x[i]
                }
                let determinant = n * sqq - sq * sq
                guard determinant > 0 else { break }
                var fittedA = (n * sqx - sq * sx) / determinant
                var fittedM = (sqq * sx - sq * sqx) / determinant
                if fittedM > 0 {  // the minimum may not rise above zero: refit a alone with m = 0
                    fittedM = 0
                    fittedA = sqx / sqq
                }
                guard fittedA > 0, fittedA.isFinite, fittedM.isFinite else { break }
                a = fittedA; m = fittedM
                let error = affineError(x, count, levels, a, -m, w)
                if error < bestError {
                    bestError = error
                    best = (a, -m)
                }
            }
        }
        return best
    }

    /// The symmetric grid `x ≈ s·q` (q ∈ `lowest`…`highest`) with the least squared error found
    /// from the starting grids. The sign of `s` is free: the weight of largest magnitude is
    /// tried both at the `lowest` end and at the `highest` end.
    ///
    /// - Parameter w: Importance of each weight, or nil for all 1.
    /// - Returns: `s`; 0 for an all-zero sub-block.
    static func symmetric(_ x: UnsafePointer<Float>, count: Int, lowest: Int32, highest: Int32, weights w: UnsafePointer<Float>? = nil) -> Float {
        let extreme = signedExtreme(x, count)
        guard extreme != 0 else { return 0 }
        var best = extreme / Float(lowest)
        var bestError = symmetricError(x, count, lowest, highest, best, w)
        for side in 0..<2 {
            // side 0: the extreme weight sits at the `lowest` level; side 1: at `highest`.
            let end = side == 0 ? Float(lowest) : Float(highest)
            for stretch in stretches {
                var s = extreme / (side == 0 ? end - stretch : end + stretch)
                for _ in 0..<2 {
                    var sqq: Float = 0, sqx: Float = 0
                    let inverse = 1 / s
                    for i in 0..<count {
                        let wi: Float = w?[i] ?? 1
                        let q = Float(roundedClamped(x[i] * inverse, lowest, highest))
                        sqq += wi * q * q; sqx += wi * q * x[i]
                    }
                    guard sqq > 0 else { break }
                    let fitted = sqx / sqq
                    guard fitted != 0, fitted.isFinite else { break }
                    s = fitted
                    let error = symmetricError(x, count, lowest, highest, s, w)
                    if error < bestError {
                        bestError = error
                        best = s
                    }
                }
            }
        }
        return best
    }

    /// Squared error (weighted by `w` when given) of the affine grid (a, b) with levels
    /// assigned by rounding.
    @inline(__always)
    static func affineError(_ x: UnsafePointer<Float>, _ count: Int, _ levels: Int32, _ a: Float, _ b: Float, _ w: UnsafePointer<Float>? = nil) -> Float {
        let inverse: Float = a > 0 ? 1 / a : 0
        var error: Float = 0
        for i in 0..<count {
            let q = Float(roundedClamped((x[i] + b) * inverse, 0, levels))
            let e = a * q - b - x[i]
            error += (w?[i] ?? 1) * e * e
        }
        return error
    }

    /// Squared error (weighted by `w` when given) of the symmetric grid `s` with levels
    /// assigned by rounding.
    @inline(__always)
    static func symmetricError(_ x: UnsafePointer<Float>, _ count: Int, _ lowest: Int32, _ highest: Int32, _ s: Float, _ w: UnsafePointer<Float>? = nil) -> Float {
        let inverse: Float = s != 0 ? 1 / s : 0
        var error: Float = 0
        for i in 0..<count {
            let q = Float(roundedClamped(x[i] * inverse, lowest, highest))
            let e = s * q - x[i]
            error += (w?[i] ?? 1) * e * e
        }
        return error
    }
}
