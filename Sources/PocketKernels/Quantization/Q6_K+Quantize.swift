// Q6_K encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Each of the 16 sub-blocks of 16 gets its best symmetric grid x ≈ s·q, q ∈ −32…31
//    (``SubBlockFit/symmetric(_:count:lowest:highest:)``).
// 2. The sub-block scales are quantized to signed 8 bits against one fp16 factor: the scale of
//    largest magnitude maps to −128, d = s_max / −128, scale = round(s/d) ∈ −128…127.
//    The factor is also tried 6 % smaller and larger, and each sub-block its rounded values
//    ±1; the decoder's exact error picks (``KQuantScales``).
// 3. With the stored factors fixed, each weight takes the nearest level q = round(x / (d·scale))
//    in −32…31, stored as q + 32: low nibble in `ql`, top 2 bits in `qh`.
//
// With importance weights (``ImportanceWeightedFormat``) every squared error and least-squares
// sum above is weighted per weight; without them the bytes are those of the unweighted search.

extension Q6_K: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (18, 18)

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        KQuantScratch.with { scratch in
            for b in 0..<count {
                let x = source + b * weightsPerBlock
                let block = destination + b * bytesPerBlock
                let d = KQuantScales.symmetric(x, subBlocks: 16, size: 16, lowest: -32, highest: 31, scaleLowest: -128, scaleHighest: 127, weights: importance.map { $0 + b * weightsPerBlock }, scratch)
                block.storeHalf(d, at: dOffset)
                for s in 0..<16 { block.storeByte(scratch.scales[s], at: scalesOffset + s) }
                let q = scratch.levels  // q + 32 ∈ 0…63
                for h in 0..<2 {
                    // Weight 128h + 64n + l: nibble n of ql byte 64h + l.
                    for l in 0..<64 {
                        let p = q + 128 * h + l
                        block.storeByte(p[0] & 0xF | (p[64] & 0xF) << 4, at: qlOffset + 64 * h + l)
                    }
                    // Weight 128h + 32j + l: bits 2j…2j+1 of qh byte 32h + l.
                    for l in 0..<32 {
                        let p = q + 128 * h + l
                        block.storeByte(p[0] >> 4 | (p[32] >> 4) << 2 | (p[64] >> 4) << 4 | (p[96] >> 4) << 6,
                                        at: qhOffset + 32 * h + l)
                    }
                }
            }
        }
    }
}
