// The super-block step shared by the 2-bit lattice encoders (IQ2_XXS, IQ2_XS, IQ2_S): every
// group of 8 weights is a codebook point times a sub-block scale dl = (d·(0.5 + ls))·0.25,
// ls ∈ 0…15 per 32 (IQ2_XXS) or 16 (IQ2_XS, IQ2_S) weights, d one fp16 per 256.
//
// 1. Float sub-block scales: candidate scales |x|max / t for t = 20 … 80 (the largest weight at
//    or between the lattice's levels 25 and 43, and beyond); at each, every group takes its
//    exact best point (``LatticeSearch``), and the weighted least-squares scale of those
//    points scores the candidate (error Σw·x² − (Σw·σx·G)² / Σw·G²). The best is refined by
//    re-searching at the fitted scale.
// 2. d maps the largest float scale to ls = 15 (also tried 5 % and 10 % smaller, 5 % larger);
//    each sub-block tries its rounded ls and both neighbours, re-searching every group at the
//    exact decoded dl, and keeps the least error.
// 3. With the chosen points fixed, d is refitted by weighted least squares (and the float
//    sub-block scales by theirs), rounded to fp16, and step 2 repeats with it: the final
//    points are always the best ones for the scales the decoder will see.
//
// Errors are weighted by the importances (1 without them); all float32 in a fixed order, so
// the bytes depend on the input only.

/// Per-encoder scratch memory for one super-block, on the stack for a whole `quantize` call.
struct LatticeScratch {
    /// The 32 groups of the super-block.
    let groups: UnsafeMutablePointer<LatticeGroup>
    /// Float sub-block scales (up to 16).
    let scales: UnsafeMutablePointer<Float>
    /// Point indices: the trial at 0..<32, the best so far at 32..<64, one sub-block's candidate at 64..<68.
    let indices: UnsafeMutablePointer<Int32>
    /// Sign bytes (bit j negates weight j), at the same offsets as `indices`.
    let signs: UnsafeMutablePointer<UInt8>
    /// Sub-block scale levels ls: the trial at 0..<16, the best at 16..<32.
    let levels: UnsafeMutablePointer<UInt8>

    /// The chosen point index of group `l` (after ``LatticeScales/fit(_:weights:groupsPerScale:_:_:)``).
    @inline(__always) func index(_ l: Int) -> Int { Int(indices[32 + l]) }
    /// The chosen sign byte of group `l`.
    @inline(__always) func sign(_ l: Int) -> UInt8 { signs[32 + l] }
    /// The chosen level ls of sub-block `k`.
    @inline(__always) func level(_ k: Int) -> UInt8 { levels[16 + k] }

    /// Runs `body` with scratch memory on the stack (no heap allocation).
    static func with<R>(_ body: (LatticeScratch) -> R) -> R {
        withUnsafeTemporaryAllocation(of: LatticeGroup.self, capacity: 32) { groups in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 16) { scales in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 68) { indices in
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 68 + 32) { bytes in
                        body(LatticeScratch(groups: groups.baseAddress!, scales: scales.baseAddress!, indices: indices.baseAddress!,
                                            signs: bytes.baseAddress!, levels: bytes.baseAddress! + 68))
                    }
                }
            }
        }
    }
}

enum LatticeScales {
    /// Candidate ratios |x|max / scale of a sub-block's float-scale search: 20 to about 80 in
    /// 8.5 % steps (the largest weight lands between the lattice levels 25 and 43, or beyond
    /// 43 so that the smaller weights get finer steps).
    static let ratios: [Float] = {
        var t: Float = 20, list = [Float]()
        for _ in 0..<18 {
            list.append(t)
            t *= 1.085
        }
        return list
    }()

    /// Stretches of d around "largest float scale at ls = 15".
    static let factorStretches: [Float] = [1, 0.95, 0.9, 1.05]

