// Q4_1 encoding, byte for byte what `gguf.quants.quantize` (and ggml's reference) produce:
//
//   d = (max − min) / 15,   q = min(15, trunc((x − min) · (1/d) + 0.5)),   d, min as fp16
//
// All arithmetic in float32 in this order.

extension Q4_1: QuantizableFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (3, 3)

    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            var low = x[0], high = x[0]
            for j in 1..<32 {
                low = Swift.min(low, x[j])
                high = Swift.max(high, x[j])
            }
            let d = (high - low) / 15
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            block.storeHalf(low, at: mOffset)
            for j in 0..<16 {
                let q0 = truncatedClamped((x[j] - low) * id + 0.5, 0, 15)
                let q1 = truncatedClamped((x[j + 16] - low) * id + 0.5, 0, 15)
                block.storeByte(UInt8(q0) | UInt8(q1) << 4, at: qsOffset + j)
            }
        }
    }
}

// Weighted (searched) Q4_1: x ≈ d·q + m, q ∈ 0…15. Two grids are scored with the decoder's
// fp16-rounded d and m: the least-squares affine fit of
// ``SubBlockFit/affine(_:count:levels:weights:)`` (which keeps m ≤ 0) and the reference's
// min…max grid (which covers all-positive blocks); the one with the smaller weighted error wins.
extension Q4_1: ImportanceWeightedFormat {
    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let w = importance.map { $0 + b * weightsPerBlock }
            let block = destination + b * bytesPerBlock
            var low = x[0], high = x[0]
            for j in 1..<32 {
                low = Swift.min(low, x[j])
                high = Swift.max(high, x[j])
            }
            let fit = SubBlockFit.affine(x, count: 32, levels: 15, weights: w)
            let candidates = [(halfRounded(fit.scale), halfRounded(-fit.offset)), (halfRounded((high - low) / 15), halfRounded(low))]
            var best = candidates[1], bestError = Float.infinity
            for (d, m) in candidates {
                // The decoder computes d·q + m; −m plays the role of the affine offset b.
                let error = SubBlockFit.affineError(x, 32, 15, d, -m, w)
                if error < bestError {
                    bestError = error
                    best = (d, m)
                }
            }
            let (d, m) = best
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            block.storeHalf(m, at: mOffset)
            for j in 0..<16 {
                let q0 = roundedClamped((x[j] - m) * id, 0, 15)
                let q1 = roundedClamped((x[j + 16] - m) * id, 0, 15)
                block.storeByte(UInt8(q0) | UInt8(q1) << 4, at: qsOffset + j)
            }
        }
    }
}
