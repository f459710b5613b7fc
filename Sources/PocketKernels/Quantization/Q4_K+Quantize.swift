// Q4_K encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Each of the 8 sub-blocks of 32 gets its best affine grid x ≈ a·q − b, q ∈ 0…15
//    (``SubBlockFit/affine(_:count:levels:)``).
// 2. The sub-block scales a and offsets b are quantized to 6 bits against two fp16 super-block
//    factors: d = max a / 63, dmin = max b / 63, scale = round(a/d), min = round(b/dmin).
//    The factor is also tried 6 % smaller and larger, and each sub-block its rounded values
//    ±1; the decoder's exact error picks (``KQuantScales``).
// 3. With the stored factors fixed, each weight takes the nearest level
//    q = round((x + dmin·min) / (d·scale)), clamped to 0…15.
//
// With importance weights (``ImportanceWeightedFormat``) every squared error and least-squares
// sum above is weighted per weight; without them the bytes are those of the unweighted search.

extension Q4_K: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (14, 15)  // Q4_K_S / Q4_K_M

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        KQuantScratch.with { scratch in
            for b in 0..<count {
                let x = source + b * weightsPerBlock
                let block = destination + b * bytesPerBlock
                let (d, dmin) = KQuantScales.affine(x, subBlocks: 8, size: 32, levels: 15, scaleLevels: 63, weights: importance.map { $0 + b * weightsPerBlock }, scratch)
                block.storeHalf(d, at: dOffset)
                block.storeHalf(dmin, at: dminOffset)
                let sc = scratch.scales, mn = scratch.mins
                for s in 0..<4 {
                    block.storeByte(sc[s] | (sc[s + 4] >> 4) << 6, at: scalesOffset + s)
                    block.storeByte(mn[s] | (mn[s + 4] >> 4) << 6, at: scalesOffset + s + 4)
                    block.storeByte(sc[s + 4] & 0xF | (mn[s + 4] & 0xF) << 4, at: scalesOffset + s + 8)
                }
                for c in 0..<4 {
                    let q0 = scratch.levels + 64 * c, q1 = q0 + 32
                    for l in 0..<32 { block.storeByte(q0[l] | q1[l] << 4, at: qsOffset + 32 * c + l) }
                }
            }
        }
    }
}
