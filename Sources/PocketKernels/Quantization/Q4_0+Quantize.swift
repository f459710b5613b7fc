// Q4_0 encoding, byte for byte what `gguf.quants.quantize` (and ggml's reference) produce:
//
//   m = the weight of largest magnitude (first one on ties), signed
//   d = m / −8,   q = min(15, trunc(x · (1/d) + 8.5)),   d stored as fp16
//
// The extreme weight maps to q = 0 (−8·d = m) so the asymmetric range −8…7 loses nothing on
// the side that matters. All arithmetic in float32 in this order.

extension Q4_0: QuantizableFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (2, 2)

    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            let m = signedExtreme(x, 32)
            let d = m / -8
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            for j in 0..<16 {
                let low = truncatedClamped(x[j] * id + 8.5, 0, 15)
                let high = truncatedClamped(x[j + 16] * id + 8.5, 0, 15)
                block.storeByte(UInt8(low) | UInt8(high) << 4, at: qsOffset + j)
            }
        }
    }
}

/// The element of `x[0..<count]` with the largest magnitude, keeping its sign; the first such
/// element on ties (numpy's `argmax` rule, which the reference encoders use).
@inline(__always)
func signedExtreme(_ x: UnsafePointer<Float>, _ count: Int) -> Float {
    var best: Float = 0, bestMagnitude: Float = 0
    for j in 0..<count where abs(x[j]) > bestMagnitude {
        bestMagnitude = abs(x[j])
        best = x[j]
    }
    return best
}

// Weighted (searched) Q4_0: the scale d of x ≈ d·(q − 8) comes from the least-squares search of
// ``SubBlockFit/symmetric(_:count:lowest:highest:weights:)`` over levels −8…7 (the reference's
// "extreme weight at −8" grid is one of its candidates), then every weight takes its nearest
// level under the fp16-rounded d the decoder reads.
extension Q4_0: ImportanceWeightedFormat {
    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            let d = halfRounded(SubBlockFit.symmetric(x, count: 32, lowest: -8, highest: 7,
                                                      weights: importance.map { $0 + b * weightsPerBlock }))
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            for j in 0..<16 {
                let low = roundedClamped(x[j] * id, -8, 7) + 8
                let high = roundedClamped(x[j + 16] * id, -8, 7) + 8
                block.storeByte(UInt8(low) | UInt8(high) << 4, at: qsOffset + j)
            }
        }
    }
}
