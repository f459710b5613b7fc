// Q5_0 encoding, byte for byte what `gguf.quants.quantize` (and ggml's reference) produce:
//
//   m = the weight of largest magnitude (first one on ties), signed
//   d = m / −16,   q = min(31, trunc(x · (1/d) + 16.5)),   d stored as fp16
//
// Low nibbles pack like Q4_0; the fifth bits go to the little-endian `qh` word, bit j for
// weight j. All arithmetic in float32 in this order.

extension Q5_0: QuantizableFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (8, 8)

    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            let m = signedExtreme(x, 32)
            let d = m / -16
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            var qh: UInt32 = 0
            for j in 0..<16 {
                let q0 = UInt32(truncatedClamped(x[j] * id + 16.5, 0, 31))
                let q1 = UInt32(truncatedClamped(x[j + 16] * id + 16.5, 0, 31))
                block.storeByte(UInt8(q0 & 0xF | (q1 & 0xF) << 4), at: qsOffset + j)
                qh |= (q0 >> 4) << UInt32(j) | (q1 >> 4) << UInt32(j + 16)
            }
            block.storeBytes(of: qh.littleEndian, toByteOffset: qhOffset, as: UInt32.self)
        }
    }
}

// Weighted (searched) Q5_0: as the weighted Q4_0, over levels −16…15.
extension Q5_0: ImportanceWeightedFormat {
    public static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            let d = halfRounded(SubBlockFit.symmetric(x, count: 32, lowest: -16, highest: 15,
                                                      weights: importance.map { $0 + b * weightsPerBlock }))
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            var qh: UInt32 = 0
            for j in 0..<16 {
                let q0 = UInt32(roundedClamped(x[j] * id, -16, 15) + 16)
                let q1 = UInt32(roundedClamped(x[j + 16] * id, -16, 15) + 16)
                block.storeByte(UInt8(q0 & 0xF | (q1 & 0xF) << 4), at: qsOffset + j)
                qh |= (q0 >> 4) << UInt32(j) | (q1 >> 4) << UInt32(j + 16)
            }
            block.storeBytes(of: qh.littleEndian, toByteOffset: qhOffset, as: UInt32.self)
        }
    }
}
