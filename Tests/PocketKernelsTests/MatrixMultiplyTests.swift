import PocketGGUF
import PocketKernels
import Testing

/// Random blocks of a format with finite, moderate fp16 scales, from a fixed seed.
func randomBlocks(_ type: GGMLType, rows: Int, columns: Int, seed: UInt64) -> [UInt8] {
    var rng = TestRandom(seed: seed)
    let rowBytes = type.byteCount(elements: columns)!
    var bytes = (0..<(rows * rowBytes)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    if type == .f32 {
        for i in 0..<(rows * columns) {
            let v = Float.random(in: -1...1, using: &rng)
            withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.replaceSubrange(4 * i..<(4 * i + 4), with: $0) }
        }
        return bytes
    }
    // Overwrite every block's fp16 scales with sane values.
    let scaleOffsets = halfFieldOffsets(type)
    let blocks = rows * rowBytes / type.typeSize
    for b in 0..<blocks {
        let base = b * type.typeSize
        for offset in scaleOffsets {
            let value = Float16(Float.random(in: -0.05...0.05, using: &rng))
            withUnsafeBytes(of: value.bitPattern.littleEndian) {
                bytes.replaceSubrange((base + offset)..<(base + offset + 2), with: $0)
            }
        }
    }
    return bytes
}

/// The integer-kernel format of a GGML type (Q8_0 for anything not listed).
func integerFormat(_ type: GGMLType) -> any QuantizedDotFormat.Type {
    switch type {
    case .q4_1: Q4_1.self
    case .q2_K: Q2_K.self
    default: Q8_0.self
    }
}

@Suite struct MatrixMultiplyTests {
    /// Every format with an integer kernel, and F32.
    static let types: [GGMLType] = integerDotFormats.map(\.type) + [.f32]

