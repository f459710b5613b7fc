// Q2_K encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Each of the 16 sub-blocks of 16 gets its best affine grid x ≈ a·q − b, q ∈ 0…3
//    (``SubBlockFit/affine(_:count:levels:)``); with only four levels the search matters most.
// 2. The sub-block scales a and offsets b are quantized to 4 bits against two fp16 super-block
//    factors: d = max a / 15, dmin = max b / 15, scale = round(a/d), min = round(b/dmin).
//    The factor is also tried 6 % smaller and larger, and each sub-block its rounded values
//    ±1; the decoder's exact error picks (``KQuantScales``).
// 3. With the stored factors fixed, each weight takes the nearest level
//    q = round((x + dmin·min) / (d·scale)), clamped to 0…3.
//
// With importance weights (``ImportanceWeightedFormat``) every squared error and least-squares
// sum above is weighted per weight; without them the bytes are those of the unweighted search.

extension Q2_K: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (10, 10)

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        KQuantScratch.with { scratch in
            for b in 0..<count {
                let x = source + b * weightsPerBlock
                let block = destination + b * bytesPerBlock
                let (d, dmin) = KQuantScales.affine(x, subBlocks: 16, size: 16, levels: 3, scaleLevels: 15, weights: importance.map { $0 + b * weightsPerBlock }, scratch)
                block.storeHalf(d, at: dOffset)
                block.storeHalf(dmin, at: dminOffset)
                for s in 0..<16 { block.storeByte(scratch.scales[s] | scratch.mins[s] << 4, at: scalesOffset + s) }
                // Weight 128h + 32j + l is bits 2j…2j+1 of byte 32h + l.
                for h in 0..<2 {
                    for l in 0..<32 {
                        let q = scratch.levels + 128 * h + l
                        block.storeByte(q[0] | q[32] << 2 | q[64] << 4 | q[96] << 6, at: qsOffset + 32 * h + l)
                    }
                }
            }
        }
    }
}
