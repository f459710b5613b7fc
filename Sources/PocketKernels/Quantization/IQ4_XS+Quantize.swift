// IQ4_XS encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Each of the 8 sub-blocks of 32 gets its best signed scale on the IQ4 codebook
//    (``CodebookFit/scale(_:weights:)``, IQ4_NL's search).
// 2. The sub-block scales are quantized to signed 6 bits against one fp16 factor: the scale of
//    largest magnitude maps to −32, d = s_max / −32, l = round(s/d) ∈ −32…31 (stored as
//    ls = l + 32). The factor is also tried 3 % and 6 % smaller and larger, and each sub-block
//    its rounded l and l ± 1; the exact weighted error of the decoded sub-block picks.
// 3. With d and the l fixed, every weight takes its nearest entry under the decoder's scale
//    d·l.
//
// With importance weights (``ImportanceWeightedFormat``) every least-squares sum and error is
// weighted per weight.

extension IQ4_XS: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (30, 30)  // llama_ftype IQ4_XS

    /// Stretches of the super-block factor tried around "largest scale maps to −32".
    static let factorStretches: [Float] = [1, 0.97, 1.03, 0.94, 1.06]

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 8) { fitsBuffer in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 8) { levelsBuffer in
                let fits = fitsBuffer.baseAddress!, levels = levelsBuffer.baseAddress!
                for b in 0..<count {
                    let x = source + b * weightsPerBlock
                    let w = importance.map { $0 + b * weightsPerBlock }
                    let block = destination + b * bytesPerBlock
                    var extreme: Float = 0
                    for ib in 0..<8 {
                        fits[ib] = CodebookFit.scale(x + 32 * ib, weights: w.map { $0 + 32 * ib })
                        if abs(fits[ib]) > abs(extreme) { extreme = fits[ib] }
                    }
                    // Start from the unstretched factor so that input too large for fp16 keeps
                    // its (infinite) factor rather than collapsing to zero.
                    var d = KQuantScales.nonzeroHalf(extreme / -32), bestError = Float.infinity
                    for stretch in factorStretches {
                        let candidate = KQuantScales.nonzeroHalf(extreme / -32 * stretch)
                        let error = assign(x, w, fits, candidate, levels)
                        if error < bestError {
                            bestError = error
                            d = candidate
                        }
                    }
                    _ = assign(x, w, fits, d, levels)
                    block.storeHalf(d, at: dOffset)
                    var high: UInt16 = 0
                    for ib in 0..<8 {
                        let ls = UInt16(levels[ib] + 32)
                        high |= (ls >> 4) << UInt16(2 * ib)
                        CodebookFit.store(x + 32 * ib, scale: d * Float(levels[ib]), into: block + qsOffset + 16 * ib)
                    }
                    for k in 0..<4 {
                        let low = UInt8(levels[2 * k] + 32) & 0xF | (UInt8(levels[2 * k + 1] + 32) & 0xF) << 4
                        block.storeByte(low, at: scalesLowOffset + k)
                    }
                    block.storeBytes(of: high.littleEndian, toByteOffset: scalesHighOffset, as: UInt16.self)
                }
            }
        }
    }

    /// Quantizes the sub-block scales `fits` against `d` into `levels` (−32…31), each the
    /// rounded value or a neighbour, whichever decodes its sub-block with the least weighted
    /// error; returns the super-block's total error.
    @inline(__always)
    static func assign(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>?, _ fits: UnsafePointer<Float>, _ d: Float,
        _ levels: UnsafeMutablePointer<Int32>
    ) -> Float {
        let inverse: Float = d != 0 ? 1 / d : 0
        var total: Float = 0
        for ib in 0..<8 {
            let rounded = roundedClamped(fits[ib] * inverse, -32, 31)
            var bestError = Float.infinity, best = rounded
            for l in Swift.max(-32, rounded - 1)...Swift.min(31, rounded + 1) {
                // The decoder's sub-block scale: d·Float(l), one exact product.
                let error = CodebookFit.error(x + 32 * ib, weights: w.map { $0 + 32 * ib }, scale: d * Float(l))
                if error < bestError {
                    bestError = error
                    best = l
                }
            }
            levels[ib] = best
            total += bestError
        }
        return total
    }
}
