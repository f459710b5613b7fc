/// Matrix products `y = W·x` of a weight matrix with one or many activation vectors.
///
/// One activation vector is a decode step (matrix-vector); many are a prefill batch
/// (matrix-matrix): each weight row is then decoded once and reused for every token while it
/// is in cache. Output rows are split across the thread pool.
///
/// Quantized formats with an integer kernel (``QuantizedDotFormat``) first quantize the
/// activations to 8-bit blocks (``Q8Activations``); F32 weights use float SIMD; any other format
/// with a decoder falls back to dequantizing a row and a float dot product.
public enum MatrixMultiply {
    /// Computes `y[t] = W · x[t]` for `tokens` vectors.
    ///
    /// - Parameters:
    ///   - weights: The matrix, `rows × columns`.
    ///   - x: `tokens × columns` floats, one vector after another.
    ///   - tokens: Number of vectors.
    ///   - y: `tokens × rows` floats to overwrite.
    ///   - scratch: Reusable buffer for the quantized activations.
    ///   - pool: Threads to split the rows across.
    ///   - inputUnchanged: The caller's promise that `x` has not changed since the previous
    ///     product with this `scratch` (e.g. the key and value projections after the query's):
    ///     its quantized activations are then reused when they cover this format's layouts.
    ///   - warmingCaches: Lets the pool's idle workers warm their caches with the start of
    ///     their share of the product that followed this one last time, by loading it (see
    ///     ``ThreadPool/ItemBytes``); for a sequence of products repeated in the same order, such
    ///     as a decode step's. Only products of one vector (`tokens == 1`) warm caches. The caller
    ///     must call ``ThreadPool/forgetWarming()`` before freeing any matrix multiplied this way.
    public static func multiply(
        _ weights: WeightMatrix, _ x: UnsafePointer<Float>, tokens: Int,
        into y: UnsafeMutablePointer<Float>, scratch: Q8Activations, pool: ThreadPool, inputUnchanged: Bool = false,
        warmingCaches: Bool = false
    ) {
        if let traits = KernelTable.traits(of: weights.type) {
            fused((Product(weights, into: y), nil, nil), traits.layouts, x, tokens, scratch, pool, inputUnchanged, warmingCaches)
        } else if weights.type == .f32 {
            float(weights, x, tokens, y, pool)
        } else {
            dequantizing(weights, x, tokens, y, pool)
        }
    }

    /// One product of a fused call: a matrix and where its output goes.
    public struct Product {
        /// The matrix, `rows × columns`.
        public var weights: WeightMatrix
        /// `tokens × rows` floats to overwrite.
        public var output: UnsafeMutablePointer<Float>

        /// Pairs a matrix with its output.
        public init(_ weights: WeightMatrix, into output: UnsafeMutablePointer<Float>) {
            self.weights = weights
            self.output = output
        }
    }

    /// Computes two or three products of the same input at once (the query, key and value
    /// projections; the gate and up projections): the input is quantized once and the rows of
    /// all of them are one job for the pool, so a decode step hands work to the threads once
    /// instead of once per matrix. Each output is exactly what ``multiply(_:_:tokens:into:scratch:pool:inputUnchanged:warmingCaches:)``
    /// would write; `warmingCaches` is as there.
    ///
    /// - Precondition: every matrix has `x`'s number of columns.
    public static func multiply(
        _ first: Product, _ second: Product, _ third: Product? = nil, _ x: UnsafePointer<Float>, tokens: Int,
        scratch: Q8Activations, pool: ThreadPool, warmingCaches: Bool = false
    ) {
        var thirdLayouts: Q8Activations.Layouts? = []
        if let third { thirdLayouts = KernelTable.traits(of: third.weights.type)?.layouts }
        guard let firstLayouts = KernelTable.traits(of: first.weights.type)?.layouts,
              let secondLayouts = KernelTable.traits(of: second.weights.type)?.layouts, let thirdLayouts
        else {
            // A format without an integer kernel: one product after the other.
            multiply(first.weights, x, tokens: tokens, into: first.output, scratch: scratch, pool: pool, warmingCaches: warmingCaches)
            multiply(second.weights, x, tokens: tokens, into: second.output, scratch: scratch, pool: pool, inputUnchanged: true,
                     warmingCaches: warmingCaches)
            if let third {
                multiply(third.weights, x, tokens: tokens, into: third.output, scratch: scratch, pool: pool, inputUnchanged: true,
                         warmingCaches: warmingCaches)
            }
            return
        }
        fused((first, second, third), firstLayouts.union(secondLayouts).union(thirdLayouts), x, tokens, scratch, pool, false, warmingCaches)
    }

