import PocketGGUF
import PocketKernels
import Testing

/// The row groups (RowGroups.swift, Formats/*+RowGroups.swift): the repacked copy is the same
/// blocks, the scalar reference of the row-group kernels is the format's product, and (on the
/// x86 tiers: AVX-512 VNNI, AVX2 or SSE2) the kernels and the matrix products that use them
/// equal that reference bit for bit.
@Suite struct RowGroupsTests {
    struct Case: CustomStringConvertible, Sendable {
        let format: any RowGroupFormat.Type
        var type: GGMLType { format.type }
        var description: String { type.name }
        /// Columns of the test matrices: 11 blocks of 32, or 3 super-blocks of 256.
        var columns: Int { type.blockSize == 256 ? 768 : 352 }
        /// The format as a 32-weight word format, when it is one.
        var words: (any WordGroupFormat.Type)? { format as? any WordGroupFormat.Type }
    }

    /// Every row of the format table that can be grouped.
    static let cases: [Case] = BlockFormats.all.compactMap { ($0 as? any RowGroupFormat.Type).map(Case.init) }

    @Test func theTenFormatsCanBeGrouped() {
        #expect(Set(Self.cases.map(\.type)) == [.q2_K, .q4_K, .q6_K, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .iq4_nl, .iq4_xs])
    }

    /// The 32-weight formats.
    static let wordCases = cases.filter { $0.words != nil }

    /// 48 rows (three groups).
    static let rows = 48

    /// A matrix of random blocks of `c`'s format over `bytes`.
    static func withMatrix<R>(_ c: Case, seed: UInt64, rows: Int = rows, _ body: (WeightMatrix, [UInt8]) throws -> R) throws -> R {
        let bytes = randomBlocks(c.type, rows: rows, columns: c.columns, seed: seed)
        return try bytes.withUnsafeBytes { raw in
            try body(WeightMatrix(type: c.type, rows: rows, columns: c.columns, data: raw.baseAddress!, byteCount: raw.count), bytes)
        }
    }

    @Test(arguments: cases)
    func groupsHoldTheSameBlocks(_ c: Case) throws {
        try Self.withMatrix(c, seed: 11) { matrix, bytes in
            func check<F: RowGroupFormat>(_ format: F.Type) {
                let groups = RowGroups(F.self, matrix, pool: ThreadPool(threads: 2))
                #expect(groups.groups == 3 && groups.blocks == c.columns / F.weightsPerBlock && groups.groupBytes * 3 == bytes.count)
                var block = [UInt8](repeating: 0, count: F.bytesPerBlock)
                for r in 0..<Self.rows {
                    for b in 0..<groups.blocks {
                        block.withUnsafeMutableBytes { groups.copyBlock(F.self, row: r, block: b, into: $0.baseAddress!) }
                        let start = r * matrix.rowBytes + b * F.bytesPerBlock
                        #expect(block == Array(bytes[start..<start + F.bytesPerBlock]), "row \(r) block \(b)")
                    }
                }
            }
            check(c.format)
        }
    }

    @Test(arguments: wordCases)
    func groupWordsRoundTrip(_ c: Case) {
        let format = c.words!
        var rng = TestRandom(seed: 5)
        for _ in 0..<200 {
            var words = SIMD8<UInt32>()
            for k in 0..<format.wordCount { words[k] = UInt32.random(in: .min ... .max, using: &rng) }
            #expect(format.blockWords(format.groupWords(words)) == words)
        }
    }

    @Test(arguments: wordCases)
    func unsignedWeightsDecodeLikeTheFormat(_ c: Case) throws {
        let format = c.words!
        // d·(q − offset), or d·q + m: the weights the reference multiplies are the format's.
        try Self.withMatrix(c, seed: 12, rows: 16) { matrix, bytes in
            var decoded = [Float](repeating: 0, count: c.columns)
            for r in 0..<16 {
                decoded.withUnsafeMutableBufferPointer { matrix.dequantizeRow(r, into: $0.baseAddress!) }
                for b in 0..<(c.columns / 32) {
                    let block = matrix.row(r) + b * format.bytesPerBlock
                    let q = format.unsignedWeights(block)
                    let d = Float(block.loadUnaligned(as: Float16.self))
                    let m = format.halfCount == 2 ? Float(block.loadUnaligned(fromByteOffset: 2, as: Float16.self)) : 0
                    for i in 0..<32 {
                        let expected = format.halfCount == 2
                            ? d * Float(q[i]) + m : d * Float(Int32(q[i]) - format.weightOffset)
                        #expect(decoded[32 * b + i] == expected, "row \(r) weight \(32 * b + i)")
                    }
                }
            }
        }
    }

