import Foundation

/// Causal attention of a group of query heads over cached half-precision keys and values.
///
/// The softmax is computed online (flash-attention style): a running maximum, a running sum,
/// and a value accumulator that is rescaled whenever the maximum grows. How the accumulator
/// rounds follows llama.cpp, whose outputs are the reference: for a prompt (`halfPrecision`)
/// it is rounded to half precision after every step, for single-token decoding it stays in
/// single precision with a final division.
///
/// The work is split in two passes per head with exactly the online algorithm's arithmetic:
/// the first walks the keys and records, per head and position, the rescale factor and the
/// weight the online softmax applies there; the second replays those steps on the value rows,
/// one 16-lane accumulator per head kept in registers. Replaying per accumulator gives the same
/// operations in the same order, so results are identical to the one-pass loop, but the value
/// updates no longer wait on each other through memory.
public enum Attention {
    /// Most query heads ``attend(queries:group:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``
    /// takes per call: their value accumulators are kept in registers together.
    public static let maximumGroup = 4

    /// Per-position scratch for ``attend(queries:group:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``.
    public struct Scratch {
        /// Room for `maximumGroup × length` rescale factors.
        public let rescales: UnsafeMutablePointer<Float>
        /// Room for `maximumGroup × length` weights.
        public let weights: UnsafeMutablePointer<Float>
        /// The longest `length` the buffers hold.
        public let capacity: Int

        /// Wraps two caller-owned buffers of `maximumGroup × capacity` floats each.
        public init(rescales: UnsafeMutablePointer<Float>, weights: UnsafeMutablePointer<Float>, capacity: Int) {
            self.rescales = rescales
            self.weights = weights
            self.capacity = capacity
        }
    }

    /// `out[g] = Σ_j softmax_j(q_g · k_j · scale) · v_j` for the `group` query heads at
    /// `queries` (one after another, `headDimension` floats each) over positions `0..<length`.
    /// The heads share one key/value head (grouped-query attention), so each key and value row
    /// is read once for all of them.
    ///
    /// - Parameters:
    ///   - queries: Already rounded to half precision (the keys' precision), as llama.cpp does.
    ///   - group: 1…``maximumGroup`` query heads.
    ///   - keys: Key row of position 0 for this key/value head; position `j` is `rowStride`
    ///     halves further. `values` likewise.
    ///   - out: `group × headDimension` floats.
    /// - Precondition: `length ≤ scratch.capacity`.
    public static func attend(
        queries: UnsafePointer<Float>, group: Int, headDimension hd: Int,
        keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, rowStride: Int, length: Int,
        scale: Float, halfPrecision: Bool, scratch: Scratch, into out: UnsafeMutablePointer<Float>
    ) {
        precondition((1...maximumGroup).contains(group) && length <= scratch.capacity)
        let rescales = scratch.rescales, weights = scratch.weights, capacity = scratch.capacity
        // Pass 1: the online softmax's decisions at every position, for every head.
        var sums = SIMD4<Float>()
        withUnsafeTemporaryAllocation(of: Float.self, capacity: maximumGroup) { maxima in
            maxima.initialize(repeating: -.infinity)
            for j in 0..<length {
                let key = keys + j * rowStride
                for g in 0..<group {
                    let score = VectorMath.dot(queries + g * hd, key, count: hd) * scale
                    var rescale: Float = 1, weight: Float = 1
                    if score > maxima[g] {
                        rescale = expf(maxima[g] - score)
                        maxima[g] = score
                    } else if score - maxima[g] < -104 {
                        // expf is exactly +0 below about -103.97 (and takes a slow underflow
                        // path to say so): this value adds nothing.
                        weight = 0
                    } else {
                        weight = expf(score - maxima[g])
                    }
                    rescales[g * capacity + j] = rescale
                    weights[g * capacity + j] = weight
                    sums[g] = sums[g] * rescale + weight
                }
            }
        }
        // Pass 2: the same steps on the values, 64 (then 16) dimensions of every head at a time.
        var d = 0
        while d + 64 <= hd {
            replay64(values + d, rowStride, length, rescales, weights, capacity, group, halfPrecision, sums, out + d, hd)
            d += 64
        }
        while d + 16 <= hd {
            replay(values + d, rowStride, length, rescales, weights, capacity, group, halfPrecision, sums, out + d, hd)
            d += 16
        }
        while d < hd {
            for g in 0..<group {
                var y: Float = 0
                for j in 0..<length {
                    let r = rescales[g * capacity + j], w = weights[g * capacity + j]
                    if r != 1 { y = halfPrecision ? Float(Float16(y * r)) : y * r }
                    if w != 0 {
                        y = y.addingProduct(Float(values[j * rowStride + d]), w)
                        if halfPrecision { y = Float(Float16(y)) }
                    }
                }
                out[g * hd + d] = halfPrecision ? y * (1 / sums[g]) : y / sums[g]
            }
            d += 1
        }
    }

    /// One accumulator step: optional rescale, then `y = fma(v, w, y)`, each rounded to half
    /// precision when `half` (exactly what storing the accumulator as `Float16` would do).
    @inline(__always)
    static func step(_ y: inout SIMD16<Float>, _ value: SIMD16<Float>, _ rescale: Float, _ weight: Float, _ half: Bool) {
        if rescale != 1 {
            y *= rescale
            if half { y = widened(narrowed(y)) }
        }
        if weight != 0 {
            y.addProduct(value, SIMD16(repeating: weight))
            if half { y = widened(narrowed(y)) }
        }
    }