    /// Quantizes `x` (unless it is known unchanged and already quantized) in `layouts`, those
    /// every product's kernel reads, then splits all the products' rows over the pool, telling
    /// it which bytes they read when `warmingCaches`.
    private static func fused(
        _ products: (Product, Product?, Product?), _ layouts: Q8Activations.Layouts, _ x: UnsafePointer<Float>,
        _ tokens: Int, _ scratch: Q8Activations, _ pool: ThreadPool, _ inputUnchanged: Bool, _ warmingCaches: Bool
    ) {
        let columns = products.0.weights.columns
        if !(inputUnchanged && scratch.holds(x, tokens: tokens, columns: columns, layouts: layouts)) {
            scratch.quantize(x, tokens: tokens, columns: columns, layouts: layouts, pool: pool)
        }
        // Offsets of the products in the joint range, in units of a row or of a row group;
        // read once, outside the job.
        let a = products.0, b = products.1, c = products.2
        let aRows = units(a), bRows = units(b), cRows = units(c)
        // The vectors' pointers are read once here, into stack memory: reading them from the
        // class inside the loop would cost a dynamic exclusivity check per row.
        withUnsafeTemporaryAllocation(of: Q8Vector.self, capacity: tokens) { vectors in
            for t in 0..<tokens { vectors.initializeElement(at: t, to: scratch.vector(token: t)) }
            let v = UnsafeBufferPointer(vectors)
            var itemBytes: ThreadPool.ItemBytes?
            // Only for one vector: a batch's jobs are long next to the serial work between
            // them, and its activation tiles need the cache the warming would take.
            if warmingCaches && tokens == 1 {
                var bytes = ThreadPool.ItemBytes()
                bytes.append(start: firstUnit(a), bytesPerItem: unitBytes(a), items: aRows)
                if let b { bytes.append(start: firstUnit(b), bytesPerItem: unitBytes(b), items: bRows) }
                if let c { bytes.append(start: firstUnit(c), bytesPerItem: unitBytes(c), items: cRows) }
                itemBytes = bytes
            }
            let total = aRows + bRows + cRows
            // The job sees plain values only: a `Product` holds its matrix's row groups, a class
            // instance whose reference count every thread would update for every piece.
            func rows(_ p: Product) -> ProductRows { ProductRows(p.weights, v.baseAddress!, tokens: tokens, into: p.output, range: 0..<0) }
            let pieces = (rows(a), b.map(rows), c.map(rows))
            // A batch's row-by-row products go in whole sixteens of rows (``ExpandedLatticeRows``).
            let alignment = tokens > 1 && a.weights.rowGroups == nil ? 16 : 1
            pool.balancedFor(
                total, key: a.weights.data, reading: itemBytes, grain: grain(a, units: total, tokens, pool), alignment: alignment
            ) { range in
                @inline(__always) func run(_ p: ProductRows?, _ offset: Int, _ count: Int) {
                    guard var p else { return }
                    let lower = max(range.lowerBound - offset, 0), upper = min(range.upperBound - offset, count)
                    guard lower < upper else { return }
                    let unit = p.groups != nil ? RowGroups.rowsPerGroup : 1
                    p.range = lower * unit..<upper * unit
                    p.compute()
                }
                run(pieces.0, 0, aRows)
                run(pieces.1, aRows, bRows)
                run(pieces.2, aRows + bRows, cRows)
            }
        }
    }

