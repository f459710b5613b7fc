// Q8_0 encoding, byte for byte what `gguf.quants.quantize` (and ggml's reference) produce:
//
//   d = max|x| / 127,   q = round(x · (1/d))  (ties away from zero),   d stored as fp16
//
// All arithmetic in float32 in this order; a block of zeros gets d = 0 and q = 0.

extension Q8_0: QuantizableFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (7, 7)

    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        for b in 0..<count {
            let x = source + b * weightsPerBlock
            let block = destination + b * bytesPerBlock
            var amax: Float = 0
            for j in 0..<32 { amax = Swift.max(amax, abs(x[j])) }
            let d = amax / 127
            let id: Float = d == 0 ? 0 : 1 / d
            block.storeHalf(d, at: dOffset)
            for j in 0..<32 {
                let q = roundedClamped(x[j] * id, -128, 127)
                block.storeByte(UInt8(bitPattern: Int8(q)), at: qsOffset + j)
            }
        }
    }
}
