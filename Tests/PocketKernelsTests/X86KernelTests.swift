// The x86 kernels (Formats/*+X86.swift, on AVX-512 VNNI, AVX2 or SSE2) against the scalar references and the
// portable kernels. Compiled where the build machine has the instructions (POCKET_X86_KERNELS);
// the portable build runs the portable kernels' own tests instead.

#if POCKET_X86_KERNELS
import PocketGGUF
import PocketKernels
import Testing

@Suite struct X86KernelTests {
    struct Case: CustomStringConvertible, Sendable {
        let type: GGMLType
        let format: any QuantizedDotFormat.Type
        let kernel: any DotKernel.Type
        /// Byte offsets of the block's fp16 fields (set to moderate values).
        let halfOffsets: [Int]
        /// Whether the kernel keeps the portable kernel's float operations exactly.
        let bitIdenticalToPortable: Bool
        var description: String { type.name }
    }

    /// Every row of the format table whose kernel on this build is not the portable one.
    static let cases: [Case] = integerDotFormats.compactMap { entry in
        guard let kernel = BlockFormats.kernel(for: entry.type), kernel != entry.format else { return nil }
        // Only Q4_1's kernel keeps the portable kernel's float operations (llama.cpp's order).
        return Case(type: entry.type, format: entry.format, kernel: kernel, halfOffsets: entry.halfOffsets,
                    bitIdenticalToPortable: entry.type == .q4_1)
    }

