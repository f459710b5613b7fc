import PocketGGUF

/// The rows `range` of one matrix product with one format's kernel: the unit of work
/// ``MatrixMultiply`` hands each thread.
///
/// Plain values only (pointers and counts, no class references), because a kernel tier
/// library compiled from these same sources receives it by address (``KernelTierLibrary``).
/// Its kernels are visited in tiles: each group of four activation vectors is used for a whole
/// tile of rows while it is in the nearest cache, instead of streaming every vector of the batch
/// from further out once per row; the tile itself stays in L2.
struct ProductRows: KernelVisitor {
    /// The matrix's block format.
    var type: GGMLType
    /// The matrix's rows (and the stride of `output`, one token after another).
    var rows: Int
    /// The matrix's columns.
    var columns: Int
    /// The matrix in its file layout, one row after another.
    var data: UnsafeRawPointer
    /// Bytes per row of `data`.
    var rowBytes: Int
    /// The matrix's ``RowGroups`` where it has them: the first group, its bytes, and the
    /// format's blocks per row.
    var groups: (first: UnsafeRawPointer, groupBytes: Int, blocks: Int)?
    /// `tokens` quantized activation vectors.
    var vectors: UnsafePointer<Q8Vector>
    /// The number of vectors.
    var tokens: Int
    /// `tokens × rows` floats; the rows `range` of each token's are overwritten.
    var output: UnsafeMutablePointer<Float>
    /// The rows to compute: whole groups when the matrix has row groups.
    var range: Range<Int>

    /// The rows `range` of `weights` times `vectors`, into `output`.
    init(_ weights: WeightMatrix, _ vectors: UnsafePointer<Q8Vector>, tokens: Int, into output: UnsafeMutablePointer<Float>,
         range: Range<Int>) {
        type = weights.type
        rows = weights.rows
        columns = weights.columns
        data = weights.data
        rowBytes = weights.rowBytes
        groups = weights.rowGroups.map { ($0.group(0), $0.groupBytes, $0.blocks) }
        self.vectors = vectors
        self.tokens = tokens
        self.output = output
        self.range = range
    }

    /// Computes the rows with the kernel of ``type``: the loaded kernel tier library's
    /// (``KernelTierLibrary/active``), or this build's.
    @inline(__always)
    func compute() {
        if let library = KernelTierLibrary.activeEntryPoints { return library.compute(self) }
        KernelTable.visit(type, self)
    }

    @inline(__always)
    func visit<K: DotKernel>(_ kernel: K.Type) {
        if let groups, let kernel = K.self as? any RowGroupKernel.Type {
            return visit(kernel, groups)
        }
        #if POCKET_X86_KERNELS
        if tokens >= ExpandedLatticeRows.minimumTokens, let kernel = K.self as? any LatticeX86Kernel.Type {
            return visitExpanding(kernel)
        }
        #endif
        visitRows(kernel)
    }

    /// The rows `range` with a row kernel `K`, in tiles of rows.
    func visitRows<K: DotKernel>(_ kernel: K.Type) {
        let v = vectors, tokens = tokens, y = output, data = data, rowBytes = rowBytes
        let blocks = columns / Q8Activations.blockSize, rows = rows
        @inline(__always) func row(_ r: Int) -> UnsafeRawPointer { data + r * rowBytes }
        let tileRows = max(1, MatrixMultiply.tileBytes / rowBytes)
        var tileStart = range.lowerBound
        while tileStart < range.upperBound {
            let tile = tileStart..<min(tileStart + tileRows, range.upperBound)
            var t = 0
            // Four tokens at a time, four rows at a time: kernels that can unpack a row once
            // for several activation vectors, and prepare a vector once for several rows,
            // do so (``DotKernel/dot4x4(rows:rowBytes:_:blocks:)``, ``DotKernel/dot4(row:_:blocks:)``).
            while t + 4 <= tokens {
                let x = (v[t], v[t + 1], v[t + 2], v[t + 3])
                var r = tile.lowerBound
                while r + 4 <= tile.upperBound {
                    let tile = K.dot4x4(rows: row(r), rowBytes: rowBytes, x, blocks: blocks)
                    for k in 0..<4 {
                        let out = y + (t + k) * rows + r
                        out[0] = tile.0[k]; out[1] = tile.1[k]; out[2] = tile.2[k]; out[3] = tile.3[k]
                    }
                    r += 4
                }
                while r < tile.upperBound {
                    let four = K.dot4(row: row(r), x, blocks: blocks)
                    for k in 0..<4 { y[(t + k) * rows + r] = four[k] }
                    r += 1
                }
                t += 4
            }
            while t < tokens {
                for r in tile { y[t * rows + r] = K.dot(row: row(r), v[t], blocks: blocks) }
                t += 1
            }
            tileStart = tile.upperBound
        }
    }