    /// The final normalization: `y · (1/sum)` for the half-precision accumulator, `y / sum`
    /// for the single-precision one (llama.cpp's two conventions).
    @inline(__always)
    static func normalized(_ y: SIMD16<Float>, _ sum: Float, _ half: Bool) -> SIMD16<Float> {
        half ? y * (1 / sum) : y / SIMD16(repeating: sum)
    }

    /// Sixty-four consecutive dimensions of an accumulator or a value row.
    struct Lanes64 {
        var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()

        init() {}

        /// A value row's 64 halves, widened.
        @inline(__always)
        init(_ row: UnsafePointer<Float16>) {
            let raw = UnsafeRawPointer(row)
            l0 = widened(raw.loadUnaligned(as: SIMD16<Float16>.self))
            l1 = widened(raw.loadUnaligned(fromByteOffset: 32, as: SIMD16<Float16>.self))
            l2 = widened(raw.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float16>.self))
            l3 = widened(raw.loadUnaligned(fromByteOffset: 96, as: SIMD16<Float16>.self))
        }

        @inline(__always)
        mutating func step(_ v: Lanes64, _ rescale: Float, _ weight: Float, _ half: Bool) {
            Attention.step(&l0, v.l0, rescale, weight, half)
            Attention.step(&l1, v.l1, rescale, weight, half)
            Attention.step(&l2, v.l2, rescale, weight, half)
            Attention.step(&l3, v.l3, rescale, weight, half)
        }

        @inline(__always)
        func store(_ out: UnsafeMutablePointer<Float>, _ sum: Float, _ half: Bool) {
            let o = UnsafeMutableRawPointer(out)
            o.storeBytes(of: normalized(l0, sum, half), as: SIMD16<Float>.self)
            o.storeBytes(of: normalized(l1, sum, half), toByteOffset: 64, as: SIMD16<Float>.self)
            o.storeBytes(of: normalized(l2, sum, half), toByteOffset: 128, as: SIMD16<Float>.self)
            o.storeBytes(of: normalized(l3, sum, half), toByteOffset: 192, as: SIMD16<Float>.self)
        }
    }

    /// Pass 2 for 64 dimensions of up to four heads: sixteen accumulators in registers, each
    /// value row loaded once for all heads.
    @inline(__always)
    static func replay64(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ capacity: Int, _ group: Int, _ half: Bool, _ sums: SIMD4<Float>,
        _ out: UnsafeMutablePointer<Float>, _ hd: Int
    ) {
        var y0 = Lanes64(), y1 = Lanes64(), y2 = Lanes64(), y3 = Lanes64()
        for j in 0..<length {
            let v = Lanes64(values + j * rowStride)
            y0.step(v, rescales[j], weights[j], half)
            if group > 1 { y1.step(v, rescales[capacity + j], weights[capacity + j], half) }
            if group > 2 { y2.step(v, rescales[2 * capacity + j], weights[2 * capacity + j], half) }
            if group > 3 { y3.step(v, rescales[3 * capacity + j], weights[3 * capacity + j], half) }
        }
        y0.store(out, sums[0], half)
        if group > 1 { y1.store(out + hd, sums[1], half) }
        if group > 2 { y2.store(out + 2 * hd, sums[2], half) }
        if group > 3 { y3.store(out + 3 * hd, sums[3], half) }
    }

    /// Pass 2 for 16 dimensions of up to four heads: one accumulator per head in registers,
    /// each value row loaded once for all of them.
    @inline(__always)
    static func replay(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ capacity: Int, _ group: Int, _ half: Bool, _ sums: SIMD4<Float>,
        _ out: UnsafeMutablePointer<Float>, _ hd: Int
    ) {
        var y0 = SIMD16<Float>(), y1 = SIMD16<Float>(), y2 = SIMD16<Float>(), y3 = SIMD16<Float>()
        for j in 0..<length {
            let v = widened(UnsafeRawPointer(values + j * rowStride).loadUnaligned(as: SIMD16<Float16>.self))
            step(&y0, v, rescales[j], weights[j], half)
            if group > 1 { step(&y1, v, rescales[capacity + j], weights[capacity + j], half) }
            if group > 2 { step(&y2, v, rescales[2 * capacity + j], weights[2 * capacity + j], half) }
            if group > 3 { step(&y3, v, rescales[3 * capacity + j], weights[3 * capacity + j], half) }
        }
        let o = UnsafeMutableRawPointer(out)
        o.storeBytes(of: normalized(y0, sums[0], half), as: SIMD16<Float>.self)
        if group > 1 { o.storeBytes(of: normalized(y1, sums[1], half), toByteOffset: 4 * hd, as: SIMD16<Float>.self) }
        if group > 2 { o.storeBytes(of: normalized(y2, sums[2], half), toByteOffset: 8 * hd, as: SIMD16<Float>.self) }
        if group > 3 { o.storeBytes(of: normalized(y3, sums[3], half), toByteOffset: 12 * hd, as: SIMD16<Float>.self) }
    }
}
