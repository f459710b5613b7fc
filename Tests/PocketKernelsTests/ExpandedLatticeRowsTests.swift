// The lattice formats' expanded rows (Formats/LatticeKernel+ExpandedRows.swift): the expansion
// against the formats' scalar dequantization, the kernels against their scalar reference, and
// a batch's product through them against the row kernel and the float reference.

#if POCKET_X86_KERNELS
import PocketGGUF
@testable import PocketKernels
import Testing

@Suite struct ExpandedLatticeRowsTests {
    /// The lattice formats, with their x86 kernels.
    static let kernels: [(type: GGMLType, kernel: any LatticeX86Kernel.Type)] = [
        (.iq2_xxs, IQ2_XXS.X86.self), (.iq2_xs, IQ2_XS.X86.self), (.iq2_s, IQ2_S.X86.self),
        (.iq3_xxs, IQ3_XXS.X86.self), (.iq3_s, IQ3_S.X86.self),
    ]
    static let types = kernels.map(\.type)

    static func kernel(_ type: GGMLType) -> any LatticeX86Kernel.Type {
        kernels.first { $0.type == type }!.kernel
    }

    /// Sixteen random rows of `type`, expanded.
    static func expanded<K: LatticeX86Kernel>(_ kernel: K.Type, _ type: GGMLType, columns: Int, seed: UInt64)
        -> (rows: [UInt8], expanded: UnsafeMutableRawPointer) {
        let rows = randomBlocks(type, rows: 16, columns: columns, seed: seed)
        let blocks = columns / 32
        let expanded = UnsafeMutableRawPointer.allocate(byteCount: ExpandedLatticeRows.groupBytes(K.self, blocks: blocks), alignment: 64)
        rows.withUnsafeBytes {
            ExpandedLatticeRows.expand(K.self, rows: $0.baseAddress!, rowBytes: type.byteCount(elements: columns)!, blocks: blocks, into: expanded)
        }
        return (rows, expanded)
    }

    @Test(arguments: types)
    func everyExpandedWeightTimesItsScaleIsTheDequantizedWeight(type: GGMLType) throws {
        try check(Self.kernel(type), type)
        func check<K: LatticeX86Kernel>(_ kernel: K.Type, _ type: GGMLType) throws {
            let columns = 512, (rows, expanded) = Self.expanded(K.self, type, columns: columns, seed: 11)
            defer { expanded.deallocate() }
            var decoded = [Float](repeating: .nan, count: columns)
            try rows.withUnsafeBytes { raw in
                let matrix = try WeightMatrix(type: type, rows: 16, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
                var mismatches = 0
                for r in 0..<16 {
                    matrix.dequantizeRow(r, into: &decoded)
                    for c in 0..<columns {
                        let w = ExpandedLatticeRows.weight(K.self, expanded, column: c / 32, row: r, c % 32)
                        // Both are exact products of small integers and d: equal, not close.
                        if Float(w.value) * w.scale != decoded[c] { mismatches += 1 }
                    }
                }
                #expect(mismatches == 0)
            }
        }
    }

    @Test(arguments: types)
    func kernelsEqualTheirScalarReferenceBitForBit(type: GGMLType) {
        check(Self.kernel(type), type)
        func check<K: LatticeX86Kernel>(_ kernel: K.Type, _ type: GGMLType) {
            let columns = 768, blocks = columns / 32, (_, expanded) = Self.expanded(K.self, type, columns: columns, seed: 5)
            defer { expanded.deallocate() }
            var rng = TestRandom(seed: 9)
            let x = (0..<(4 * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
            let a = Q8Activations()
            a.quantize(x, tokens: 4, columns: columns, layouts: K.activationLayouts, pool: nil)
            let v = (a.vector(token: 0), a.vector(token: 1), a.vector(token: 2), a.vector(token: 3))
            let four = ExpandedLatticeRows.dot4(K.self, expanded, v, blocks: blocks)
            let sums = [four.0, four.1, four.2, four.3]
            var other = [Float]()  // a wrong reference must be told apart: row 0 against row 1
            for t in 0..<4 {
                let one = ExpandedLatticeRows.dot(K.self, expanded, a.vector(token: t), blocks: blocks)
                for r in 0..<16 {
                    let reference = ExpandedLatticeRows.dotReference(K.self, expanded, row: r, a.vector(token: t), blocks: blocks)
                    #expect(one[r].bitPattern == reference.bitPattern, "token \(t) row \(r): \(one[r]) vs \(reference)")
                    #expect(sums[t][r].bitPattern == reference.bitPattern, "token \(t) row \(r): \(sums[t][r]) vs \(reference)")
                }
                other.append(ExpandedLatticeRows.dotReference(K.self, expanded, row: 1, a.vector(token: t), blocks: blocks))
            }
            #expect((0..<4).contains { sums[$0][0] != other[$0] })
        }
    }

    /// A batch of at least ``ExpandedLatticeRows/minimumTokens`` vectors goes through the
    /// expanded rows (40 rows: two sixteens and eight rows left to the row kernel).
    @Test(arguments: types)
    func batchProductsMatchTheRowKernelAndTheFloatReference(type: GGMLType) throws {
        let rows = 40, columns = 512, tokens = ExpandedLatticeRows.minimumTokens + 5
        let bytes = randomBlocks(type, rows: rows, columns: columns, seed: 23)
        var rng = TestRandom(seed: 3)
        let x = (0..<(tokens * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
        var batch = [Float](repeating: .nan, count: tokens * rows), reference = batch, single = batch
        let pool = ThreadPool(threads: 2)
        let scratch = Q8Activations(), one = Q8Activations()
        try bytes.withUnsafeBytes { raw in
            let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
            MatrixMultiply.multiply(w, x, tokens: tokens, into: &batch, scratch: scratch, pool: pool)
            MatrixMultiply.multiplyReference(w, x, tokens: tokens, into: &reference)
            for t in 0..<tokens {
                x.withUnsafeBufferPointer { x in
                    single.withUnsafeMutableBufferPointer { y in
                        var column = [Float](repeating: .nan, count: rows)
                        MatrixMultiply.multiply(w, x.baseAddress! + t * columns, tokens: 1, into: &column, scratch: one, pool: pool)
                        for r in 0..<rows { y[t * rows + r] = column[r] }
                    }
                }
            }
        }
        let scale = reference.map(abs).max()!
        for i in batch.indices {
            // The same integer products, summed in another order: float rounding only.
            #expect(abs(batch[i] - single[i]) <= 1e-5 * scale, "element \(i): \(batch[i]) vs \(single[i])")
            // The activations rounded to 8 bits against floats.
            #expect(abs(batch[i] - reference[i]) <= 0.02 * scale, "element \(i): \(batch[i]) vs \(reference[i])")
        }
    }
}
#endif