    #if POCKET_X86_KERNELS
    /// The rows `range` of a lattice-format matrix times a batch: sixteen rows at a time
    /// expanded into a scratch tile (``ExpandedLatticeRows``), a tile of them times every
    /// vector, four at a time; the last rows short of sixteen go through the row kernel.
    func visitExpanding<K: LatticeX86Kernel>(_ kernel: K.Type) {
        typealias E = ExpandedLatticeRows
        let v = vectors, tokens = tokens, y = output, rows = rows, n = E.rows
        let blocks = columns / Q8Activations.blockSize, groupBytes = E.groupBytes(K.self, blocks: blocks)
        let tileGroups = max(1, E.tileBytes / groupBytes)
        let expandedEnd = range.lowerBound + range.count / n * n
        guard expandedEnd > range.lowerBound else { return visitRows(K.self) }
        // One scratch tile per piece of work: pieces are whole tiles of the matrix, each
        // expanded once and multiplied with the whole batch.
        let tile = UnsafeMutableRawPointer.allocate(byteCount: min(tileGroups, range.count / n) * groupBytes, alignment: 64)
        defer { tile.deallocate() }
        @inline(__always) func store(_ sums: SIMD16<Float>, token t: Int, row r: Int) {
            UnsafeMutableRawPointer(y + t * rows + r).storeBytes(of: sums, as: SIMD16<Float>.self)
        }
        var start = range.lowerBound
        while start < expandedEnd {
            let count = min(tileGroups, (expandedEnd - start) / n)
            for g in 0..<count {
                E.expand(K.self, rows: data + (start + n * g) * rowBytes, rowBytes: rowBytes, blocks: blocks, into: tile + g * groupBytes)
            }
            var t = 0
            while t + 4 <= tokens {
                let x = (v[t], v[t + 1], v[t + 2], v[t + 3])
                for g in 0..<count {
                    let sums = E.dot4(K.self, tile + g * groupBytes, x, blocks: blocks), r = start + n * g
                    store(sums.0, token: t, row: r); store(sums.1, token: t + 1, row: r)
                    store(sums.2, token: t + 2, row: r); store(sums.3, token: t + 3, row: r)
                }
                t += 4
            }
            while t < tokens {
                for g in 0..<count { store(E.dot(K.self, tile + g * groupBytes, v[t], blocks: blocks), token: t, row: start + n * g) }
                t += 1
            }
            start += n * count
        }
        if expandedEnd < range.upperBound {
            var rest = self
            rest.range = expandedEnd..<range.upperBound
            rest.visitRows(K.self)
        }
    }
    #endif

    /// The rows `range` (whole groups) from the matrix's row groups with kernel `K`, in tiles
    /// of groups as above: each product covers sixteen rows, and each column of a group is
    /// unpacked once for eight vectors (``RowGroupKernel/groupDot8(_:_:blocks:into:stride:)``,
    /// where the kernel has its own), then four, then one.
    func visit<K: RowGroupKernel>(_ kernel: K.Type, _ groups: (first: UnsafeRawPointer, groupBytes: Int, blocks: Int)) {
        let v = vectors, tokens = tokens, y = output, rows = rows, blocks = groups.blocks, groupBytes = groups.groupBytes
        let n = RowGroups.rowsPerGroup
        @inline(__always) func group(_ g: Int) -> UnsafeRawPointer { groups.first + g * groupBytes }
        @inline(__always) func store(_ sums: SIMD16<Float>, token t: Int, group g: Int) {
            UnsafeMutableRawPointer(y + t * rows + g * n).storeBytes(of: sums, as: SIMD16<Float>.self)
        }
        let tileGroups = MatrixMultiply.tileGroups(groupBytes: groupBytes, atLeast: K.tileGroupsAtLeast)
        var tileStart = range.lowerBound / n
        while tileStart < range.upperBound / n {
            let tile = tileStart..<min(tileStart + tileGroups, range.upperBound / n)
            var t = 0
            while t + 8 <= tokens {
                K.tileDot8(
                    group(tile.lowerBound), groupBytes: groupBytes, count: tile.count, v + t,
                    blocks: blocks, into: y + t * rows + tile.lowerBound * n, stride: rows)
                t += 8
            }
            while t + 4 <= tokens {
                let x = (v[t], v[t + 1], v[t + 2], v[t + 3])
                for g in tile {
                    let sums = K.groupDot4(group(g), x, blocks: blocks)
                    store(sums.0, token: t, group: g); store(sums.1, token: t + 1, group: g)
                    store(sums.2, token: t + 2, group: g); store(sums.3, token: t + 3, group: g)
                }
                t += 4
            }
            while t < tokens {
                for g in tile { store(K.groupDot(group(g), v[t], blocks: blocks), token: t, group: g) }
                t += 1
            }
            tileStart = tile.upperBound
        }
    }
}