    /// The largest piece of work, in units, that a thread takes at a time
    /// (``ThreadPool/balancedFor(_:key:reading:grain:_:)``; the last pieces are smaller). One
    /// vector: a sixteenth of a thread's share, whole groups of four rows. A batch: one tile
    /// of `a`, the unit its activation vectors are reused over (at least the groups its kernel
    /// asks for, ``RowGroupKernel/tileGroupsAtLeast``).
    private static func grain(_ a: Product, units: Int, _ tokens: Int, _ pool: ThreadPool) -> Int {
        if tokens > 1 {
            guard let groups = a.weights.rowGroups, let least = KernelTable.traits(of: a.weights.type)?.groupsPerTileAtLeast
            else {
                // Whole sixteens of rows, which the lattice formats expand together (``ExpandedLatticeRows``).
                return (max(1, tileBytes / unitBytes(a)) + 15) / 16 * 16
            }
            return tileGroups(groupBytes: groups.groupBytes, atLeast: least)
        }
        let piece = max(1, units / (16 * pool.threadCount))
        return a.weights.rowGroups != nil ? piece : (piece + 3) / 4 * 4
    }

    /// Where a product's first unit of work (row group or row) starts in memory.
    private static func firstUnit(_ p: Product) -> UnsafeRawPointer {
        p.weights.rowGroups?.group(0) ?? p.weights.data
    }

    /// The bytes of one of a product's units of work.
    private static func unitBytes(_ p: Product) -> Int {
        p.weights.rowGroups?.groupBytes ?? p.weights.rowBytes
    }

    /// The units of work a product adds to a job: its row groups, or its rows.
    private static func units(_ p: Product?) -> Int {
        guard let p else { return 0 }
        return p.weights.rowGroups?.groups ?? p.weights.rows
    }

    /// Groups per tile of a grouped product: ``tileBytes`` of them, or as many as its kernel asks
    /// for (``RowGroupKernel/tileGroupsAtLeast``). A prompt's jobs take pieces of one tile.
    static func tileGroups(groupBytes: Int, atLeast least: Int) -> Int {
        max(least, tileBytes / groupBytes)
    }

    /// Weight bytes per tile of rows in the quantized products: the tile stays in the
    /// second-level cache while each group of four activation vectors is in the first.
    /// Measured on the synthetic 3B model (pp64 tokens/s): 8 KB 45, 16 KB 47, 32 KB 48,
    /// 64 KB 49.4, 128 KB 49.6, 256 KB 48.8.
    static let tileBytes = 128 * 1024

    private static func float(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ tokens: Int,
        _ y: UnsafeMutablePointer<Float>, _ pool: ThreadPool
    ) {
        let rows = w.rows, columns = w.columns
        pool.parallelFor(rows) { range in
            for r in range {
                let row = w.row(r).assumingMemoryBound(to: Float.self)
                for t in 0..<tokens {
                    y[t * rows + r] = VectorMath.dot(row, x + t * columns, count: columns)
                }
            }
        }
    }

    private static func dequantizing(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ tokens: Int,
        _ y: UnsafeMutablePointer<Float>, _ pool: ThreadPool
    ) {
        let rows = w.rows, columns = w.columns
        pool.parallelFor(rows) { range in
            let decoded = UnsafeMutablePointer<Float>.allocate(capacity: columns)
            defer { decoded.deallocate() }
            for r in range {
                w.dequantizeRow(r, into: decoded)
                for t in 0..<tokens {
                    y[t * rows + r] = VectorMath.dot(decoded, x + t * columns, count: columns)
                }
            }
        }
    }

    /// Scalar reference for every path: decodes each row to floats and accumulates one product
    /// at a time (no activation quantization). Used by tests.
    public static func multiplyReference(
        _ weights: WeightMatrix, _ x: UnsafePointer<Float>, tokens: Int,
        into y: UnsafeMutablePointer<Float>
    ) {
        let decoded = UnsafeMutablePointer<Float>.allocate(capacity: weights.columns)
        defer { decoded.deallocate() }
        for r in 0..<weights.rows {
            weights.dequantizeRow(r, into: decoded)
            for t in 0..<tokens {
                var sum: Float = 0
                for c in 0..<weights.columns { sum += decoded[c] * x[t * weights.columns + c] }
                y[t * weights.rows + r] = sum
            }
        }
    }
}
