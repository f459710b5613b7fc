/// A 32-weight row-group format with a minimum, `x = d·q + m` (Q4_1, Q5_1): blocks of `d`, `m`,
/// then words of unsigned weights `q`, whose kernels keep llama.cpp's x86 float order.
///
/// Per row: eight float lanes, lane i accumulating `d·d_x` times the four products of weights
/// 4i…4i+3 block after block (fused multiply-adds), summed pairwise at the end
/// (`pairwiseSum()`), plus the minimums' term, Σ m·``minimumFactor(_:_:)`` over the blocks,
/// accumulated on its own. The x86 row kernels (`AffineKernel.swift`) and row-group kernels
/// (`AffineKernel+RowGroups.swift`) both compute exactly this, so a matrix gives the same bits
/// whether it is grouped or not.
protocol AffineGroupFormat: WordGroupFormat {
    /// What block `b`'s minimum multiplies: `d_x·Σx` of the block's activations (Q4_1 reads
    /// llama.cpp's fp16-rounded one, Q5_1 the exact one).
    static func minimumFactor(_ x: Q8Vector, _ b: Int) -> Float
}

extension AffineGroupFormat {
    /// `d`, then `m`.
    public static var halfCount: Int { 2 }
    /// No offset: the minimum takes its place.
    public static var weightOffset: Int32 { 0 }

    /// llama.cpp's order, one weight at a time (see ``AffineGroupFormat``).
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        let block = UnsafeMutableRawPointer.allocate(byteCount: bytesPerBlock, alignment: 4)
        defer { block.deallocate() }
        var lanes = [Float](repeating: 0, count: 8)
        var offsets: Float = 0
        for b in 0..<blocks {
            deinterleave(column: group + b * groupColumnBytes, row: row, into: block)
            let q = unsignedWeights(block)
            let scale = UnsafeRawPointer(block).loadHalf(at: 0) * x.scales[b]
            for i in 0..<8 {
                var product: Int32 = 0
                for k in 4 * i..<4 * i + 4 { product += Int32(q[k]) * Int32(x.bytes[32 * b + k]) }
                lanes[i] = lanes[i].plusProduct(scale, Float(product))
            }
            offsets = offsets.plusProduct(UnsafeRawPointer(block).loadHalf(at: 2), minimumFactor(x, b))
        }
        return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7])) + offsets
    }
}
