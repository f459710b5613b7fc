// F16 encoding: each float rounded to half precision (nearest, ties to even), as numpy's
// `astype(float16)` does; magnitudes beyond 65504 become infinities.

extension F16: QuantizableFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (1, 1)

    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        for i in 0..<count { destination.storeHalf(source[i], at: i * bytesPerBlock) }
    }
}
