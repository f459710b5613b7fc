/// Keys and values of every position seen so far, for every layer, preallocated for the whole
/// context window.
///
/// Layout: `keys` and `values` are each `(layer, kvHead, position, headDim)` half-precision
/// floats. Half precision as in llama.cpp's default cache: half the memory and bandwidth of
/// single precision, and the rounding llama.cpp's reference outputs include. Positions of one
/// head are adjacent because attention streams through them: at a 4,096-token context a head's
/// keys are one contiguous megabyte instead of 256-byte pieces 2 KB apart, which made decoding
/// attention 1.7× faster (measured). The memory is reserved once; pages are only touched as
/// positions fill, so a large context costs address space, not resident memory, until it is used.
public final class KVCache: @unchecked Sendable {
    /// Positions the cache can hold (the context window).
    public let capacity: Int
    /// Number of layers.
    public let layerCount: Int
    /// Key/value heads per layer.
    public let headCount: Int
    /// Halves per head per position.
    public let headDimension: Int
    /// `(layer, kvHead, position, headDim)` keys.
    public let keys: UnsafeMutablePointer<Float16>
    /// `(layer, kvHead, position, headDim)` values.
    public let values: UnsafeMutablePointer<Float16>

    /// Reserves a cache for `capacity` positions.
    public init(capacity: Int, layerCount: Int, headCount: Int, headDimension: Int) {
        self.capacity = capacity
        self.layerCount = layerCount
        self.headCount = headCount
        self.headDimension = headDimension
        keys = .allocate(capacity: layerCount * headCount * capacity * headDimension)
        values = .allocate(capacity: layerCount * headCount * capacity * headDimension)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Bytes reserved for keys and values together.
    public var byteCount: Int { 2 * layerCount * headCount * capacity * headDimension * MemoryLayout<Float16>.stride }

    /// The key of `head` in `layer` at `position`; the next position's follows it directly.
    @inline(__always) public func keys(layer: Int, head: Int, position: Int) -> UnsafeMutablePointer<Float16> {
        keys + offset(layer, head, position)
    }

    /// The value of `head` in `layer` at `position`; the next position's follows it directly.
    @inline(__always) public func values(layer: Int, head: Int, position: Int) -> UnsafeMutablePointer<Float16> {
        values + offset(layer, head, position)
    }

    @inline(__always) private func offset(_ layer: Int, _ head: Int, _ position: Int) -> Int {
        ((layer * headCount + head) * capacity + position) * headDimension
    }
}