    @Test(arguments: cases)
    func referenceIsTheFormatsProduct(_ c: Case) throws {
        // The reference of the row-group kernels sums the same integers as the format's own
        // reference (which reads the row-by-row layout); only the float order differs.
        let a = Q8Activations()
        let x = randomActivations(tokens: 1, columns: c.columns, seed: 13)
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: c.columns) }
        try Self.withMatrix(c, seed: 14) { matrix, _ in
            func check<F: RowGroupFormat>(_ format: F.Type) {
                let groups = RowGroups(F.self, matrix, pool: nil)
                let dot = integerDotFormats.first { $0.type == F.type }!.format
                for r in 0..<Self.rows {
                    let grouped = F.groupDotReference(groups.group(r / 16), row: r % 16, a.vector(token: 0), blocks: groups.blocks)
                    let plain = dot.dotReference(row: matrix.row(r), a.vector(token: 0), blocks: c.columns / 32)
                    #expect(abs(grouped - plain) <= 1e-4 * max(1, abs(plain)), "row \(r): \(grouped) vs \(plain)")
                }
            }
            check(c.format)
        }
    }

    @Test func q4_1KeepsLlamaCppsOrder() throws {
        // Q4_1's row-group reference (and so its kernel) is the format's own product, which
        // follows llama.cpp's float order, bit for bit (the golden greedy tests rely on it).
        let a = Q8Activations()
        let c = Case(format: Q4_1.self)
        let x = randomActivations(tokens: 1, columns: c.columns, seed: 23)
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: c.columns) }
        try Self.withMatrix(c, seed: 24) { matrix, _ in
            let groups = RowGroups(Q4_1.self, matrix, pool: nil)
            for r in 0..<Self.rows {
                #expect(Q4_1.groupDotReference(groups.group(r / 16), row: r % 16, a.vector(token: 0), blocks: groups.blocks)
                        == Q4_1.dot(row: matrix.row(r), a.vector(token: 0), blocks: groups.blocks), "row \(r)")
            }
        }
    }

    @Test func matricesWithoutWholeGroupsAreNotGrouped() throws {
        try Self.withMatrix(Case(format: Q8_0.self), seed: 15, rows: 40) { matrix, _ in
            #expect(matrix.withRowGroups().rowGroups == nil)
        }
        let bytes = randomBlocks(.q5_K, rows: 16, columns: 256, seed: 16)
        try bytes.withUnsafeBytes { raw in
            let matrix = try WeightMatrix(type: .q5_K, rows: 16, columns: 256, data: raw.baseAddress!, byteCount: raw.count)
            #expect(matrix.withRowGroups().rowGroups == nil)
        }
    }

    #if POCKET_X86_KERNELS
    @Test(arguments: [GGMLType.q4_1, .q5_1])
    func formatsWithAMinimumGiveTheRowKernelsBits(_ type: GGMLType) throws {
        // Q4_1's and Q5_1's row-group reference (and so their kernels) is their x86 row
        // kernel's product bit for bit (llama.cpp's lanes): a grouped matrix gives the same
        // results as the rows. Fed another token's activations, the two must differ.
        let a = Q8Activations()
        let c = try #require(Self.cases.first { $0.type == type })
        let x = randomActivations(tokens: 2, columns: c.columns, seed: 29)
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 2, columns: c.columns) }
        let kernel = try #require(BlockFormats.kernel(for: type))
        try Self.withMatrix(c, seed: 30) { matrix, _ in
            func check<F: RowGroupFormat>(_ format: F.Type) {
                let groups = RowGroups(F.self, matrix, pool: nil)
                for r in 0..<Self.rows {
                    let grouped = F.groupDotReference(groups.group(r / 16), row: r % 16, a.vector(token: 0), blocks: groups.blocks)
                    #expect(grouped.bitPattern == kernel.dot(row: matrix.row(r), a.vector(token: 0), blocks: groups.blocks).bitPattern,
                            "row \(r)")
                    #expect(grouped != kernel.dot(row: matrix.row(r), a.vector(token: 1), blocks: groups.blocks), "row \(r)")
                }
            }
            check(c.format)
        }
    }

    @Test(arguments: cases)
    func kernelsEqualTheReference(_ c: Case) throws {
        let a = Q8Activations()
        let x = randomActivations(tokens: 8, columns: c.columns, seed: 17)
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 8, columns: c.columns) }
        let v = (a.vector(token: 0), a.vector(token: 1), a.vector(token: 2), a.vector(token: 3))
        let eight = (0..<8).map { a.vector(token: $0) }
        try Self.withMatrix(c, seed: 18) { matrix, _ in
            let grouped = matrix.withRowGroups()
            let groups = try #require(grouped.rowGroups)
            func check<K: RowGroupKernel>(_ kernel: K.Type) {
                for g in 0..<groups.groups {
                    let one = K.groupDot(groups.group(g), v.0, blocks: groups.blocks)
                    let four = K.groupDot4(groups.group(g), v, blocks: groups.blocks)
                    var sums = [Float](repeating: .nan, count: 8 * 16)  // vector k's sums at 16k
                    eight.withUnsafeBufferPointer { K.groupDot8(groups.group(g), $0.baseAddress!, blocks: groups.blocks, into: &sums, stride: 16) }
                    for r in 0..<16 {
                        func reference(_ t: Int) -> Float {
                            K.Format.groupDotReference(groups.group(g), row: r, a.vector(token: t), blocks: groups.blocks)
                        }
                        #expect(one[r] == reference(0), "group \(g) row \(r)")
                        #expect([four.0[r], four.1[r], four.2[r], four.3[r]] == (0..<4).map(reference), "group \(g) row \(r)")
                        #expect((0..<8).map { sums[16 * $0 + r] } == (0..<8).map(reference), "group \(g) row \(r), eight vectors")
                    }
                }
            }
            let kernel = BlockFormats.kernel(for: c.type) as? any RowGroupKernel.Type
            try #require(kernel != nil)
            check(kernel!)
        }
    }

    /// Tiles of eight vectors (``RowGroupKernel/tileDot8(_:groupBytes:count:_:blocks:into:stride:)``)
    /// equal the reference: five groups (kernels may go column by column from four groups on)
    /// and the first two (group by group).
    @Test(arguments: cases)
    func tilesEqualTheReference(_ c: Case) throws {
        let a = Q8Activations()
        let x = randomActivations(tokens: 8, columns: c.columns, seed: 27)
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 8, columns: c.columns) }
        let eight = (0..<8).map { a.vector(token: $0) }
        let rows = 80
        try Self.withMatrix(c, seed: 28, rows: rows) { matrix, _ in
            let groups = try #require(matrix.withRowGroups().rowGroups)
            func check<K: RowGroupKernel>(_ kernel: K.Type) {
                for count in [5, 2] {
                    var tile = [Float](repeating: .nan, count: 8 * rows)  // vector k's sums at 80k
                    eight.withUnsafeBufferPointer {
                        K.tileDot8(groups.group(0), groupBytes: groups.groupBytes, count: count, $0.baseAddress!,
                                   blocks: groups.blocks, into: &tile, stride: rows)
                    }
                    for r in 0..<(16 * count) {
                        let expected = (0..<8).map {
                            K.Format.groupDotReference(groups.group(r / 16), row: r % 16, a.vector(token: $0), blocks: groups.blocks)
                        }
                        #expect((0..<8).map { tile[rows * $0 + r] } == expected, "\(count) groups, row \(r)")
                    }
                }
            }
            let kernel = BlockFormats.kernel(for: c.type) as? any RowGroupKernel.Type
            try #require(kernel != nil)
            check(kernel!)
        }
    }

    @Test(arguments: cases)
    func rowsDecodeFromTheGroups(_ c: Case) throws {
        // A grouped matrix decodes its rows from the groups: the same floats, even once the
        // original bytes are gone (the transformer releases their pages; here they are wiped).
        var bytes = randomBlocks(c.type, rows: Self.rows, columns: c.columns, seed: 25)
        let expected = try bytes.withUnsafeBytes { raw in
            let matrix = try WeightMatrix(type: c.type, rows: Self.rows, columns: c.columns, data: raw.baseAddress!, byteCount: raw.count)
            return (0..<Self.rows).map { r in
                [Float](unsafeUninitializedCapacity: c.columns) { out, n in matrix.dequantizeRow(r, into: out.baseAddress!); n = c.columns }
            }
        }
        try bytes.withUnsafeMutableBytes { raw in
            let grouped = try WeightMatrix(type: c.type, rows: Self.rows, columns: c.columns, data: raw.baseAddress!, byteCount: raw.count)
                .withRowGroups()
            #expect(grouped.rowGroups != nil)
            for i in raw.indices { raw[i] = 0xFF }
            for r in 0..<Self.rows {
                let decoded = [Float](unsafeUninitializedCapacity: c.columns) { out, n in grouped.dequantizeRow(r, into: out.baseAddress!); n = c.columns }
                #expect(decoded == expected[r], "row \(r)")
            }
        }
    }

    @Test(arguments: cases, [1, 4, 7, 13])
    func productsReadTheGroups(_ c: Case, tokens: Int) throws {
        // MatrixMultiply with a grouped matrix (decode, tiles of eight and four vectors and the rest) is
        // the kernels' reference for every row and vector, and fusing it with a product that
        // is not grouped changes neither.
        let x = randomActivations(tokens: tokens, columns: c.columns, seed: 19)
        // Ten groups for the longest batch: each thread's share then reaches the four groups
        // from which a kernel may go column by column (``RowGroupKernel/tileDot8(_:groupBytes:count:_:blocks:into:stride:)``).
        let rows = tokens == 13 ? 160 : Self.rows
        let pool = ThreadPool(threads: 2)
        try Self.withMatrix(c, seed: 20, rows: rows) { matrix, _ in
            let grouped = matrix.withRowGroups(pool: pool)
            let groups = try #require(grouped.rowGroups)
            let plainBytes = randomBlocks(c.type, rows: 40, columns: c.columns, seed: 22)
            try plainBytes.withUnsafeBytes { raw in
                let plain = try WeightMatrix(type: c.type, rows: 40, columns: c.columns, data: raw.baseAddress!, byteCount: raw.count)
                var y = [Float](repeating: .nan, count: tokens * rows)
                var fusedY = y
                var plainY = [Float](repeating: .nan, count: tokens * 40), fusedPlainY = plainY
                let scratch = Q8Activations()
                x.withUnsafeBufferPointer { xs in
                    MatrixMultiply.multiply(grouped, xs.baseAddress!, tokens: tokens, into: &y, scratch: scratch, pool: pool)
                    MatrixMultiply.multiply(plain, xs.baseAddress!, tokens: tokens, into: &plainY, scratch: scratch, pool: pool)
                    fusedY.withUnsafeMutableBufferPointer { f in
                        fusedPlainY.withUnsafeMutableBufferPointer { p in
                            MatrixMultiply.multiply(.init(plain, into: p.baseAddress!), .init(grouped, into: f.baseAddress!), nil,
                                                    xs.baseAddress!, tokens: tokens, scratch: Q8Activations(), pool: pool)
                        }
                    }
                    scratch.quantize(xs.baseAddress!, tokens: tokens, columns: c.columns)
                }
                // A kernel tier library computes the products in a build with fused multiply-adds,
                // the reference here may be compiled without: then they agree to float rounding,
                // relative to the largest product.
                let tolerance = KernelTierLibrary.active == nil ? 0 : 1e-5 * y.map(abs).max()!
                func check<F: RowGroupFormat>(_ format: F.Type) {
                    for t in 0..<tokens {
                        for r in 0..<rows {
                            let reference = F.groupDotReference(groups.group(r / 16), row: r % 16, scratch.vector(token: t), blocks: groups.blocks)
                            let y = y[t * rows + r]
                            #expect(abs(y - reference) <= tolerance, "token \(t) row \(r): \(y) vs \(reference)")
                        }
                    }
                }
                check(c.format)
                #expect(fusedY == y)
                #expect(fusedPlainY == plainY)
            }
        }
    }
    #endif
}
