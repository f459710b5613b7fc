import PocketGGUF

/// Code that runs with one format's kernel as a static type: ``KernelTable/visit(_:_:)`` calls
/// `visit` with the kernel of a block format, so the generic body is specialized per kernel
/// (an existential `any DotKernel.Type` would dispatch every call through a witness table).
protocol KernelVisitor {
    func visit<K: DotKernel>(_ kernel: K.Type)
}

/// The dot-product kernel of each row of ``BlockFormats``: the format's
/// ``QuantizedDotFormat/Kernel`` (its per-ISA kernel where this build has one).
enum KernelTable {
    /// Runs `visitor` with the kernel of `type`; false when the type has no integer kernel
    /// (F32, F16, BF16).
    @discardableResult @inline(__always)
    static func visit<V: KernelVisitor>(_ type: GGMLType, _ visitor: V) -> Bool {
        return BlockFormats.visit(type, KernelOfFormat(visitor: visitor)) ?? false
    }

    /// The activation layouts the kernel of `type` reads; nil when it has no integer kernel.
    static func layouts(of type: GGMLType) -> Q8Activations.Layouts? {
        struct Layouts: BlockFormatVisitor {
            func visit<F: BlockFormat>(plain format: F.Type) -> Q8Activations.Layouts? { nil }
            func visit<F: QuantizedDotFormat>(quantized format: F.Type) -> Q8Activations.Layouts? {
                F.Kernel.activationLayouts
            }
        }
        return BlockFormats.visit(type, Layouts()) ?? nil
    }
}

/// Adapts a ``KernelVisitor`` to a row of ``BlockFormats``: visits the row's kernel.
private struct KernelOfFormat<V: KernelVisitor>: BlockFormatVisitor {
    let visitor: V
    @inline(__always) func visit<F: BlockFormat>(plain format: F.Type) -> Bool { false }
    @inline(__always) func visit<F: QuantizedDotFormat>(quantized format: F.Type) -> Bool {
        visitor.visit(F.Kernel.self)
        return true
    }
}
