import PocketGGUF

/// A GGUF block format: how a run of weights is packed into fixed-size blocks of bytes.
///
/// Each format lives in one file under `Formats/` that documents its byte layout and formula,
/// and provides the scalar reference decoder. Faster kernels for a format live beside it
/// (`Q4_1+SIMD.swift`) and are tested against the scalar reference. Formats are registered in
/// ``BlockFormats/all``.
///
/// Blocks are read through raw pointers at named byte offsets, never by overlaying Swift
/// structs, because Swift does not promise C struct layout.
public protocol BlockFormat {
    /// The on-disk type number this format decodes.
    static var type: GGMLType { get }
    /// Weights encoded by one block.
    static var weightsPerBlock: Int { get }
    /// Bytes one block occupies.
    static var bytesPerBlock: Int { get }
    /// Scalar reference decoder: expands `count` consecutive blocks starting at `source` into
    /// `count * weightsPerBlock` floats at `destination`.
    ///
    /// This is the definition of the format that every faster kernel is tested against; it must
    /// agree bit for bit with `gguf.quants.dequantize` from the `gguf` Python package.
    static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>)
}

extension BlockFormat {
    /// Bits stored per weight, including scales (e.g. 5.0 for Q4_1, 2.625 for Q2_K).
    public static var bitsPerWeight: Double { Double(bytesPerBlock * 8) / Double(weightsPerBlock) }
}
