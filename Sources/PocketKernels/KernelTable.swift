import PocketGGUF

/// Code that runs with one format's kernel as a static type: ``KernelTable/visit(_:_:)`` calls
/// `visit` with the kernel of a block format, so the generic body is specialized per kernel
/// (an existential `any DotKernel.Type` would dispatch every call through a witness table).
protocol KernelVisitor {
    func visit<K: DotKernel>(_ kernel: K.Type)
}

/// The one place that maps a block format to this build's dot-product kernel
/// (``QuantizedDotFormat/Kernel``: the per-ISA kernel where there is one).
enum KernelTable {
    /// Runs `visitor` with the kernel of `type`; false when the type has no integer kernel
    /// (F32, F16, BF16).
    @discardableResult @inline(__always)
    static func visit<V: KernelVisitor>(_ type: GGMLType, _ visitor: V) -> Bool {
        switch type {
        case .q4_0: visitor.visit(Q4_0.Kernel.self)
        case .q4_1: visitor.visit(Q4_1.Kernel.self)
        case .q5_0: visitor.visit(Q5_0.Kernel.self)
        case .q5_1: visitor.visit(Q5_1.Kernel.self)
        case .q8_0: visitor.visit(Q8_0.Kernel.self)
        case .q2_K: visitor.visit(Q2_K.Kernel.self)
        case .q3_K: visitor.visit(Q3_K.Kernel.self)
        case .q4_K: visitor.visit(Q4_K.Kernel.self)
        case .q5_K: visitor.visit(Q5_K.Kernel.self)
        case .q6_K: visitor.visit(Q6_K.Kernel.self)
        default: return false
        }
        return true
    }

    /// The activation layouts the kernel of `type` reads; nil when it has no integer kernel.
    static func layouts(of type: GGMLType) -> Q8Activations.Layouts? {
        struct Layouts: KernelVisitor {
            let result: UnsafeMutablePointer<Q8Activations.Layouts>
            func visit<K: DotKernel>(_ kernel: K.Type) { result.pointee = K.activationLayouts }
        }
        var layouts = Q8Activations.Layouts()
        return withUnsafeMutablePointer(to: &layouts) { KernelTable.visit(type, Layouts(result: $0)) } ? layouts : nil
    }
}
