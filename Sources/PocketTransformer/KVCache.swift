/// Keys and values of every position seen so far, for every layer, preallocated for the whole
/// context window.
///
/// Layout: `keys` and `values` are each `(layer, position, kvHeads · headDim)` half-precision
/// floats, as in llama.cpp's default cache: half the memory and bandwidth of single precision,
/// and the rounding llama.cpp's reference outputs include. The memory is reserved once; pages
/// are only touched as positions fill, so a large context costs address space, not resident
/// memory, until it is used.
public final class KVCache: @unchecked Sendable {
    /// Positions the cache can hold (the context window).
    public let capacity: Int
    /// Number of layers.
    public let layerCount: Int
    /// Floats per position per layer (`kvHeads · headDim`).
    public let rowLength: Int
    /// `(layer, position, rowLength)` keys.
    public let keys: UnsafeMutablePointer<Float16>
    /// `(layer, position, rowLength)` values.
    public let values: UnsafeMutablePointer<Float16>

    /// Reserves a cache for `capacity` positions.
    public init(capacity: Int, layerCount: Int, rowLength: Int) {
        self.capacity = capacity
        self.layerCount = layerCount
        self.rowLength = rowLength
        keys = .allocate(capacity: layerCount * capacity * rowLength)
        values = .allocate(capacity: layerCount * capacity * rowLength)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Bytes reserved for keys and values together.
    public var byteCount: Int { 2 * layerCount * capacity * rowLength * MemoryLayout<Float16>.stride }

    /// The key row of `layer` at `position`.
    @inline(__always) public func keys(layer: Int, position: Int) -> UnsafeMutablePointer<Float16> {
        keys + (layer * capacity + position) * rowLength
    }

    /// The value row of `layer` at `position`.
    @inline(__always) public func values(layer: Int, position: Int) -> UnsafeMutablePointer<Float16> {
        values + (layer * capacity + position) * rowLength
    }
}
