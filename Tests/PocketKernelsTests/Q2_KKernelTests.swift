import PocketGGUF
import PocketKernels
import Testing

/// The Q2_K integer kernel on inputs where every step is exact, so any misplaced weight,
/// activation, scale or min shows up as a wrong integer.
@Suite struct Q2_KKernelTests {
    /// One super-block with `d = 1`, `dmin = 1/2` and pseudo-random 2-bit values, scales and mins.
    func block(seed: UInt64) -> [UInt8] {
        var rng = TestRandom(seed: seed)
        var bytes = (0..<84).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes.replaceSubrange(80..<84, with: [0x00, 0x3C, 0x00, 0x38])   // fp16 1.0, 0.5
        return bytes
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func dotIsExactOnIntegerActivations(seed: UInt64) {
        let bytes = (0..<2).flatMap { block(seed: seed * 10 + UInt64($0)) }
        var decoded = [Float](repeating: 0, count: 512)
        bytes.withUnsafeBytes { Q2_K.dequantize($0.baseAddress!, blocks: 2, into: &decoded) }
        // Integers in -127…127 with 127 present in each super-block quantize to themselves.
        var rng = TestRandom(seed: seed)
        var x = (0..<512).map { _ in Float(Int.random(in: -127...127, using: &rng)) }
        x[17] = 127; x[300] = -127
        let expected = zip(decoded, x).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 4, columns: 128) }
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: 512) }
        bytes.withUnsafeBytes { raw in
            let v = a.vector(token: 0)
            let fast = Q2_K.dot(row: raw.baseAddress!, v, blocks: 16)
            let reference = Q2_K.dotReference(row: raw.baseAddress!, v, blocks: 16)
            #expect(Double(fast) == expected, "SIMD \(fast) vs exact \(expected)")
            #expect(Double(reference) == expected, "reference \(reference) vs exact \(expected)")
        }
    }
}
