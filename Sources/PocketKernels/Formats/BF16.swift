import PocketGGUF

// BF16: bfloat16, one weight per 2-byte "block", 16 bpw.
//
//   x = binary32 whose top 16 bits are the stored value and low 16 bits are zero
//
// Byte layout (little-endian):
//   0..<2   value   sign 1 bit, exponent 8 bits, mantissa 7 bits
//
// Widening is a shift, so every bit pattern (NaN payloads included) is kept exactly.

/// Brain floating point: the upper half of an IEEE single.
public enum BF16: BlockFormat {
    public static let type = GGMLType.bf16
    public static let weightsPerBlock = 1
    public static let bytesPerBlock = 2

    static let valueOffset = 0

    public static let layout = [BlockField("value", at: valueOffset, bytes: 2, .values)]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for i in 0..<count {
            let bits = source.loadUnaligned(fromByteOffset: i * bytesPerBlock + valueOffset, as: UInt16.self)
            destination[i] = Float(bitPattern: UInt32(bits) << 16)
        }
    }
}
