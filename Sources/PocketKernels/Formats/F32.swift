import PocketGGUF

// F32: IEEE single precision, one weight per 4-byte "block", 32 bpw.
//
//   x = value
//
// Byte layout (little-endian):
//   0..<4   value   binary32
//
// Decoding is a byte copy, so every bit pattern (NaN payloads included) is kept.

/// Plain 32-bit floats, stored as-is.
public enum F32: BlockFormat {
    public static let type = GGMLType.f32
    public static let weightsPerBlock = 1
    public static let bytesPerBlock = 4

    static let valueOffset = 0

    public static let layout = [BlockField("value", at: valueOffset, bytes: 4, .values)]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        // Raw copy: no alignment assumption on the source and no float arithmetic.
        UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count * bytesPerBlock)
    }
}
