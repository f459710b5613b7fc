import PocketGGUF

/// A format whose encoder can weight each weight's rounding error by an importance (llama.cpp's
/// "imatrix"): the scale search then minimizes Σ wᵢ·(xᵢ − x̂ᵢ)² instead of Σ (xᵢ − x̂ᵢ)².
///
/// For a matrix W multiplying activations x, the expected squared output error of a rounding
/// ΔW is Σ_rows Σ_j ΔW_ij² · E[x_j²] when the columns are roughly uncorrelated, so the natural
/// importance of column j is the mean square of its activation over a calibration text
/// (``ImportanceMatrix`` in PocketQuantizer collects it). The importance vector is the same
/// for every row of a matrix: callers pass the row's column importances alongside the row.
///
/// - The k-quants (Q2_K, Q3_K, Q4_K, Q6_K) with `importance == nil` produce exactly the bytes of
///   ``QuantizableFormat/quantize(_:blocks:into:)``.
/// - The 32-weight formats (Q4_0, Q4_1, Q5_0) use a least-squares scale search here (the same
///   ``SubBlockFit`` the k-quants use), unlike their reference-exact
///   ``QuantizableFormat/quantize(_:blocks:into:)``; with `importance == nil` the search is
///   unweighted.
///
/// ```swift
/// Q2_K.quantize(row, importance: columnImportance, blocks: row.count / 256, into: output)
/// ```
public protocol ImportanceWeightedFormat: QuantizableFormat {
    /// Encodes `count * weightsPerBlock` floats from `source` into `count` blocks, minimizing the
    /// importance-weighted squared error.
    ///
    /// - Parameters:
    ///   - source: The weights.
    ///   - importance: One non-negative weight per source float, or nil (all equal).
    ///   - count: Number of blocks to write.
    ///   - destination: Room for `count * bytesPerBlock` bytes.
    static func quantize(
        _ source: UnsafePointer<Float>, importance: UnsafePointer<Float>?, blocks count: Int,
        into destination: UnsafeMutableRawPointer)
}

extension ImportanceWeightedFormat {
    /// The unweighted encoding: the importance-weighted one with all weights equal. (The
    /// 32-weight formats have their own, reference-exact encoder instead.)
    public static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer
    ) {
        quantize(source, importance: nil, blocks: count, into: destination)
    }
}
