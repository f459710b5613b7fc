import PocketGGUF
public enum Q4_1: BlockFormat {
    public static let type = GGMLType.q4_1
    public static let weightsPerBlock = 32
    public static let bytesPerBlock = 20
    public static func dequantize(_ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>) {
        for b in 0..<count {
            let p = source + b * 20
            let d = Float(p.loadUnaligned(as: Float16.self)), m = Float(p.loadUnaligned(fromByteOffset: 2, as: Float16.self))
            for i in 0..<16 {
                let byte = p.load(fromByteOffset: 4 + i, as: UInt8.self)
                destination[b * 32 + i] = Float(byte & 0xF) * d + m
                destination[b * 32 + i + 16] = Float(byte >> 4) * d + m
            }
        }
    }
}
