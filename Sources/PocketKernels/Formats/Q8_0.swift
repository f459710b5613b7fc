import PocketGGUF
public enum Q8_0: BlockFormat {
    public static let type = GGMLType.q8_0
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 34
    public static func dequantize(_ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>) {
        for b in 0..<count {
            let p = source + b * 34
            let d = Float(p.loadUnaligned(as: Float16.self))
            for i in 0..<32 { destination[b * 32 + i] = Float(p.load(fromByteOffset: 2 + i, as: Int8.self)) * d }
        }
    }
}
