// IQ2_XS encoding (Pocket's own; ggml's reference encoder is not reproduced):
// ``LatticeScales`` chooses d, one 4-bit level per 16 weights and every group's point of the
// 512-point codebook with its signs, by exhaustive search under the exact decoded scales
// (``LatticeSearch``; even sign parity as IQ2_XXS). This file only packs the choice into
// ggml's block_iq2_xs layout.

extension IQ2_XS: ImportanceWeightedFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (20, 20)

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        LatticeCodebook.iq2xs.withSearch { search in
            LatticeScratch.with { scratch in
                for b in 0..<count {
                    let block = destination + b * bytesPerBlock
                    let d = LatticeScales.fit(
                        source + b * weightsPerBlock, weights: importance.map { $0 + b * weightsPerBlock },
                        groupsPerScale: 2, search, scratch)
                    block.storeHalf(d, at: dOffset)
                    for l in 0..<32 {
                        // 9-bit index, then the 7-bit sign index (the parity byte's low bits).
                        let code = UInt16(scratch.index(l)) | UInt16(scratch.sign(l) & 127) << 9
                        block.storeBytes(of: code.littleEndian, toByteOffset: qsOffset + 2 * l, as: UInt16.self)
                    }
                    for ib in 0..<8 {
                        block.storeByte(scratch.level(2 * ib) | scratch.level(2 * ib + 1) << 4, at: scalesOffset + ib)
                    }
                }
            }
        }
    }
}
