import PocketGGUF

/// The traits table: every block format Pocket can decode, one row per format.
///
/// ``visit(_:_:)`` is the table: one `case` per format, which names the format's type once.
/// Everything else is derived from it: ``all``, the decoder of a type (``format(for:)``), its
/// encoder (``encoder(for:)``), and the dot-product kernel ``MatrixMultiply`` runs (the row's
/// ``QuantizedDotFormat/Kernel``). Adding a format is its files under `Formats/` (and
/// `Quantization/` for an encoder) plus one row; the format, kernel and encoder tests walk
/// ``all``, so a new row is checked against its fixture, its reference and its size formula.
///
/// ```swift
/// for format in BlockFormats.all {
///     print(format.type, format.weightsPerBlock, format.bytesPerBlock, format.bitsPerWeight)
/// }
/// ```
public enum BlockFormats {
    /// Runs `visitor` with the format of `type` as a static type, so that generic code over
    /// formats is specialized for each row; `nil` when Pocket has no format for `type`.
    ///
    /// A format with an integer dot-product kernel is visited through
    /// ``BlockFormatVisitor/visit(quantized:)``, any other through
    /// ``BlockFormatVisitor/visit(plain:)``. Inlinable, so that a visitor in another module
    /// (the kernel benchmark) is specialized as well.
    @inlinable @inline(__always)
    public static func visit<V: BlockFormatVisitor>(_ type: GGMLType, _ visitor: V) -> V.Result? {
        switch type {
        case .f32: visitor.visit(plain: F32.self)
        case .f16: visitor.visit(plain: F16.self)
        case .q4_0: visitor.visit(quantized: Q4_0.self)
        case .q4_1: visitor.visit(quantized: Q4_1.self)
        case .q5_0: visitor.visit(quantized: Q5_0.self)
        case .q5_1: visitor.visit(quantized: Q5_1.self)
        case .q8_0: visitor.visit(quantized: Q8_0.self)
        case .q2_K: visitor.visit(quantized: Q2_K.self)
        case .q3_K: visitor.visit(quantized: Q3_K.self)
        case .q4_K: visitor.visit(quantized: Q4_K.self)
        case .q5_K: visitor.visit(quantized: Q5_K.self)
        case .q6_K: visitor.visit(quantized: Q6_K.self)
        case .iq2_xxs: visitor.visit(quantized: IQ2_XXS.self)
        case .iq2_xs: visitor.visit(quantized: IQ2_XS.self)
        case .iq3_xxs: visitor.visit(quantized: IQ3_XXS.self)
        case .iq1_s: visitor.visit(quantized: IQ1_S.self)
        case .iq4_nl: visitor.visit(quantized: IQ4_NL.self)
        case .iq3_s: visitor.visit(quantized: IQ3_S.self)
        case .iq2_s: visitor.visit(quantized: IQ2_S.self)
        case .iq4_xs: visitor.visit(quantized: IQ4_XS.self)
        case .iq1_m: visitor.visit(quantized: IQ1_M.self)
        case .bf16: visitor.visit(plain: BF16.self)
        case .tq1_0: visitor.visit(quantized: TQ1_0.self)
        case .tq2_0: visitor.visit(quantized: TQ2_0.self)
        default: nil
        }
    }

    /// Every supported format, in GGUF type-number order.
    public static let all: [any BlockFormat.Type] = GGMLType.allCases.compactMap(format(for:))

    /// The format that decodes `type`, or `nil` when Pocket has no decoder for it.
    public static func format(for type: GGMLType) -> (any BlockFormat.Type)? {
        struct Format: BlockFormatVisitor {
            func visit<F: BlockFormat>(plain format: F.Type) -> any BlockFormat.Type { format }
        }
        return visit(type, Format())
    }

    /// The dot-product kernel this build runs for `type` (the row's
    /// ``QuantizedDotFormat/Kernel``), or `nil` when the format has no integer kernel.
    package static func kernel(for type: GGMLType) -> (any DotKernel.Type)? {
        struct Kernel: BlockFormatVisitor {
            func visit<F: BlockFormat>(plain format: F.Type) -> (any DotKernel.Type)? { nil }
            func visit<F: QuantizedDotFormat>(quantized format: F.Type) -> (any DotKernel.Type)? { F.Kernel.self }
        }
        return visit(type, Kernel()) ?? nil
    }
}

/// Generic code run with one row of ``BlockFormats`` as a static type (see
/// ``BlockFormats/visit(_:_:)``): each method is specialized per format, where an existential
/// `any BlockFormat.Type` would dispatch every call through a witness table.
public protocol BlockFormatVisitor {
    /// What a visit returns.
    associatedtype Result
    /// Called with a format that has no integer kernel (F32, F16, BF16).
    func visit<F: BlockFormat>(plain format: F.Type) -> Result
    /// Called with a format that has an integer dot-product kernel; by default the same as
    /// ``visit(plain:)``.
    func visit<F: QuantizedDotFormat>(quantized format: F.Type) -> Result
}

extension BlockFormatVisitor {
    /// Treats a quantized format like any other.
    @inlinable @inline(__always)
    public func visit<F: QuantizedDotFormat>(quantized format: F.Type) -> Result { visit(plain: format) }
}
