// F32 encoding: a byte copy, so every float (NaN payloads included) is kept.

extension F32: QuantizableFormat {
    public static let fileTypes: (pure: UInt32, mixed: UInt32) = (0, 0)

    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        destination.copyMemory(from: source, byteCount: count * bytesPerBlock)
    }
}
