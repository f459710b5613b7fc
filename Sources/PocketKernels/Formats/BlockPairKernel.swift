// The loop shared by the AVX-512 kernels of the 32-weight formats with an offset (Q5_0, Q8_0):
// one 512-bit `vpdpbusd` per two blocks. A format only says how to unpack its weights to
// unsigned bytes (``BlockPairKernel/pair(_:)``, ``BlockPairKernel/single(_:)``) and by how many
// multiples of the activations' group sums the product overshoots (`2^offsetShift`); the
// scaling, accumulation and tail are here, the same for every format.

#if POCKET_X86_KERNELS
/// An x86 kernel (``ByteDot``: AVX-512 VNNI, AVX2 or SSE2) that multiplies two 32-weight blocks per instruction.
///
/// Lanes 0…7 of a product hold block b (four consecutive weights each), lanes 8…15 block b + 1;
/// each half is scaled by its block's d·d_x and accumulated in sixteen float lanes; an odd last
/// block takes the low half alone.
protocol BlockPairKernel: SharedLoopKernel {
    /// Bytes per block of the format.
    static var blockBytes: Int { get }
    /// The unsigned weights are the signed ones plus `2^offsetShift` (Q5_0: 16, Q8_0: 128).
    static var offsetShift: Int32 { get }
    /// Blocks `block` and the next as 64 unsigned bytes in weight order, and their fp16 scales
    /// `d` (`block`'s in the low 16 bits): the products convert them as they need them.
    static func pair(_ block: UnsafeRawPointer) -> (weights: SIMD16<UInt32>, dBits: UInt32)
    /// One block as 32 unsigned bytes in weight order, and its scale `d`.
    static func single(_ block: UnsafeRawPointer) -> (weights: SIMD8<UInt32>, d: Float)
}