    @Test func everyPerISAKernelIsCovered() {
        #expect(Set(Self.cases.map(\.type)) == [.q4_0, .q8_0, .q4_1, .q5_0, .q5_1, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_nl, .iq4_xs,
                                                       .iq2_xxs, .iq2_xs, .iq2_s, .iq3_xxs, .iq3_s])
    }

    /// Rows of random blocks, activations quantized into every layout, and the columns.
    static func fixture(_ c: Case, rows: Int, tokens: Int, seed: UInt64) -> (bytes: [UInt8], a: Q8Activations, columns: Int) {
        let columns = c.type.blockSize == 256 ? 1024 : 352
        var rng = TestRandom(seed: seed)
        var bytes = (0..<(rows * c.type.byteCount(elements: columns)!)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        setHalves(&bytes, c.type, c.halfOffsets) { Float.random(in: -0.05...0.05, using: &rng) }
        let x = randomActivations(tokens: tokens, columns: columns, seed: seed &+ 1)
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: tokens, columns: columns) }
        return (bytes, a, columns)
    }

    @Test(arguments: cases)
    func kernelMatchesScalarReference(_ c: Case) {
        let rows = 8
        let (bytes, a, columns) = Self.fixture(c, rows: rows, tokens: 1, seed: 101)
        let rowBytes = c.type.byteCount(elements: columns)!
        bytes.withUnsafeBytes { raw in
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let fast = c.kernel.dot(row: row, a.vector(token: 0), blocks: columns / 32)
                let reference = c.format.dotReference(row: row, a.vector(token: 0), blocks: columns / 32)
                // Both sum the same exact integers; only the float order differs.
                let scale = Self.magnitude(c, row: row, a, columns: columns)
                #expect(abs(Double(fast) - Double(reference)) <= 1e-6 * scale, "row \(r): \(fast) vs \(reference)")
                if c.bitIdenticalToPortable {
                    #expect(fast == c.format.dot(row: row, a.vector(token: 0), blocks: columns / 32), "row \(r)")
                }
            }
        }
    }

    @Test(arguments: cases)
    func fourVectorsMatchOneAtATime(_ c: Case) {
        let rows = 5
        let (bytes, a, columns) = Self.fixture(c, rows: rows, tokens: 4, seed: 202)
        let rowBytes = c.type.byteCount(elements: columns)!
        bytes.withUnsafeBytes { raw in
            for r in 0..<rows {
                let row = raw.baseAddress! + r * rowBytes
                let v = (a.vector(token: 0), a.vector(token: 1), a.vector(token: 2), a.vector(token: 3))
                let four = c.kernel.dot4(row: row, v, blocks: columns / 32)
                let single = [v.0, v.1, v.2, v.3].map { c.kernel.dot(row: row, $0, blocks: columns / 32) }
                for t in 0..<4 { #expect(four[t] == single[t], "row \(r) token \(t)") }
            }
        }
    }

    @Test(arguments: cases)
    func tilesMatchFourVectorProducts(_ c: Case) {
        // dot4x4 gives each row exactly its dot4 (an odd number of 32-weight blocks exercises
        // the tiles' last-block path).
        let rows = 8
        let (bytes, a, columns) = Self.fixture(c, rows: rows, tokens: 4, seed: 252)
        let rowBytes = c.type.byteCount(elements: columns)!
        bytes.withUnsafeBytes { raw in
            let v = (a.vector(token: 0), a.vector(token: 1), a.vector(token: 2), a.vector(token: 3))
            for first in stride(from: 0, to: rows, by: 4) {
                let rowsStart = raw.baseAddress! + first * rowBytes
                let tile = c.kernel.dot4x4(rows: rowsStart, rowBytes: rowBytes, v, blocks: columns / 32)
                for (i, four) in [tile.0, tile.1, tile.2, tile.3].enumerated() {
                    let expected = c.kernel.dot4(row: rowsStart + i * rowBytes, v, blocks: columns / 32)
                    for t in 0..<4 {
                        #expect(four[t].bitPattern == expected[t].bitPattern, "row \(first + i) token \(t): \(four[t]) vs \(expected[t])")
                    }
                }
            }
        }
    }

    @Test(arguments: cases)
    func wrongActivationsWouldBeCaught(_ c: Case) {
        // The comparison above must be able to fail: the kernel fed another token's activations
        // lands far outside the tolerance.
        let (bytes, a, columns) = Self.fixture(c, rows: 1, tokens: 2, seed: 303)
        bytes.withUnsafeBytes { raw in
            let row = raw.baseAddress!
            let wrong = c.kernel.dot(row: row, a.vector(token: 1), blocks: columns / 32)
            let reference = c.format.dotReference(row: row, a.vector(token: 0), blocks: columns / 32)
            #expect(abs(Double(wrong) - Double(reference)) > 1e-6 * Self.magnitude(c, row: row, a, columns: columns))
        }
    }

    @Test func planeOrderIsAPermutationKeepingSubBlocksTogether() {
        let positions = (0..<256).map(Q8Activations.planeOrderPosition)
        #expect(Set(positions).count == 256 && positions.allSatisfy { (0..<256).contains($0) })
        for s in 0..<16 { #expect((0..<16).allSatisfy { positions[16 * s + $0] == positions[16 * s] + $0 }) }
    }

    @Test func superBytesHoldTheSuperBlockValues() {
        // The plane-ordered bytes and the Int16 super-block layout hold the same quantized values.
        let x = randomActivations(tokens: 1, columns: 512, seed: 404)
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: 512) }
        for i in 0..<512 {
            let block = 256 * (i / 256)
            #expect(Int16(a.superBytes(token: 0)[block + Q8Activations.planeOrderPosition(i % 256)])
                    == a.superValues(token: 0)[block + Q8Activations.superBlockPosition(i % 256)], "value \(i)")
        }
    }

    /// `Σ |w_i| · |x_i|` (decoded weights, the activation vector rebuilt from its plain bytes):
    /// the scale of the float rounding any summation order can introduce.
    static func magnitude(_ c: Case, row: UnsafeRawPointer, _ a: Q8Activations, columns: Int) -> Double {
        var w = [Float](repeating: 0, count: columns)
        w.withUnsafeMutableBufferPointer {
            BlockFormats.format(for: c.type)!.dequantize(row, blocks: columns / c.type.blockSize, into: $0.baseAddress!)
        }
        var total = 0.0
        for i in 0..<columns {
            let value = Double(a.bytes(token: 0)[i]) * Double(a.scales(token: 0)[i / 32])
            total += abs(Double(w[i]) * value)
        }
        return total
    }
}
#endif
