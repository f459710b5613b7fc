// IQ4_NL encoding (the `gguf` package has no reference encoder; this is Pocket's own):
//
// 1. The block's scale is the least-squares search of ``CodebookFit/scale(_:weights:)``:
//    candidate scales with the extreme weight near either end of the codebook, each refitted
//    to its nearest entries, the best refined.
// 2. d is stored as fp16 (a nonzero d too small for fp16 as the smallest subnormal), and every weight takes its nearest entry under that stored d.
//
// With importance weights (``ImportanceWeightedFormat``) the least-squares sums are weighted;
// the nearest entry of a weight does not depend on its weight.

extension IQ4_NL: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (25, 25)  // llama_ftype IQ4_NL

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            let d = KQuantScales.nonzeroHalf(CodebookFit.scale(x, weights: importance.map { $0 + b * weightsPerBlock }))
            block.storeHalf(d, at: dOffset)
            CodebookFit.store(x, scale: d, into: block + qsOffset)
        }
    }
}