extension BlockPairKernel {
    /// The loop behind ``DotKernel/dot(row:_:blocks:)`` (see ``SharedLoopKernel``).
    @inline(__always)
    static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
        var lanes = SIMD16<Float>()
        var block = row
        var b = 0
        while b + 2 <= blocks {
            let (w, d) = pair(block)
            lanes.multiplyAdd(products(w, x, b), scales(ByteDot.halves(d), x, b))
            block += 2 * blockBytes
            b += 2
        }
        if b < blocks { addLast(&lanes, block, x, b) }
        return ByteDot.sum(lanes)
    }

    /// ``DotKernel/dot4(row:_:blocks:)`` for this kernel: each pair of blocks is unpacked once;
    /// every vector gets exactly the operations of ``loopDot(row:_:blocks:)``.
    @inline(__always)
    static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
        var block = row
        var b = 0
        while b + 2 <= blocks {
            let (w, dBits) = pair(block)
            let d = ByteDot.halves(dBits)
            l0.multiplyAdd(products(w, x.0, b), scales(d, x.0, b))
            l1.multiplyAdd(products(w, x.1, b), scales(d, x.1, b))
            l2.multiplyAdd(products(w, x.2, b), scales(d, x.2, b))
            l3.multiplyAdd(products(w, x.3, b), scales(d, x.3, b))
            block += 2 * blockBytes
            b += 2
        }
        if b < blocks {
            addLast(&l0, block, x.0, b); addLast(&l1, block, x.1, b)
            addLast(&l2, block, x.2, b); addLast(&l3, block, x.3, b)
        }
        return SIMD4(ByteDot.sum(l0), ByteDot.sum(l1), ByteDot.sum(l2), ByteDot.sum(l3))
    }

    /// ``DotKernel/dot4x4(rows:rowBytes:_:blocks:)`` for this kernel (not inlined, like
    /// ``SharedLoopKernel/dot(row:_:blocks:)``): per pair of
    /// blocks, each row is unpacked once and each vector's offset term and scales are prepared
    /// once, and the sixteen sums stay in registers. Every row and vector gets the integers and
    /// float operations of ``loopDot(row:_:blocks:)``: the offset term is the dot product's
    /// starting value instead of a subtraction after it (the same integer), and the scale the
    /// product of the spread weight and activation scales (the same floats), so the results
    /// are bit-identical.
    @inline(never)
    public static func dot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        var c0 = TileColumn(), c1 = TileColumn(), c2 = TileColumn(), c3 = TileColumn()
        let row0 = rows, row1 = rows + rowBytes, row2 = rows + 2 * rowBytes, row3 = rows + 3 * rowBytes
        var offset = 0
        var b = 0
        while b + 2 <= blocks {
            let p0 = pair(row0 + offset), p1 = pair(row1 + offset), p2 = pair(row2 + offset), p3 = pair(row3 + offset)
            let w = (p0.weights, p1.weights, p2.weights, p3.weights)
            // The scales spread as fp16 bits, then converted: a multiply with the vectors'
            // spread scales stays one instruction per product (measured 1.15x on the tile).
            let d = (ByteDot.spreadHalves(p0.dBits), ByteDot.spreadHalves(p1.dBits),
                     ByteDot.spreadHalves(p2.dBits), ByteDot.spreadHalves(p3.dBits))
            addPair(&c0, w, d, x.0, b)
            addPair(&c1, w, d, x.1, b)
            addPair(&c2, w, d, x.2, b)
            addPair(&c3, w, d, x.3, b)
            offset += 2 * blockBytes
            b += 2
        }
        if b < blocks {
            for r in 0..<4 {
                let block = rows + r * rowBytes + offset
                addLast(&c0[r], block, x.0, b); addLast(&c1[r], block, x.1, b)
                addLast(&c2[r], block, x.2, b); addLast(&c3[r], block, x.3, b)
            }
        }
        return TileColumn.sums(c0, c1, c2, c3)
    }

    /// Adds blocks `b` and `b + 1` of four rows (unpacked weights `w`, spread scales `d`) times
    /// one activation vector into that vector's sums.
    @inline(__always)
    static func addPair(
        _ c: inout TileColumn, _ w: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>),
        _ d: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), _ x: Q8Vector, _ b: Int
    ) {
        let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
        let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
        let start = SIMD16<Int32>.zero &- sums &<< offsetShift
        let s = ByteDot.spread(UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
        c.r0.multiplyAdd(ByteDot.floats(ByteDot.dot(start, offsetWeights: w.0, offsetShift: offsetShift, values)), d.0 * s)
        c.r1.multiplyAdd(ByteDot.floats(ByteDot.dot(start, offsetWeights: w.1, offsetShift: offsetShift, values)), d.1 * s)
        c.r2.multiplyAdd(ByteDot.floats(ByteDot.dot(start, offsetWeights: w.2, offsetShift: offsetShift, values)), d.2 * s)
        c.r3.multiplyAdd(ByteDot.floats(ByteDot.dot(start, offsetWeights: w.3, offsetShift: offsetShift, values)), d.3 * s)
    }

    /// The fp16 scales at `offset` of block `block` and of the next, as ``pair(_:)`` returns
    /// them.
    @inline(__always)
    static func scaleBits(_ block: UnsafeRawPointer, _ offset: Int) -> UInt32 {
        UInt32(block.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            | UInt32(block.loadUnaligned(fromByteOffset: blockBytes + offset, as: UInt16.self)) << 16
    }

    /// The 16 bytes at `offset` of a block as its 32 nibbles in weight order (weights 0…15 in
    /// the low nibbles, 16…31 in the high ones: Q4_0's and Q5_0's `qs`).
    @inline(__always)
    static func nibbles(_ block: UnsafeRawPointer, _ offset: Int) -> SIMD8<UInt32> {
        let q = block.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self)
        return SIMD8(lowHalf: q, highHalf: q &>> 4) & 0x0F0F_0F0F
    }

    /// The weight scales of blocks `b` and `b + 1` times their activation scales, spread over
    /// their lanes.
    @inline(__always)
    static func scales(_ d: SIMD2<Float>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        ByteDot.spread(d * UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
    }

    /// Sixteen lanes of four products each (blocks b, b + 1), exactly, as floats: the unsigned
    /// products minus the offset times each lane's activation sum.
    @inline(__always)
    static func products(_ weights: SIMD16<UInt32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
        let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
        return ByteDot.floats(ByteDot.dot(.zero, offsetWeights: weights, offsetShift: offsetShift, values) &- sums &<< offsetShift)
    }

    /// Adds an odd last block `b` into the low eight lanes.
    @inline(__always)
    static func addLast(_ lanes: inout SIMD16<Float>, _ block: UnsafeRawPointer, _ x: Q8Vector, _ b: Int) {
        let (w, d) = single(block)
        let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD8<UInt32>.self)
        let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD8<Int32>.self)
        let p = ByteDot.dot(.zero, offsetWeights: w, offsetShift: offsetShift, values) &- sums &<< offsetShift
        lanes.lowHalf.multiplyAdd(IntegerLanes.exactFloats(p), SIMD8(repeating: d * x.scales[b]))
    }
}
/// The sums of one activation vector with the four rows of a ``BlockPairKernel/dot4x4(rows:rowBytes:_:blocks:)``
/// tile, sixteen float lanes per row.
struct TileColumn {
    var r0 = SIMD16<Float>(), r1 = SIMD16<Float>(), r2 = SIMD16<Float>(), r3 = SIMD16<Float>()

    /// Row `r`'s lanes (for the tail of a loop; the hot path names the rows).
    subscript(r: Int) -> SIMD16<Float> {
        @inline(__always) get { r == 0 ? r0 : r == 1 ? r1 : r == 2 ? r2 : r3 }
        @inline(__always) set {
            switch r {
            case 0: r0 = newValue
            case 1: r1 = newValue
            case 2: r2 = newValue
            default: r3 = newValue
            }
        }
    }

    /// The tile's results from the four vectors' sums: element `k` of result `i` is row `i`
    /// times vector `k`.
    @inline(__always)
    static func sums(_ c0: TileColumn, _ c1: TileColumn, _ c2: TileColumn, _ c3: TileColumn)
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (SIMD4(ByteDot.sum(c0.r0), ByteDot.sum(c1.r0), ByteDot.sum(c2.r0), ByteDot.sum(c3.r0)),
         SIMD4(ByteDot.sum(c0.r1), ByteDot.sum(c1.r1), ByteDot.sum(c2.r1), ByteDot.sum(c3.r1)),
         SIMD4(ByteDot.sum(c0.r2), ByteDot.sum(c1.r2), ByteDot.sum(c2.r2), ByteDot.sum(c3.r2)),
         SIMD4(ByteDot.sum(c0.r3), ByteDot.sum(c1.r3), ByteDot.sum(c2.r3), ByteDot.sum(c3.r3)))
    }
}
#endif
