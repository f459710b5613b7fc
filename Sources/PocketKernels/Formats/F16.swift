import PocketGGUF

// F16: IEEE half precision, one weight per 2-byte "block", 16 bpw.
//
//   x = (−1)^s · 2^(e−15) · 1.m      (e = 0: 2^−14 · 0.m; e = 31: ±inf or NaN)
//
// Byte layout (little-endian):
//   0..<2   value   binary16: sign 1 bit, exponent 5 bits, mantissa 10 bits
//
// Widening is exact. It is done with integer bit moves rather than `Float(Float16)` because the
// hardware conversion (F16C) quiets signalling NaNs, while ggml and the reference keep the NaN
// payload bit for bit (mantissa shifted up by 13).

/// IEEE 754 half-precision floats.
public enum F16: BlockFormat {
    public static let type = GGMLType.f16
    public static let weightsPerBlock = 1
    public static let bytesPerBlock = 2

    static let valueOffset = 0

    public static let layout = [BlockField("value", at: valueOffset, bytes: 2, .values)]

    public static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for i in 0..<count {
            destination[i] = float(bits: source.loadUnaligned(fromByteOffset: i * bytesPerBlock, as: UInt16.self))
        }
    }

    /// Widens the binary16 bit pattern `h` to a `Float`, keeping NaN payloads.
    @inline(__always)
    static func float(bits h: UInt16) -> Float {
        let sign = UInt32(h & 0x8000) << 16
        let exponent = UInt32(h >> 10) & 0x1F
        let mantissa = UInt32(h & 0x3FF)
        switch exponent {
        case 0x1F:  // infinity or NaN: all-ones exponent, payload moved to the top of the mantissa
            return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
        case 0:  // zero or subnormal: mantissa · 2^−24, exact in binary32
            return Float(bitPattern: sign | (Float(mantissa) * 0x1p-24).bitPattern)
        default:  // normal: rebias the exponent from 15 to 127
            return Float(bitPattern: sign | (exponent + 112) << 23 | mantissa << 13)
        }
    }
}
