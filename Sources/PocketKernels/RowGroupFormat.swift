/// A 32-weight block format whose blocks can be interleaved across sixteen rows
/// (``RowGroups``): each block is ``halfCount`` fp16 fields followed by 32-bit words of
/// quantized weights, and its weights are unsigned bytes `q` with `x = d·(q − offset)` (or
/// `x = d·q + m` for the formats with a minimum).
///
/// In a row group, field `f` of the sixteen rows' blocks is sixteen consecutive fp16 values
/// and word `k` sixteen consecutive words, so a 512-bit load holds one word of every row: the
/// lanes of the kernels are rows (see docs/kernels.md, "Row groups").
public protocol RowGroupFormat: BlockFormat {
    /// The fp16 fields at the start of a block: 1 (`d`) or 2 (`d`, then the minimum `m`).
    static var halfCount: Int { get }
    /// What the unsigned weights exceed the signed ones by (Q4_0 8, Q5_0 16, Q8_0 128); 0 for
    /// the formats with a minimum.
    static var weightOffset: Int32 { get }
    /// Word `index` of a block as the row group stores it: the format may rearrange a word
    /// so that its kernel unpacks it with fewer instructions.
    static func groupWord(_ word: UInt32, at index: Int) -> UInt32
    /// The inverse of ``groupWord(_:at:)``.
    static func blockWord(_ word: UInt32, at index: Int) -> UInt32
    /// The block's 32 weights as unsigned bytes `q`, in weight order (the scalar reference of
    /// the row-group kernels).
    static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8]
    /// The product of row `row` of a group with `x` as the format's row-group kernel computes
    /// it, one weight at a time: the kernel's scalar reference, which it equals bit for bit.
    /// The default is the shared kernels' order (see RowGroups.swift).
    static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float
}

extension RowGroupFormat {
    /// Words of weights per block.
    public static var wordCount: Int { (bytesPerBlock - 2 * halfCount) / 4 }

    /// Stored as in the block.
    public static func groupWord(_ word: UInt32, at index: Int) -> UInt32 { word }
    /// Stored as in the block.
    public static func blockWord(_ word: UInt32, at index: Int) -> UInt32 { word }
}
