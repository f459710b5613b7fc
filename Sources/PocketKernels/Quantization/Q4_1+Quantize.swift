// Q4_1 encoding, byte for byte what `gguf.quants.quantize` (and ggml's reference) produce:
//
//   d = (max − min) / 15,   q = min(15, trunc((x − min) · (1/d) + 0.5)),   d, min as fp16
//
// All arithmetic in float32 in this order.

extension Q4_1: QuantizableFormat {
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
