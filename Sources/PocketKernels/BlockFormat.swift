import PocketGGUF

/// A GGUF block format: how a run of weights is packed into fixed-size blocks of bytes.
///
/// Each format lives in one file under `Formats/` that documents its byte layout and formula,
/// and provides the scalar reference decoder. Faster kernels for a format live beside it
/// (`Q4_1+SIMD.swift`) and are tested against the scalar reference. Each format is one row of
/// ``BlockFormats`` (its `visit(_:_:)` table).
///
/// Blocks are read through raw pointers at named byte offsets, never by overlaying Swift
/// structs, because Swift does not promise C struct layout.
///
/// ```swift
/// let format = BlockFormats.format(for: .q4_K)!      // Q4_K.self
/// format.dequantize(bytes, blocks: 2, into: floats)  // 512 floats
/// ```
///
/// Formats are caseless enums, so the protocol refines `Sendable` and the table of formats can
/// be shared between threads.
public protocol BlockFormat: Sendable {
    /// The on-disk type number this format decodes.
    static var type: GGMLType { get }
    /// Weights encoded by one block.
    static var weightsPerBlock: Int { get }
    /// Bytes one block occupies.
    static var bytesPerBlock: Int { get }
    /// The fields of one block in byte order; they tile the block exactly.
    static var layout: [BlockField] { get }
    /// Scalar reference decoder: expands `count` consecutive blocks starting at `source` into
    /// `count * weightsPerBlock` floats at `destination`.
    ///
    /// This is the definition of the format that every faster kernel is tested against; it must
    /// agree bit for bit with `gguf.quants.dequantize` from the `gguf` Python package: the same
    /// float32 operations in the same order. (In every current format the products of fp16
    /// scales and small integers are exact in float32, at most 23 significant bits, so only a
    /// final `+ m` or `− dmin·min` rounds, once.)
    ///
    /// - Parameters:
    ///   - source: First byte of the first block; no alignment is required.
    ///   - count: Number of blocks to decode.
    ///   - destination: Room for `count * weightsPerBlock` floats.
    /// - Complexity: O(`count * weightsPerBlock`).
    static func dequantize(
        _ source: UnsafeRawPointer, blocks count: Int, into destination: UnsafeMutablePointer<Float>)
}

extension BlockFormat {
    /// Bits stored per weight, including scales (e.g. 5.0 for Q4_1, 2.625 for Q2_K).
    public static var bitsPerWeight: Double { Double(bytesPerBlock * 8) / Double(weightsPerBlock) }
}

/// One named run of bytes inside a block, as listed in a format's ``BlockFormat/layout``.
public struct BlockField: Sendable, Equatable, CustomStringConvertible {
    /// What a field holds.
    public enum Role: Sendable, Equatable {
        /// The per-weight quantized values (all their bits, including split-off high bits).
        case values
        /// Scales, minimums and their packed sub-block factors.
        case scales
    }

    /// The field's name as ggml spells it (`d`, `dmin`, `qs`, `qh`, `scales`, ...).
    public let name: String
    /// First byte of the field, counted from the start of the block.
    public let offset: Int
    /// Length of the field in bytes.
    public let byteCount: Int
    /// Whether the field holds weight values or scales.
    public let role: Role

    /// Describes a field of `byteCount` bytes at `offset`.
    public init(_ name: String, at offset: Int, bytes byteCount: Int, _ role: Role) {
        self.name = name
        self.offset = offset
        self.byteCount = byteCount
        self.role = role
    }

    /// `name[offset..<end]`.
    public var description: String { "\(name)[\(offset)..<\(offset + byteCount)]" }
}

extension UnsafeRawPointer {
    /// The IEEE half-precision float stored at `offset`, widened to `Float` (exact for every
    /// finite value; used for block scales) by ``HalfConversion``: no runtime call without F16C.
    @inline(__always)
    func loadHalf(at offset: Int) -> Float {
        HalfConversion.widened(loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    /// The byte at `offset`.
    @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        load(fromByteOffset: offset, as: UInt8.self)
    }
}
