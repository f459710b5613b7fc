// Q3_K encoding (no reference encoder exists; this is Pocket's own):
//
// 1. Each of the 16 sub-blocks of 16 gets its best symmetric grid x ≈ s·q, q ∈ −4…3
//    (``SubBlockFit/symmetric(_:count:lowest:highest:)``).
// 2. The sub-block scales are quantized to signed 6 bits against one fp16 factor: the scale of
//    largest magnitude maps to −32, d = s_max / −32, scale = round(s/d) ∈ −32…31.
//    The factor is also tried 6 % smaller and larger, and each sub-block its rounded values
//    ±1; the decoder's exact error picks (``KQuantScales``).
// 3. With the stored factors fixed, each weight takes the nearest level q = round(x / (d·scale))
//    in −4…3, stored as low 2 bits of q + 4 plus a high bit that is set when q ≥ 0.
//
// With importance weights (``ImportanceWeightedFormat``) every squared error and least-squares
// sum above is weighted per weight; without them the bytes are those of the unweighted search.

extension Q3_K: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (11, 12)  // Q3_K_S / Q3_K_M

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        KQuantScratch.with { scratch in
            for b in 0..<count {
                let x = source + b * weightsPerBlock
                let block = destination + b * bytesPerBlock
                let d = KQuantScales.symmetric(x, subBlocks: 16, size: 16, lowest: -4, highest: 3, scaleLowest: -32, scaleHighest: 31, weights: importance.map { $0 + b * weightsPerBlock }, scratch)
                block.storeHalf(d, at: dOffset)
                // Scales are stored biased by 32: low nibbles in bytes 0…7, top 2 bits in bytes 8…11.
                for i in 0..<12 { block.storeByte(0, at: scalesOffset + i) }
                for s in 0..<16 {
                    let biased = UInt8(Int32(Int8(bitPattern: scratch.scales[s])) + 32)
                    let lowByte = scalesOffset + s % 8, highByte = scalesOffset + 8 + s % 4
                    block.storeByte(block.load(fromByteOffset: lowByte, as: UInt8.self) | (biased & 0xF) << (4 * UInt8(s / 8)), at: lowByte)
                    block.storeByte(block.load(fromByteOffset: highByte, as: UInt8.self) | (biased >> 4) << (2 * UInt8(s / 4)), at: highByte)
                }
                // Level q + 4 ∈ 0…7: bit 2 goes to the hmask (weight i: bit i/32 of byte i%32), bits
                // 0…1 to qs (weight 128h + 32j + l: bits 2j…2j+1 of byte 32h + l).
                let q = scratch.levels
                for l in 0..<32 {
                    var mask: UInt8 = 0
                    for k in 0..<8 { mask |= (q[32 * k + l] >> 2) << UInt8(k) }
                    block.storeByte(mask, at: hmaskOffset + l)
                }
                for h in 0..<2 {
                    for l in 0..<32 {
                        let p = q + 128 * h + l
                        block.storeByte(p[0] & 3 | (p[32] & 3) << 2 | (p[64] & 3) << 4 | (p[96] & 3) << 6, at: qsOffset + 32 * h + l)
                    }
                }
            }
        }
    }
}
