// IQ2_XXS encoding (Pocket's own; ggml's reference encoder is not reproduced):
// ``LatticeScales`` chooses d, one 4-bit level per 32 weights and every group's point of the
// 256-point codebook with its signs, by exhaustive search under the exact decoded scales
// (``LatticeSearch``; the 8th sign is implied by even parity, so an odd group flips its
// cheapest weight). This file only packs the choice into ggml's block_iq2_xxs layout.

extension IQ2_XXS: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (19, 19)

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        LatticeCodebook.iq2xxs.withSearch { search in
            LatticeScratch.with { scratch in
                for b in 0..<count {
                    let block = destination + b * bytesPerBlock
                    let d = LatticeScales.fit(
                        source + b * weightsPerBlock, weights: importance.map { $0 + b * weightsPerBlock },
                        groupsPerScale: 4, search, scratch)
                    block.storeHalf(d, at: dOffset)
                    for ib in 0..<8 {
                        // Four index bytes, then 4 × 7 sign bits (the even-parity byte's low 7
                        // bits are its index in IQGrids.signs) and the level in bits 28…31.
                        var aux = UInt32(scratch.level(ib)) << 28
                        for l in 0..<4 {
                            block.storeByte(UInt8(scratch.index(4 * ib + l)), at: qsOffset + 8 * ib + l)
                            aux |= UInt32(scratch.sign(4 * ib + l) & 127) << UInt32(7 * l)
                        }
                        block.storeBytes(of: aux.littleEndian, toByteOffset: qsOffset + 8 * ib + 4, as: UInt32.self)
                    }
                }
            }
        }
    }
}