    @Test func reusedActivationsGiveTheSameProductAndOnlyForTheSameInput() throws {
        // `inputUnchanged` reuses the quantized activations of the previous product only when
        // they were read from the same vectors in the layouts this format needs.
        let rows = 19, columns = 256, tokens = 3
        let w1 = randomBlocks(.q8_0, rows: rows, columns: columns, seed: 1)
        let w2 = randomBlocks(.q2_K, rows: rows, columns: columns, seed: 2)
        var rng = TestRandom(seed: 9)
        let x = (0..<(tokens * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
        let other = (0..<(tokens * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
        let pool = ThreadPool(threads: 2)
        func product(_ bytes: [UInt8], _ type: GGMLType, _ input: UnsafePointer<Float>, _ scratch: Q8Activations, reuse: Bool) throws -> [Float] {
            var y = [Float](repeating: .nan, count: tokens * rows)
            try bytes.withUnsafeBytes { raw in
                let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
                MatrixMultiply.multiply(w, input, tokens: tokens, into: &y, scratch: scratch, pool: pool, inputUnchanged: reuse)
            }
            return y
        }
        try x.withUnsafeBufferPointer { xs in
            try other.withUnsafeBufferPointer { os in
                let fresh = try product(w2, .q2_K, xs.baseAddress!, Q8Activations(), reuse: false)
                let freshOther = try product(w2, .q2_K, os.baseAddress!, Q8Activations(), reuse: false)
                let scratch = Q8Activations()
                _ = try product(w1, .q8_0, xs.baseAddress!, scratch, reuse: false)
                // Same input: the Q2_K product (which may need other layouts) equals a fresh one.
                #expect(try product(w2, .q2_K, xs.baseAddress!, scratch, reuse: true) == fresh)
                // Another input: the promise does not apply, the activations are quantized anew.
                #expect(try product(w2, .q2_K, os.baseAddress!, scratch, reuse: true) == freshOther)
                #expect(fresh != freshOther)
            }
        }
    }

    @Test(arguments: types, [1, 3, 7])
    func simdMatchesScalarReference(type: GGMLType, tokens: Int) throws {
        let rows = 37, columns = 256
        let bytes = randomBlocks(type, rows: rows, columns: columns, seed: 42 + UInt64(tokens))
        var rng = TestRandom(seed: 7)
        let x = (0..<(tokens * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
        var fast = [Float](repeating: .nan, count: tokens * rows)
        var reference = [Float](repeating: .nan, count: tokens * rows)
        let pool = ThreadPool(threads: 2)
        let scratch = Q8Activations()
        try bytes.withUnsafeBytes { raw in
            let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
            MatrixMultiply.multiply(w, x, tokens: tokens, into: &fast, scratch: scratch, pool: pool)
            MatrixMultiply.multiplyReference(w, x, tokens: tokens, into: &reference)
        }
        // The fast path rounds activations to 8 bits for quantized formats: compare with a
        // tolerance relative to the magnitude of the row's terms.
        let scale = reference.map(abs).max()!
        let tolerance: Float = type == .f32 ? 1e-4 * scale : 0.02 * scale
        for i in fast.indices {
            #expect(abs(fast[i] - reference[i]) <= tolerance, "element \(i): \(fast[i]) vs \(reference[i])")
        }
    }

    @Test(arguments: [GGMLType.q4_1, .q8_0, .q2_K])
    func integerKernelMatchesItsScalarReference(type: GGMLType) throws {
        // Same quantized activations on both sides: the SIMD and scalar integer kernels must
        // agree to float rounding (only the summation order differs).
        let rows = 5, columns = 512
        let bytes = randomBlocks(type, rows: rows, columns: columns, seed: 99)
        var rng = TestRandom(seed: 3)
        let x = (0..<columns).map { _ in Float.random(in: -3...3, using: &rng) }
        let activations = Q8Activations()
        x.withUnsafeBufferPointer { activations.quantize($0.baseAddress!, tokens: 1, columns: columns) }
        let format = integerFormat(type)
        bytes.withUnsafeBytes { raw in
            let rowBytes = type.byteCount(elements: columns)!
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let a = format.dot(row: row, activations.vector(token: 0), blocks: columns / 32)
                let b = format.dotReference(row: row, activations.vector(token: 0), blocks: columns / 32)
                #expect(abs(a - b) <= 1e-5 * max(1, abs(b)), "row \(r): \(a) vs \(b)")
            }
        }
    }

    @Test(arguments: [GGMLType.q4_1, .q8_0, .q2_K])
    func fourVectorKernelMatchesFourSingleProducts(type: GGMLType) throws {
        let rows = 3, columns = 512
        let bytes = randomBlocks(type, rows: rows, columns: columns, seed: 5)
        var rng = TestRandom(seed: 11)
        let x = (0..<(4 * columns)).map { _ in Float.random(in: -3...3, using: &rng) }
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 4, columns: columns) }
        let format = integerFormat(type)
        bytes.withUnsafeBytes { raw in
            let rowBytes = type.byteCount(elements: columns)!
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let four = format.dot4(
                    row: row, (a.vector(token: 0), a.vector(token: 1), a.vector(token: 2), a.vector(token: 3)),
                    blocks: columns / 32)
                for t in 0..<4 {
                    let single = format.dot(row: row, a.vector(token: t), blocks: columns / 32)
                    if type == .q2_K {
                        #expect(abs(four[t] - single) <= 1e-5 * max(1, abs(single)), "row \(r) token \(t): \(four[t]) vs \(single)")
                    } else {
                        // Q4_1 and Q8_0 keep llama.cpp's summation order: bit for bit.
                        #expect(four[t].bitPattern == single.bitPattern, "row \(r) token \(t): \(four[t]) vs \(single)")
                    }
                }
            }
        }
    }

    @Test func activationQuantizationRoundsLikeTheReference() {
        // d = max|x|/127; q = round-half-away(x/d); values stored in lane order.
        var x = [Float](repeating: 0, count: 32)
        for i in 0..<32 { x[i] = Float(i - 16) * 0.5 }   // max |x| = 8 at i = 0
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: 32) }
        let d: Float = 8.0 / 127
        #expect(a.scales(token: 0)[0] == Float(Float16(d)))
        for i in 0..<32 {
            let expected = Int32((x[i] / d).rounded(.toNearestOrAwayFromZero))
            #expect(a.values(token: 0)[Q8Activations.laneOrderIndex(i)] == expected)
        }
        // Half-block sums: the scale times the sum of each half's quantized values.
        for half in 0..<2 {
            let q = (0..<16).map { Int32((x[16 * half + $0] / d).rounded(.toNearestOrAwayFromZero)) }
            #expect(a.halfSums(token: 0)[Q8Activations.halfSumIndex(half)] == a.scales(token: 0)[0] * Float(q.reduce(0, +)))
        }
        // Lane order is a permutation of 0..<32.
        #expect(Set((0..<32).map(Q8Activations.laneOrderIndex)) == Set(0..<32))
    }

    @Test func rejectsShapesThatDoNotMatchTheBytes() {
        let bytes = [UInt8](repeating: 0, count: 40)
        bytes.withUnsafeBytes { raw in
            #expect(throws: KernelError.self) {
                try WeightMatrix(type: .q4_1, rows: 3, columns: 32, data: raw.baseAddress!, byteCount: raw.count)
            }
            #expect(throws: KernelError.self) {
                try WeightMatrix(type: .q4_1, rows: 1, columns: 48, data: raw.baseAddress!, byteCount: raw.count)
            }
            #expect(throws: KernelError.unsupportedType(.q8_K)) {
                try WeightMatrix(type: .q8_K, rows: 1, columns: 256, data: raw.baseAddress!, byteCount: 292)
            }
        }
    }
}
