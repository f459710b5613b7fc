import PocketGGUF
import PocketKernels
import Testing

/// Row decoding and the dequantizing matrix-product fallback, for every format in the table.
@Suite struct WeightMatrixTests {
    @Test(arguments: BlockFormats.all.map { $0.type })
    func dequantizeRowMatchesReference(type: GGMLType) throws {
        let (fixture, blocks, expected) = try DequantFixtures.load(type)
        let rows = 4
        let columns = fixture.weights / rows
        var decoded = [Float](repeating: 0, count: columns)
        try blocks.withUnsafeBytes { raw in
            let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
            for r in 0..<rows {
                w.dequantizeRow(r, into: &decoded)
                let differing = (0..<columns).filter {
                    decoded[$0].bitPattern != expected[r * columns + $0].bitPattern
                }
                #expect(differing.isEmpty, "\(type) row \(r): \(differing.count) weights differ, first at \(differing.first ?? 0)")
            }
        }
    }

    @Test(arguments: BlockFormats.all.map { $0.type })
    func matrixProductAgreesWithReference(type: GGMLType) throws {
        // Quantized formats use the fixture's blocks; float formats are encoded here from
        // finite random values, since their fixtures hold NaN and infinity on purpose.
        let rows = 4, tokens = 2
        let bytes: [UInt8]
        let columns: Int
        switch type {
        case .f32, .f16, .bf16:
            columns = 512
            bytes = Self.floatBytes(type, count: rows * columns)
        default:
            let (fixture, blocks, _) = try DequantFixtures.load(type)
            columns = fixture.weights / rows
            bytes = blocks
        }
        var rng = SplitMix64(seed: 11)
        let x = (0..<(tokens * columns)).map { _ in Float.random(in: -1...1, using: &rng) }
        var fast = [Float](repeating: .nan, count: tokens * rows)
        var reference = fast
        try bytes.withUnsafeBytes { raw in
            let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
            MatrixMultiply.multiply(w, x, tokens: tokens, into: &fast, scratch: Q8Activations(), pool: ThreadPool(threads: 2))
            MatrixMultiply.multiplyReference(w, x, tokens: tokens, into: &reference)
            // Tolerance relative to Σ|w·x|: integer kernels quantize the activations to 8 bits.
            var row = [Float](repeating: 0, count: columns)
            for r in 0..<rows {
                w.dequantizeRow(r, into: &row)
                for t in 0..<tokens {
                    var magnitude: Float = 0
                    for c in 0..<columns { magnitude += abs(row[c] * x[t * columns + c]) }
                    let i = t * rows + r
                    #expect(abs(fast[i] - reference[i]) <= 0.02 * magnitude, "\(type) y[\(t)][\(r)]: \(fast[i]) vs \(reference[i])")
                }
            }
        }
    }

    @Test func rejectsTypesWithoutADecoder() {
        let bytes = [UInt8](repeating: 0, count: GGMLType.q8_K.typeSize)
        bytes.withUnsafeBytes { raw -> Void in
            _ = #expect(throws: KernelError.unsupportedType(.q8_K)) {
                try WeightMatrix(type: .q8_K, rows: 1, columns: 256, data: raw.baseAddress!, byteCount: raw.count)
            }
        }
    }

    static func floatBytes(_ type: GGMLType, count: Int) -> [UInt8] {
        var rng = SplitMix64(seed: 5)
        var bytes: [UInt8] = []
        for _ in 0..<count {
            let v = Float.random(in: -1...1, using: &rng)
            switch type {
            case .f16: withUnsafeBytes(of: Float16(v).bitPattern.littleEndian) { bytes += $0 }
            case .bf16: withUnsafeBytes(of: UInt16(v.bitPattern >> 16).littleEndian) { bytes += $0 }
            default: withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 }
            }
        }
        return bytes
    }
}
