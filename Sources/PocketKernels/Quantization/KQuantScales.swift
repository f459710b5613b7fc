// The super-block step shared by the k-quant encoders: fit every sub-block (``SubBlockFit``),
// quantize the sub-block scales against fp16 super-block factors, then assign every weight
// its nearest level under the scales the decoder will actually see.

/// Per-encoder scratch memory for one super-block, allocated once per `quantize` call.
struct KQuantScratch {
    /// 256 levels, already offset to be non-negative (q − lowest for symmetric grids).
    let levels: UnsafeMutablePointer<UInt8>
    /// Quantized sub-block scales (bit patterns of `Int8` for symmetric grids).
    let scales: UnsafeMutablePointer<UInt8>
    /// Quantized sub-block minimums (affine grids only).
    let mins: UnsafeMutablePointer<UInt8>
    /// Float sub-block fits: scales in 0..<16, offsets in 16..<32.
    let fits: UnsafeMutablePointer<Float>

    /// Runs `body` with scratch memory on the stack (no heap allocation).
    static func with<R>(_ body: (KQuantScratch) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256 + 32) { bytes in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 32) { floats in
                body(KQuantScratch(levels: bytes.baseAddress!, scales: bytes.baseAddress! + 256,
                                   mins: bytes.baseAddress! + 272, fits: floats.baseAddress!))
            }
        }
    }
}

enum KQuantScales {
    /// `value` rounded to fp16, except that a nonzero value too small for fp16 becomes the
    /// smallest subnormal of its sign instead of 0: the sub-block scales, rounded against the
    /// stored factor, then still carry tiny weights (a zero factor would erase the block).
    @inline(__always)
    static func nonzeroHalf(_ value: Float) -> Float {
        let rounded = halfRounded(value)
        guard rounded == 0, value != 0, value.isFinite else { return rounded }
        return value < 0 ? -Float(Float16.leastNonzeroMagnitude) : Float(Float16.leastNonzeroMagnitude)
    }

    /// Stretches of the super-block factors tried around "largest sub-block scale maps to the
    /// end of the scale range": a slightly smaller factor gives the other sub-blocks finer
    /// scales at the cost of clipping the largest one a little, and the exact error decides.
    static let factorStretches: [Float] = [1, 0.94, 1.06]

    /// Affine super-block (Q2_K, Q4_K): fills `scratch.scales`, `scratch.mins` (0…`scaleLevels`)
    /// and `scratch.levels` (0…`levels`) and returns the fp16-rounded factors.
    ///
    /// The float fits are quantized against each pair of candidate factors; every sub-block
    /// tries its rounded scale and minimum and their ±1 neighbours, and the combination with
    /// the least squared error (computed with the decoder's own arithmetic) is kept.
    ///
    /// - Parameters:
    ///   - x: 256 weights.
    ///   - subBlocks: Number of sub-blocks; `subBlocks * size == 256`.
    ///   - levels: Largest weight level (3 or 15).
    ///   - scaleLevels: Largest sub-block scale or minimum (15 or 63).
    ///   - w: Importance of each of the 256 weights (every error is weighted), or nil.
    static func affine(
        _ x: UnsafePointer<Float>, subBlocks: Int, size: Int, levels: Int32, scaleLevels: Int32,
        weights w: UnsafePointer<Float>? = nil, _ scratch: KQuantScratch
    ) -> (d: Float, dmin: Float) {
        var maxScale: Float = 0, maxOffset: Float = 0
        for s in 0..<subBlocks {
            let fit = SubBlockFit.affine(x + s * size, count: size, levels: levels, weights: w.map { $0 + s * size })
            scratch.fits[s] = fit.scale
            scratch.fits[16 + s] = fit.offset
            maxScale = Swift.max(maxScale, fit.scale)
            maxOffset = Swift.max(maxOffset, fit.offset)
        }
        // Start from the unstretched factors so that input too large for fp16 keeps its
        // (infinite) factor, which the caller detects, rather than collapsing to zero.
        var best = (d: nonzeroHalf(maxScale / Float(scaleLevels)), dmin: nonzeroHalf(maxOffset / Float(scaleLevels)))
        var bestError = Float.infinity
        for dStretch in factorStretches {
            for minStretch in factorStretches {
                let d = nonzeroHalf(maxScale / Float(scaleLevels) * dStretch)
                let dmin = nonzeroHalf(maxOffset / Float(scaleLevels) * minStretch)
                let error = assignAffine(x, subBlocks, size, levels, scaleLevels, d, dmin, w, scratch, store: false)
                if error < bestError {
                    bestError = error
                    best = (d, dmin)
                }
            }
        }
        _ = assignAffine(x, subBlocks, size, levels, scaleLevels, best.d, best.dmin, w, scratch, store: true)
        return best
    }

