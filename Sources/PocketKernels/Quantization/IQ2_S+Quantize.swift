// IQ2_S encoding (Pocket's own; ggml's reference encoder is not reproduced):
// ``LatticeScales`` chooses d, one 4-bit level per 16 weights and every group's point of the
// 1024-point codebook, by exhaustive search under the exact decoded scales
// (``LatticeSearch``); the signs are free, so each weight keeps its own. This file only packs
// the choice into ggml's block_iq2_s layout.

extension IQ2_S: ImportanceWeightedFormat {
    /// IQ2_S for every matrix is llama.cpp's IQ2_S file type; its usual mix is IQ2_M's.
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (28, 29)

    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        LatticeCodebook.iq2s.withSearch { search in
            LatticeScratch.with { scratch in
                for b in 0..<count {
                    let block = destination + b * bytesPerBlock
                    let d = LatticeScales.fit(
                        source + b * weightsPerBlock, weights: importance.map { $0 + b * weightsPerBlock },
                        groupsPerScale: 2, search, scratch)
                    block.storeHalf(d, at: dOffset)
                    for q in 0..<8 { block.storeByte(0, at: qhOffset + q) }
                    for l in 0..<32 {
                        let index = scratch.index(l)
                        block.storeByte(UInt8(truncatingIfNeeded: index), at: qsOffset + l)
                        block.storeByte(scratch.sign(l), at: signsOffset + l)
                        // Bits 8…9 of the index: two bits of qh byte l / 4.
                        let qh = block.load(fromByteOffset: qhOffset + l / 4, as: UInt8.self)
                        block.storeByte(qh | UInt8(index >> 8) << UInt8(2 * (l % 4)), at: qhOffset + l / 4)
                    }
                    for ib in 0..<8 {
                        block.storeByte(scratch.level(2 * ib) | scratch.level(2 * ib + 1) << 4, at: scalesOffset + ib)
                    }
                }
            }
        }
    }
}
