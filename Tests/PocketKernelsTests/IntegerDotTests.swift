import PocketGGUF
import PocketKernels
import Testing

// Integer dot kernels of every row of `BlockFormats` that has one: the kernels against their
// scalar references, the references against the bit-exact decoders (which checks the
// activations' lane order independently of the kernels), and the matrix products.

/// Every format with an integer kernel, from the format table, with the byte offsets of its
/// fp16 fields (the two-byte scale fields of its layout: `d`, `dmin`, `m`).
let integerDotFormats: [(type: GGMLType, format: any QuantizedDotFormat.Type, halfOffsets: [Int])] =
    BlockFormats.all.compactMap { format in
        guard let dot = format as? any QuantizedDotFormat.Type else { return nil }
        return (format.type, dot, halfFieldOffsets(format.type))
    }

/// Byte offsets of the fp16 fields of a block of `type`: its two-byte scale fields.
func halfFieldOffsets(_ type: GGMLType) -> [Int] {
    BlockFormats.format(for: type)!.layout.filter { $0.role == .scales && $0.byteCount == 2 }.map(\.offset)
}

func dotFormat(_ type: GGMLType) -> (format: any QuantizedDotFormat.Type, halfOffsets: [Int]) {
    let entry = integerDotFormats.first { $0.type == type }!
    return (entry.format, entry.halfOffsets)
}

/// Random blocks of `type` whose fp16 scales are finite and moderate (±0.05).
func randomDotBlocks(_ type: GGMLType, rows: Int, columns: Int, seed: UInt64) -> [UInt8] {
    var rng = TestRandom(seed: seed)
    let count = rows * type.byteCount(elements: columns)!
    var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    setHalves(&bytes, type, dotFormat(type).halfOffsets) { Float.random(in: -0.05...0.05, using: &rng) }
    return bytes
}

/// Overwrites the fp16 fields at `offsets` of every block with `value()`.
func setHalves(_ bytes: inout [UInt8], _ type: GGMLType, _ offsets: [Int], _ value: () -> Float) {
    for base in stride(from: 0, to: bytes.count, by: type.typeSize) {
        for offset in offsets {
            let bits = Float16(value()).bitPattern
            bytes[base + offset] = UInt8(bits & 0xFF)
            bytes[base + offset + 1] = UInt8(bits >> 8)
        }
    }
}

/// `Σ w_i · a_i` and `Σ |w_i · a_i|` in Double, from the bit-exact decoder and the activations'
/// plain (not lane-ordered) values: an independent definition of what every kernel computes.
func dequantizedProduct(_ type: GGMLType, row: UnsafeRawPointer, _ a: Q8Activations, token: Int, columns: Int) -> (sum: Double, magnitude: Double) {
    let w = [Float](unsafeUninitializedCapacity: columns) { buffer, count in
        BlockFormats.format(for: type)!.dequantize(row, blocks: columns / type.blockSize, into: buffer.baseAddress!)
        count = columns
    }
    var sum = 0.0, magnitude = 0.0
    for i in 0..<columns {
        let block = i / 32
        let q = a.values(token: token)[32 * block + Q8Activations.laneOrderIndex(i % 32)]
        let term = Double(w[i]) * Double(a.scales(token: token)[block]) * Double(q)
        sum += term
        magnitude += abs(term)
    }
    return (sum, magnitude)
}

/// Random activations with a few full-scale blocks (every value ±max, so quantized to ±127).
func randomActivations(tokens: Int, columns: Int, seed: UInt64) -> [Float] {
    var rng = TestRandom(seed: seed)
    var x = (0..<(tokens * columns)).map { _ in Float.random(in: -3...3, using: &rng) }
    for b in stride(from: 0, to: tokens * columns / 32, by: 5) {
        let sign: Float = Bool.random(using: &rng) ? 1 : -1
        for i in 0..<32 { x[32 * b + i] = sign * 2 }
    }
    return x
}