    /// Quantizes the affine fits against `d` and `dmin` and returns the block's squared error;
    /// with `store`, also writes the chosen scales, minimums and levels to `scratch`.
    @inline(__always)
    static func assignAffine(
        _ x: UnsafePointer<Float>, _ subBlocks: Int, _ size: Int, _ levels: Int32, _ scaleLevels: Int32,
        _ d: Float, _ dmin: Float, _ w: UnsafePointer<Float>?, _ scratch: KQuantScratch, store: Bool
    ) -> Float {
        let inverseD: Float = d > 0 ? 1 / d : 0, inverseDmin: Float = dmin > 0 ? 1 / dmin : 0
        var total: Float = 0
        for s in 0..<subBlocks {
            let sub = x + s * size
            let scale0 = roundedClamped(scratch.fits[s] * inverseD, 0, scaleLevels)
            let min0 = roundedClamped(scratch.fits[16 + s] * inverseDmin, 0, scaleLevels)
            var bestError = Float.infinity, bestScale: Int32 = 0, bestMin: Int32 = 0
            for scale in Swift.max(0, scale0 - 1)...Swift.min(scaleLevels, scale0 + 1) {
                for minimum in Swift.max(0, min0 - 1)...Swift.min(scaleLevels, min0 + 1) {
                    // The decoder computes (d·scale)·q − (dmin·min) in float32.
                    let dl = d * Float(scale), ml = dmin * Float(minimum)
                    let error = SubBlockFit.affineError(sub, size, levels, dl, ml, w.map { $0 + s * size })
                    if error < bestError {
                        bestError = error
                        bestScale = scale
                        bestMin = minimum
                    }
                }
            }
            total += bestError
            if store {
                scratch.scales[s] = UInt8(bestScale)
                scratch.mins[s] = UInt8(bestMin)
                let dl = d * Float(bestScale), ml = dmin * Float(bestMin)
                let inverse: Float = dl > 0 ? 1 / dl : 0
                for i in 0..<size {
                    scratch.levels[s * size + i] = UInt8(roundedClamped((sub[i] + ml) * inverse, 0, levels))
                }
            }
        }
        return total
    }

    /// Symmetric super-block (Q3_K, Q6_K): fills `scratch.scales` (Int8 bit patterns in
    /// `scaleLowest`…`scaleHighest`) and `scratch.levels` (q − `lowest`) and returns the
    /// fp16-rounded factor. The factor and each sub-block scale are searched like
    /// ``affine(_:subBlocks:size:levels:scaleLevels:weights:_:)`` does, weighted by `w` when given.
    static func symmetric(
        _ x: UnsafePointer<Float>, subBlocks: Int, size: Int, lowest: Int32, highest: Int32,
        scaleLowest: Int32, scaleHighest: Int32, weights w: UnsafePointer<Float>? = nil, _ scratch: KQuantScratch
    ) -> Float {
        var extreme: Float = 0
        for s in 0..<subBlocks {
            let scale = SubBlockFit.symmetric(x + s * size, count: size, lowest: lowest, highest: highest, weights: w.map { $0 + s * size })
            scratch.fits[s] = scale
            if abs(scale) > abs(extreme) { extreme = scale }
        }
        // The largest scale maps to the negative end, which has one more step than the positive.
        var best = nonzeroHalf(extreme / Float(scaleLowest)), bestError = Float.infinity
        for stretch in factorStretches {
            let d = nonzeroHalf(extreme / Float(scaleLowest) * stretch)
            let error = assignSymmetric(x, subBlocks, size, lowest, highest, scaleLowest, scaleHighest, d, w, scratch, store: false)
            if error < bestError {
                bestError = error
                best = d
            }
        }
        _ = assignSymmetric(x, subBlocks, size, lowest, highest, scaleLowest, scaleHighest, best, w, scratch, store: true)
        return best
    }

    /// Quantizes the symmetric fits against `d` and returns the block's squared error; with
    /// `store`, also writes the chosen scales and levels to `scratch`.
    @inline(__always)
    static func assignSymmetric(
        _ x: UnsafePointer<Float>, _ subBlocks: Int, _ size: Int, _ lowest: Int32, _ highest: Int32,
        _ scaleLowest: Int32, _ scaleHighest: Int32, _ d: Float, _ w: UnsafePointer<Float>?, _ scratch: KQuantScratch, store: Bool
    ) -> Float {
        let inverseD: Float = d != 0 ? 1 / d : 0
        var total: Float = 0
        for s in 0..<subBlocks {
            let sub = x + s * size
            let scale0 = roundedClamped(scratch.fits[s] * inverseD, scaleLowest, scaleHighest)
            var bestError = Float.infinity, bestScale: Int32 = 0
            for scale in Swift.max(scaleLowest, scale0 - 1)...Swift.min(scaleHighest, scale0 + 1) {
                let error = SubBlockFit.symmetricError(sub, size, lowest, highest, d * Float(scale), w.map { $0 + s * size })
                if error < bestError {
                    bestError = error
                    bestScale = scale
                }
            }
            total += bestError
            if store {
                scratch.scales[s] = UInt8(bitPattern: Int8(bestScale))
                let dl = d * Float(bestScale)
                let inverse: Float = dl != 0 ? 1 / dl : 0
                for i in 0..<size {
                    let q = dl != 0 ? roundedClamped(sub[i] * inverse, lowest, highest) : 0
                    scratch.levels[s * size + i] = UInt8(q - lowest)
                }
            }
        }
        return total
    }
}
