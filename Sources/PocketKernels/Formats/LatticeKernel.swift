// The loop shared by the portable kernels of the lattice i-quants (IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_XXS, IQ3_S, IQ1_M): a super-block of 256 weights is 8 sub-blocks of 32, each exactly one
// activation block b. A format only says how to turn sub-block ib into integer lanes (grid
// points looked up, signed and multiplied by the sub-block's odd integer scale, in the
// activations' lane order) and which float multiplies every sub-block's integer sum (d times a
// power of two); the products, their scaling and accumulation are here, the same for all six.

/// A lattice format's portable kernel: per sub-block, integer lanes from
/// ``subBlockLanes(_:_:_:)``, one exact integer product with the activation block, one float
/// multiply-add by ``superBlockScale(_:)`` times the activation scale.
protocol LatticeKernel: QuantizedDotFormat {
    /// A grid entry: a `UInt64` of 8 one-byte values or a `UInt32` of 4.
    associatedtype Point
    /// The format's codebook (``IQGrids``).
    static var grid: [Point] { get }
    /// The format's per-lane shifts (where each lane's sign bit is, or which byte it takes),
    /// kept in a register for ``subBlockLanes(_:_:_:)``.
    static var laneShifts: SIMD16<UInt32> { get }
    /// The float that multiplies each sub-block's integer sum (with the activation scale).
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float
    /// The 32 weights of sub-block `ib` of the super-block at `block`, as integers in lane
    /// order: weights 0…15 and 16…31, two's-complement lanes.
    static func subBlockLanes(_ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<Point>) -> (SIMD16<UInt32>, SIMD16<UInt32>)
}

/// What a lattice kernel reads besides its blocks, made once per row: the grid and the sign
/// table as pointers (no per-element array access), and the lane shifts kept in registers.
struct LatticeTables<Point> {
    /// The format's codebook.
    let grid: UnsafePointer<Point>
    /// ``IQGrids/signs``: a 7-bit index to an 8-bit sign pattern.
    let signs: UnsafePointer<UInt8>
    /// ``IntegerLanes/byteShifts``.
    let shifts: SIMD16<UInt32>
    /// The format's ``LatticeKernel/laneShifts``.
    let laneShifts: SIMD16<UInt32>
}

extension LatticeKernel {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    /// Runs `body` with the tables, taken from the static arrays outside the loops.
    @inline(__always)
    static func withTables<R>(_ body: (LatticeTables<Point>) -> R) -> R {
        grid.withUnsafeBufferPointer { grid in
            IQGrids.signs.withUnsafeBufferPointer { signs in
                body(LatticeTables(grid: grid.baseAddress!, signs: signs.baseAddress!,
                                   shifts: IntegerLanes.byteShifts, laneShifts: laneShifts))
            }
        }
    }

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        withTables { tables in
            var products = SIMD16<Float>()
            var block = row
            var values = UnsafeRawPointer(activations.values)
            var b = 0
            for _ in 0..<(blocks / 8) {
                let d = superBlockScale(block)
                for ib in 0..<8 {
                    let (low, high) = subBlockLanes(block, ib, tables)
                    products.multiplyAdd(
                        IntegerLanes.blockProducts(low, high, values), SIMD16(repeating: d * activations.scales[b]))
                    values += 128
                    b += 1
                }
                block += bytesPerBlock
            }
            return products.sum()
        }
    }

    /// Four activation vectors at once (prefill): each sub-block's weights are looked up once.
    /// Every vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so each
    /// result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        withTables { tables in
            var products = FourProducts(x)
            var block = row
            for sb in 0..<(blocks / 8) {
                let d = superBlockScale(block)
                for ib in 0..<8 {
                    let (low, high) = subBlockLanes(block, ib, tables)
                    products.add(low, high, block: 8 * sb + ib, scale: d)
                }
                block += bytesPerBlock
            }
            return products.sums
        }
    }
}