@Suite struct IntegerDotTests {
    /// Every format with an integer kernel (the portable kernel; the per-ISA ones are
    /// checked against these references in `X86KernelTests`).
    static let kernelTypes = integerDotFormats.map(\.type)
    /// The formats whose kernels read the activations exactly as `dequantizedProduct` does (one
    /// scale per 32 values, exact sums). Q4_1 reads llama.cpp's fp16-rounded block sums and
    /// Q2_K one scale per 256 values (llama.cpp's Q8_K); `Q2_KKernelTests` and
    /// `MatrixMultiplyTests` check those against the decoders.
    static let exactActivationTypes = integerDotFormats
        .filter { $0.format.activationLayouts.isDisjoint(with: [.pairs, .superBlocks]) }.map(\.type)

    /// Row length for a format's tests: several super-blocks (or an odd number of blocks).
    static func columns(_ type: GGMLType) -> Int { type.blockSize == 256 ? 1024 : 352 }

    @Test(arguments: kernelTypes)
    func kernelMatchesScalarReference(type: GGMLType) {
        // Same quantized activations on both sides: the two compute the same integer sums, so
        // only float summation order differs.
        let rows = 6, columns = Self.columns(type)
        let format = dotFormat(type).format
        let bytes = randomDotBlocks(type, rows: rows, columns: columns, seed: 17)
        let x = randomActivations(tokens: 1, columns: columns, seed: 23)
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: columns) }
        let rowBytes = type.byteCount(elements: columns)!
        bytes.withUnsafeBytes { raw in
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let fast = format.dot(row: row, a.vector(token: 0), blocks: columns / 32)
                let reference = format.dotReference(row: row, a.vector(token: 0), blocks: columns / 32)
                let magnitude = dequantizedProduct(type, row: row, a, token: 0, columns: columns).magnitude
                #expect(abs(Double(fast) - Double(reference)) <= 1e-6 * magnitude, "row \(r): \(fast) vs \(reference)")
            }
        }
    }

    @Test(arguments: exactActivationTypes)
    func referenceMatchesDequantizedWeights(type: GGMLType) {
        // The scalar reference reads weights from the block layout and activations through
        // `Q8Activations.element`; the decoder is bit-exact with gguf-py. Agreement checks the
        // layout and lane-order reading independently of the SIMD code.
        let rows = 4, columns = Self.columns(type)
        let format = dotFormat(type).format
        let bytes = randomDotBlocks(type, rows: rows, columns: columns, seed: 31)
        let x = randomActivations(tokens: 1, columns: columns, seed: 37)
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: columns) }
        let rowBytes = type.byteCount(elements: columns)!
        bytes.withUnsafeBytes { raw in
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let reference = format.dotReference(row: row, a.vector(token: 0), blocks: columns / 32)
                let exact = dequantizedProduct(type, row: row, a, token: 0, columns: columns)
                #expect(abs(Double(reference) - exact.sum) <= 1e-6 * exact.magnitude, "row \(r): \(reference) vs \(exact.sum)")
            }
        }
    }

    @Test(arguments: exactActivationTypes)
    func wrongLaneOrderWouldBeCaught(type: GGMLType) {
        // A kernel that paired weight i with activation element laneOrderIndex(i) (confusing
        // storage position with element) computes the correct kernel's result on activations
        // permuted that way. The comparison used above must reject that result.
        let columns = Self.columns(type)
        let format = dotFormat(type).format
        let bytes = randomDotBlocks(type, rows: 1, columns: columns, seed: 41)
        let x = randomActivations(tokens: 1, columns: columns, seed: 43)
        var permuted = x
        for i in 0..<columns { permuted[i] = x[32 * (i / 32) + Q8Activations.laneOrderIndex(i % 32)] }
        let a = Q8Activations(), wrong = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: columns) }
        permuted.withUnsafeBufferPointer { wrong.quantize($0.baseAddress!, tokens: 1, columns: columns) }
        bytes.withUnsafeBytes { raw in
            let row = raw.baseAddress!
            let exact = dequantizedProduct(type, row: row, a, token: 0, columns: columns)
            let right = format.dot(row: row, a.vector(token: 0), blocks: columns / 32)
            let mismatched = format.dot(row: row, wrong.vector(token: 0), blocks: columns / 32)
            #expect(abs(Double(right) - exact.sum) <= 1e-6 * exact.magnitude)
            #expect(abs(Double(mismatched) - exact.sum) > 1e-3 * exact.magnitude, "\(mismatched) vs \(exact.sum)")
        }
    }

    @Test(arguments: exactActivationTypes)
    func extremeBlocksStayExact(type: GGMLType) {
        // All-zero and all-one bits (the largest weights of either sign) against full-scale
        // activations of both signs: the integer lanes reach their largest magnitudes, which
        // must still convert to floats exactly.
        let columns = 512
        let format = dotFormat(type)
        let rowBytes = type.byteCount(elements: columns)!
        for fill in [UInt8(0x00), 0xFF, 0xAA] {
            var bytes = [UInt8](repeating: fill, count: rowBytes)
            setHalves(&bytes, type, format.halfOffsets) { 1 }
            for sign in [Float(1), -1] {
                let x = [Float](repeating: sign, count: columns)
                let a = Q8Activations()
                x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: columns) }
                bytes.withUnsafeBytes { raw in
                    let fast = format.format.dot(row: raw.baseAddress!, a.vector(token: 0), blocks: columns / 32)
                    let exact = dequantizedProduct(type, row: raw.baseAddress!, a, token: 0, columns: columns)
                    #expect(abs(Double(fast) - exact.sum) <= 1e-6 * exact.magnitude, "fill \(fill) sign \(sign): \(fast) vs \(exact.sum)")
                }
            }
        }
    }

    @Test(arguments: kernelTypes)
    func fourVectorKernelEqualsFourSingleProducts(type: GGMLType) {
        // dot4 performs each vector's operations in the same order as dot: bit for bit.
        let rows = 3, columns = Self.columns(type)
        let format = dotFormat(type).format
        let bytes = randomDotBlocks(type, rows: rows, columns: columns, seed: 53)
        let x = randomActivations(tokens: 4, columns: columns, seed: 59)
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 4, columns: columns) }
        let rowBytes = type.byteCount(elements: columns)!
        bytes.withUnsafeBytes { raw in
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let four = format.dot4(
                    row: row, (a.vector(token: 0), a.vector(token: 1), a.vector(token: 2), a.vector(token: 3)),
                    blocks: columns / 32)
                for t in 0..<4 {
                    let single = format.dot(row: row, a.vector(token: t), blocks: columns / 32)
                    #expect(four[t].bitPattern == single.bitPattern, "row \(r) token \(t): \(four[t]) vs \(single)")
                }
            }
        }
    }

    @Test(arguments: kernelTypes, [1, 3, 7])
    func matrixProductMatchesReference(type: GGMLType, tokens: Int) throws {
        // Through MatrixMultiply's dispatch (dot4 for each four tokens, then dot), against the
        // float reference without activation quantization; several row lengths.
        for columns in type.blockSize == 256 ? [256, 768, 2048] : [32, 160, 1024] {
            let rows = 19
            let bytes = randomDotBlocks(type, rows: rows, columns: columns, seed: UInt64(columns + tokens))
            let x = randomActivations(tokens: tokens, columns: columns, seed: UInt64(7 * columns))
            var fast = [Float](repeating: .nan, count: tokens * rows)
            var reference = [Float](repeating: .nan, count: tokens * rows)
            try bytes.withUnsafeBytes { raw in
                let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
                MatrixMultiply.multiply(w, x, tokens: tokens, into: &fast, scratch: Q8Activations(), pool: ThreadPool(threads: 2))
                MatrixMultiply.multiplyReference(w, x, tokens: tokens, into: &reference)
            }
            // 8-bit activations: an error of at most half a step (max|x|/254) per element.
            let bound = reference.map(abs).max()!
            for i in fast.indices {
                #expect(abs(fast[i] - reference[i]) <= 0.02 * bound, "\(columns) columns, element \(i): \(fast[i]) vs \(reference[i])")
            }
        }
    }

    @Test func halfConversionIsExact() {
        // Every fp16 bit pattern, against the hardware conversion.
        for bits in 0...UInt16.max {
            let expected = Float(Float16(bitPattern: bits))
            let converted = withUnsafeBytes(of: bits.littleEndian) { IntegerLanes.half($0.baseAddress!, 0) }
            if expected.isNaN {
                #expect(converted.isNaN, "\(bits)")
            } else {
                #expect(converted.bitPattern == expected.bitPattern, "\(bits): \(converted) vs \(expected)")
            }
        }
    }
}
