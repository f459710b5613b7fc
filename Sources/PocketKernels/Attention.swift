import Foundation

/// Causal attention of one query head over cached half-precision keys and values.
///
/// The softmax is computed online (flash-attention style): a running maximum, a running sum,
/// and a value accumulator that is rescaled whenever the maximum grows. How the accumulator
/// rounds follows llama.cpp, whose outputs are the reference: for a prompt (`halfPrecision`)
/// it is rounded to half precision after every step, for single-token decoding it stays in
/// single precision with a final division.
///
/// The work is split in two passes per head with exactly the online algorithm's arithmetic:
/// the first walks the keys and records, per position, the rescale factor and the weight the
/// online softmax applies there; the second replays those steps on the value rows, a few
/// 16-lane accumulators at a time kept in registers. Replaying per accumulator gives the same
/// operations in the same order, so results are identical to the one-pass loop, but the value
/// updates no longer wait on each other through memory.
public enum Attention {
    /// Per-position scratch for ``attend(query:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``.
    public struct Scratch {
        /// Room for `length` rescale factors.
        public let rescales: UnsafeMutablePointer<Float>
        /// Room for `length` weights.
        public let weights: UnsafeMutablePointer<Float>

        /// Wraps two caller-owned buffers of at least the longest `length` floats each.
        public init(rescales: UnsafeMutablePointer<Float>, weights: UnsafeMutablePointer<Float>) {
            self.rescales = rescales
            self.weights = weights
        }
    }

    /// `out = Σ_j softmax_j(q · k_j · scale) · v_j` for one query head over positions
    /// `0..<length`.
    ///
    /// - Parameters:
    ///   - query: `headDimension` floats, already rounded to half precision (the keys'
    ///     precision), as llama.cpp does.
    ///   - keys: Key row of position 0 for the head's key/value head; position `j` is
    ///     `rowStride` halves further. `values` likewise.
    ///   - out: `headDimension` floats.
    public static func attend(
        query: UnsafePointer<Float>, headDimension hd: Int,
        keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, rowStride: Int, length: Int,
        scale: Float, halfPrecision: Bool, scratch: Scratch, into out: UnsafeMutablePointer<Float>
    ) {
        let rescales = scratch.rescales, weights = scratch.weights
        // Pass 1: the online softmax's decisions at every position.
        var maximum = -Float.infinity, sum: Float = 0
        for j in 0..<length {
            let score = VectorMath.dot(query, keys + j * rowStride, count: hd) * scale
            var rescale: Float = 1, weight: Float = 1
            if score > maximum {
                rescale = expf(maximum - score)
                maximum = score
            } else if score - maximum < -104 {
                // expf is exactly +0 below about -103.97 (and takes a slow underflow path to
                // say so): this value adds nothing.
                weight = 0
            } else {
                weight = expf(score - maximum)
            }
            rescales[j] = rescale
            weights[j] = weight
            sum = sum * rescale + weight
        }
        // Pass 2: the same steps on the values, 64 and then 16 dimensions at a time.
        var d = 0
        while d + 64 <= hd {
            replay4(values + d, rowStride, length, rescales, weights, halfPrecision, sum, out + d)
            d += 64
        }
        while d + 16 <= hd {
            replay1(values + d, rowStride, length, rescales, weights, halfPrecision, sum, out + d)
            d += 16
        }
        while d < hd {
            var y: Float = 0
            for j in 0..<length {
                if rescales[j] != 1 { y = halfPrecision ? Float(Float16(y * rescales[j])) : y * rescales[j] }
                if weights[j] != 0 {
                    y = y.addingProduct(Float(values[j * rowStride + d]), weights[j])
                    if halfPrecision { y = Float(Float16(y)) }
                }
            }
            out[d] = halfPrecision ? y * (1 / sum) : y / sum
            d += 1
        }
    }

    /// One accumulator step: optional rescale, then `y = fma(v, w, y)`, each rounded to half
    /// precision when `half` (exactly what storing the accumulator as `Float16` would do).
    @inline(__always)
    static func step(_ y: inout SIMD16<Float>, _ value: UnsafePointer<Float16>, _ rescale: Float, _ weight: Float, _ half: Bool) {
        if rescale != 1 {
            y *= rescale
            if half { y = widened(narrowed(y)) }
        }
        if weight != 0 {
            y.addProduct(widened(UnsafeRawPointer(value).loadUnaligned(as: SIMD16<Float16>.self)), SIMD16(repeating: weight))
            if half { y = widened(narrowed(y)) }
        }
    }

    /// The final normalization: `y · (1/sum)` for the half-precision accumulator, `y / sum`
    /// for the single-precision one (llama.cpp's two conventions).
    @inline(__always)
    static func normalized(_ y: SIMD16<Float>, _ sum: Float, _ half: Bool) -> SIMD16<Float> {
        half ? y * (1 / sum) : y / SIMD16(repeating: sum)
    }

    /// Pass 2 for 64 dimensions: four independent accumulators in registers.
    @inline(__always)
    static func replay4(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ half: Bool, _ sum: Float, _ out: UnsafeMutablePointer<Float>
    ) {
        var y0 = SIMD16<Float>(), y1 = SIMD16<Float>(), y2 = SIMD16<Float>(), y3 = SIMD16<Float>()
        for j in 0..<length {
            let v = values + j * rowStride, r = rescales[j], w = weights[j]
            step(&y0, v, r, w, half)
            step(&y1, v + 16, r, w, half)
            step(&y2, v + 32, r, w, half)
            step(&y3, v + 48, r, w, half)
        }
        let o = UnsafeMutableRawPointer(out)
        o.storeBytes(of: normalized(y0, sum, half), as: SIMD16<Float>.self)
        o.storeBytes(of: normalized(y1, sum, half), toByteOffset: 64, as: SIMD16<Float>.self)
        o.storeBytes(of: normalized(y2, sum, half), toByteOffset: 128, as: SIMD16<Float>.self)
        o.storeBytes(of: normalized(y3, sum, half), toByteOffset: 192, as: SIMD16<Float>.self)
    }

    /// Pass 2 for 16 dimensions.
    @inline(__always)
    static func replay1(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ half: Bool, _ sum: Float, _ out: UnsafeMutablePointer<Float>
    ) {
        var y = SIMD16<Float>()
        for j in 0..<length { step(&y, values + j * rowStride, rescales[j], weights[j], half) }
        UnsafeMutableRawPointer(out).storeBytes(of: normalized(y, sum, half), as: SIMD16<Float>.self)
    }
}