    /// Fills the scratch's chosen indices, signs and levels for the 256 weights at `x` and
    /// returns the fp16-rounded d.
    ///
    /// - Parameters:
    ///   - w: Importances of the 256 weights, or nil (all 1).
    ///   - groupsPerScale: Groups of 8 per sub-block scale: 4 (IQ2_XXS) or 2 (IQ2_XS, IQ2_S).
    static func fit(
        _ x: UnsafePointer<Float>, weights w: UnsafePointer<Float>?, groupsPerScale: Int,
        _ search: LatticeSearch, _ scratch: LatticeScratch
    ) -> Float {
        let subBlocks = 32 / groupsPerScale
        for l in 0..<32 { scratch.groups[l] = LatticeGroup(x + 8 * l, w.map { $0 + 8 * l }) }
        var largest: Float = 0
        for k in 0..<subBlocks {
            let s = floatScale(k * groupsPerScale, groupsPerScale, search, scratch)
            scratch.scales[k] = s
            if s > largest { largest = s }
        }
        guard largest > 0, largest.isFinite else {
            // All zero (or no usable scale): every level 0 and point 0 at d = 0 decodes to 0;
            // infinite input keeps an infinite d, as the k-quants do.
            for l in 0..<32 {
                scratch.indices[32 + l] = 0
                scratch.signs[32 + l] = scratch.groups[l].negatives
            }
            for k in 0..<16 { scratch.levels[16 + k] = 0 }
            return largest > 0 ? halfRounded(largest) : 0
        }
        var bestD: Float = 0, bestError = Float.infinity
        for (n, stretch) in factorStretches.enumerated() {
            let d = KQuantScales.nonzeroHalf(largest / 3.875 * stretch)
            let error = assign(d, subBlocks, groupsPerScale, search, scratch)
            if error < bestError || n == 0 {  // the first is kept even if its error is NaN
                bestError = error
                bestD = d
                keepTrial(subBlocks, scratch)
            }
        }
        for _ in 0..<3 {
            // Refit d (and the float sub-block scales) to the chosen points, then re-choose.
            var numerator: Float = 0, denominator: Float = 0
            for k in 0..<subBlocks {
                var xg: Float = 0, gg: Float = 0
                for l in (k * groupsPerScale)..<((k + 1) * groupsPerScale) {
                    let m = search.moments(scratch.groups[l], scratch.index(l), scratch.sign(l))
                    xg += m.xg
                    gg += m.gg
                }
                if xg > 0, gg > 0 { scratch.scales[k] = xg / gg }
                let c = (0.5 + Float(scratch.level(k))) * 0.25
                numerator += c * xg
                denominator += c * c * gg
            }
            guard numerator > 0, denominator > 0 else { break }
            let refitted = KQuantScales.nonzeroHalf(numerator / denominator)
            var improved = false
            let previous = bestD
            for pass in 0..<2 {
                // The refitted d, then the previous d with the refitted float scales.
                let d = pass == 0 ? refitted : previous
                if pass == 0 && d == previous { continue }
                let error = assign(d, subBlocks, groupsPerScale, search, scratch)
                if error < bestError {
                    bestError = error
                    bestD = d
                    keepTrial(subBlocks, scratch)
                    improved = true
                }
            }
            guard improved else { break }
        }
        return bestD
    }

    /// Copies the trial choice to the best one.
    @inline(__always)
    static func keepTrial(_ subBlocks: Int, _ scratch: LatticeScratch) {
        for l in 0..<32 {
            scratch.indices[32 + l] = scratch.indices[l]
            scratch.signs[32 + l] = scratch.signs[l]
        }
        for k in 0..<subBlocks { scratch.levels[16 + k] = scratch.levels[k] }
    }

    /// The float scale of the sub-block of `count` groups from group `first` (0 when it is all
    /// zero): see step 1 above.
    static func floatScale(_ first: Int, _ count: Int, _ search: LatticeSearch, _ scratch: LatticeScratch) -> Float {
        var largest: Float = 0
        for l in first..<(first + count) { let x = scratch.groups[l].x
            largest = Swift.max(largest, pointwiseMax(x, -x).max()) }
        guard largest > 0, largest.isFinite else { return largest > 0 ? largest / 43 : 0 }
        var best = largest / 43, bestScore = -Float.infinity
        // The score of a scale: Σw·x² minus the error of its points at their best scale.
        func fitted(_ s: Float) -> (scale: Float, score: Float)? {
            var xg: Float = 0, gg: Float = 0
            for l in first..<(first + count) {
                let group = scratch.groups[l]
                let index = search.nearest(group, scale: s)
                let m = search.moments(group, index, search.signs(group, index))
                xg += m.xg
                gg += m.gg
            }
            guard xg > 0, gg > 0 else { return nil }
            return (xg / gg, xg * xg / gg)
        }
        for t in ratios {
            if let (s, score) = fitted(largest / t), score > bestScore {
                best = s
                bestScore = score
            }
        }
        for _ in 0..<2 {
            guard let (s, score) = fitted(best), score > bestScore else { break }
            best = s
            bestScore = score
        }
        return best
    }

    /// Chooses every sub-block's level (rounded float scale and its neighbours) and every
    /// group's point under `d` into the trial slots; returns the block's weighted error.
    static func assign(_ d: Float, _ subBlocks: Int, _ groupsPerScale: Int, _ search: LatticeSearch, _ scratch: LatticeScratch) -> Float {
        var total: Float = 0
        for k in 0..<subBlocks {
            let first = k * groupsPerScale
            let level0 = roundedClamped(scratch.scales[k] / (0.25 * d) - 0.5, 0, 15)
            var bestError = Float.infinity
            for level in Swift.max(0, level0 - 1)...Swift.min(15, level0 + 1) {
                let dl = d * (0.5 + Float(level)) * 0.25  // the decoder's order
                var error: Float = 0
                for i in 0..<groupsPerScale {
                    let group = scratch.groups[first + i]
                    let index = search.nearest(group, scale: dl)
                    let signs = search.signs(group, index)
                    scratch.indices[64 + i] = Int32(index)
                    scratch.signs[64 + i] = signs
                    error += search.error(group, index, signs, scale: dl)
                }
                if error < bestError || level == Swift.max(0, level0 - 1) {  // the first is kept even if NaN
                    bestError = error
                    scratch.levels[k] = UInt8(level)
                    for i in 0..<groupsPerScale {
                        scratch.indices[first + i] = scratch.indices[64 + i]
                        scratch.signs[first + i] = scratch.signs[64 + i]
                    }
                }
            }
            total += bestError
        }
        return total
    }
}
