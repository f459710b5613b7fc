import PocketGGUF

/// A block format that Pocket can also encode: floats in, blocks out.
///
/// Each encoder lives beside its format as `Quantization/<F>+Quantize.swift`. The formats whose
/// reference encoder exists in the `gguf` Python package (Q4_0, Q4_1, Q5_0, Q8_0) reproduce its
/// bytes exactly (same float32 operations in the same order); the k-quants, for which no
/// reference encoder exists, search each sub-block's scale (and minimum) for the least squared
/// error (see ``SubBlockFit``).
///
/// ```swift
/// var blocks = [UInt8](repeating: 0, count: 2 * Q4_K.bytesPerBlock)
/// blocks.withUnsafeMutableBytes { Q4_K.quantize(weights, blocks: 2, into: $0.baseAddress!) }
/// ```
///
/// Encoding is a pure function of the input floats: the same floats always give the same
/// bytes, whatever thread runs it.
///
/// Non-finite input (NaN, ±infinity) never traps: it yields some valid block whose decoded
/// values are unspecified. Callers that care (`ModelQuantizer` in PocketQuantizer) reject
/// such input before encoding. Magnitudes beyond what an fp16 scale can represent (about
/// 65504 × the format's largest step count) decode as infinities; callers check the decoded
/// result.
public protocol QuantizableFormat: BlockFormat {
    /// The `general.file_type` (llama.cpp's `llama_ftype`) of a file whose matrices are mostly
    /// this format: `pure` when every matrix is, `mixed` for the usual mix with more precise
    /// embeddings and attention (llama.cpp's `_S` and `_M` variants where it names two).
    static var fileTypes: (pure: UInt32, mixed: UInt32) { get }

    /// Encodes `count * weightsPerBlock` floats from `source` into `count` blocks.
    ///
    /// - Parameters:
    ///   - source: The weights, `count * weightsPerBlock` floats.
    ///   - count: Number of blocks to write.
    ///   - destination: Room for `count * bytesPerBlock` bytes; no alignment is required.
    /// - Complexity: O(`count * weightsPerBlock`) times a small per-format constant (the
    ///   k-quants try a fixed number of candidate scales per sub-block).
    static func quantize(
        _ source: UnsafePointer<Float>, blocks count: Int, into destination: UnsafeMutableRawPointer)
}

// MARK: - Helpers shared by the encoders

extension UnsafeMutableRawPointer {
    /// Stores `value` rounded to IEEE half precision (round to nearest, ties to even; values
    /// beyond ±65504 become ±infinity), little-endian, at `offset`.
    @inline(__always)
    func storeHalf(_ value: Float, at offset: Int) {
        storeBytes(of: Float16(value).bitPattern.littleEndian, toByteOffset: offset, as: UInt16.self)
    }

    /// Stores `value` at `offset`.
    @inline(__always)
    func storeByte(_ value: UInt8, at offset: Int) {
        storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
    }
}

/// `value` truncated toward zero and clamped to `low...high`; NaN gives `low`. Never traps.
@inline(__always)
func truncatedClamped(_ value: Float, _ low: Int32, _ high: Int32) -> Int32 {
    guard value >= Float(low) else { return low }
    guard value < Float(high) else { return high }
    return Int32(value)
}

/// `value` rounded to nearest (ties away from zero) and clamped to `low...high`; NaN gives
/// `low`. Never traps.
@inline(__always)
func roundedClamped(_ value: Float, _ low: Int32, _ high: Int32) -> Int32 {
    truncatedClamped(value.rounded(.toNearestOrAwayFromZero), low, high)
}

/// The float nearest `value` that an fp16 field stores (what the decoder will read back).
@inline(__always)
func halfRounded(_ value: Float) -> Float { Float(Float16(value)) }
