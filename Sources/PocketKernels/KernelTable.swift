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

    /// What the kernel of `type` that computes products reads: this build's
    /// (``ownTraits(of:)``), or the loaded kernel tier library's (``KernelTierLibrary/active``).
    /// Nil when the type has no integer kernel.
    static func traits(of type: GGMLType) -> KernelTraits? {
        if let library = KernelTierLibrary.activeEntryPoints { return library.traits(of: type) }
        return ownTraits(of: type)
    }

    /// What this build's kernel of `type` reads; nil when it has no integer kernel.
    static func ownTraits(of type: GGMLType) -> KernelTraits? {
        struct Traits: BlockFormatVisitor {
            func visit<F: BlockFormat>(plain format: F.Type) -> KernelTraits? { nil }
            func visit<F: QuantizedDotFormat>(quantized format: F.Type) -> KernelTraits? {
                KernelTraits(layouts: F.Kernel.activationLayouts,
                             groupsPerTileAtLeast: (F.Kernel.self as? any RowGroupKernel.Type)?.tileGroupsAtLeast)
            }
        }
        return BlockFormats.visit(type, Traits()) ?? nil
    }
}

/// What a kernel of one block format reads, as products need to know it before calling the
/// kernel: the activation layouts to quantize, and whether to interleave the matrix in
/// ``RowGroups``. A kernel tier library answers with these for its own kernels
/// (``KernelTierLibrary``).
struct KernelTraits: Equatable {
    /// The activation layouts the kernel reads.
    var layouts: Q8Activations.Layouts
    /// The fewest row groups per tile its grouped products take
    /// (``RowGroupKernel/tileGroupsAtLeast``); nil when it reads rows, not row groups.
    var groupsPerTileAtLeast: Int?

    /// The traits as one integer, for the C interface of a kernel tier library: the layouts'
    /// raw value in the low 16 bits, then a bit for row groups, then their fewest per tile.
    var encoded: Int {
        layouts.rawValue & 0xFFFF | (groupsPerTileAtLeast.map { 1 << 16 | $0 << 17 } ?? 0)
    }

    init(layouts: Q8Activations.Layouts, groupsPerTileAtLeast: Int?) {
        self.layouts = layouts
        self.groupsPerTileAtLeast = groupsPerTileAtLeast
    }

    /// Decodes ``encoded``; nil for a negative value (no integer kernel).
    init?(encoded: Int) {
        guard encoded >= 0 else { return nil }
        layouts = Q8Activations.Layouts(rawValue: encoded & 0xFFFF)
        groupsPerTileAtLeast = encoded & 1 << 16 != 0 ? encoded >> 17 : nil
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
