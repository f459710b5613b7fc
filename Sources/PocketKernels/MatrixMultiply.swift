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
    public static func multiply(
        _ weights: WeightMatrix, _ x: UnsafePointer<Float>, tokens: Int,
        into y: UnsafeMutablePointer<Float>, scratch: Q8Activations, pool: ThreadPool, inputUnchanged: Bool = false
    ) {
        switch weights.type {
        case .q4_1: quantized(Q4_1.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q8_0: quantized(Q8_0.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q2_K: quantized(Q2_K.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q4_0: quantized(Q4_0.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q6_K: quantized(Q6_K.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q4_K: quantized(Q4_K.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q3_K: quantized(Q3_K.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q5_0: quantized(Q5_0.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q5_1: quantized(Q5_1.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .q5_K: quantized(Q5_K.Kernel.self, weights, x, tokens, y, scratch, pool, inputUnchanged)
        case .f32: float(weights, x, tokens, y, pool)
        default: dequantizing(weights, x, tokens, y, pool)
        }
    }

    private static func quantized<F: DotKernel>(
        _ format: F.Type, _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ tokens: Int,
        _ y: UnsafeMutablePointer<Float>, _ scratch: Q8Activations, _ pool: ThreadPool, _ inputUnchanged: Bool
    ) {
        if !(inputUnchanged && scratch.holds(x, tokens: tokens, columns: w.columns, layouts: F.activationLayouts)) {
            scratch.quantize(x, tokens: tokens, columns: w.columns, layouts: F.activationLayouts, pool: pool)
        }
        let blocks = w.columns / Q8Activations.blockSize
        let rows = w.rows
        // Rows in tiles: each group of four activation vectors is used for a whole tile of
        // rows while it is in the nearest cache, instead of streaming every vector of the batch
        // from further out once per row; the tile itself stays in L2.
        let tileRows = max(1, Self.tileBytes / w.rowBytes)
        // The vectors' pointers are read once here, into stack memory: reading them from the
        // class inside the loop would cost a dynamic exclusivity check per row.
        withUnsafeTemporaryAllocation(of: Q8Vector.self, capacity: tokens) { vectors in
            for t in 0..<tokens { vectors.initializeElement(at: t, to: scratch.vector(token: t)) }
            let v = UnsafeBufferPointer(vectors)
            pool.parallelFor(rows) { range in
                var tileStart = range.lowerBound
                while tileStart < range.upperBound {
                    let tile = tileStart..<min(tileStart + tileRows, range.upperBound)
                    var t = 0
                    // Four tokens at a time: kernels that can unpack a row once for several
                    // activation vectors do so (``QuantizedDotFormat/dot4(row:_:blocks:)``).
                    while t + 4 <= tokens {
                        for r in tile {
                            let four = F.dot4(row: w.row(r), (v[t], v[t + 1], v[t + 2], v[t + 3]), blocks: blocks)
                            for k in 0..<4 { y[(t + k) * rows + r] = four[k] }
                        }
                        t += 4
                    }
                    while t < tokens {
                        for r in tile { y[t * rows + r] = F.dot(row: w.row(r), v[t], blocks: blocks) }
                        t += 1
                    }
                    tileStart = tile.upperBound
                }
            }
        }
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
