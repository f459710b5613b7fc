// Q2_K with AVX-512 VNNI: four `vpdpbusd` per super-block.
//
// The 64 bytes of 2-bit values shifted right by 2j and masked are plane j: weights 32j…32j+31
// (bytes 0…31) and 128+32j… (bytes 32…63), unsigned. The activations' super-block bytes are
// stored in the same plane order (``Q8Activations/planeOrderPosition(_:)``), so one byte dot
// product per plane gives sixteen lanes of four products, four lanes per sub-block
// (2j, 2j+1, 8+2j, 9+2j). Each lane is multiplied by its sub-block's scale and the planes are
// added in integers; the mins meet the activations' scaled sub-block sums in one float
// multiply-add, as in the portable kernel:
//   Σ_s (d·sc_s·Σ q·x − dmin·m_s·Σ x)·a

#if POCKET_X86_KERNELS
extension Q2_K {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q2_K`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/superBytes``).
    public enum X86: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .superBytes }

        /// Per-lane shifts that bring the scale byte of lane L's sub-block (plane 0 or 2) to the
        /// bottom: lanes 4…7 and 12…15 belong to the odd sub-block, one byte further.
        static let laneShifts = SIMD16<UInt32>(0, 0, 0, 0, 8, 8, 8, 8, 0, 0, 0, 0, 8, 8, 8, 8)

        @inline(never)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var sum = SIMD16<Float>()
            var block = row
            var values = UnsafeRawPointer(x.superBytes)
            var sums = UnsafeRawPointer(x.scaledSubBlockSums)
            let shifts = laneShifts, minShifts = Q2_K.scaleShifts
            for sb in 0..<(blocks / 8) {
                let c = planeScales(block, shifts)
                let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD16<UInt32>.self)
                @inline(__always) func planeProducts(_ j: Int) -> SIMD16<Int32> {
                    ByteDot.dot(.zero, small: plane(qs, j), values.loadUnaligned(fromByteOffset: 64 * j, as: SIMD16<UInt32>.self))
                }
                var products = planeProducts(0) &* c.0
                products &+= planeProducts(1) &* c.1
                products &+= planeProducts(2) &* c.2
                products &+= planeProducts(3) &* c.3
                let scales = ByteDot.halves(block, dOffset)
                let d = scales[0] * x.superScales[sb], dmin = scales[1]
                sum.multiplyAdd(IntegerLanes.exactFloats(products), SIMD16(repeating: d))
                sum.multiplyAdd(IntegerLanes.exactFloats(mins(block, minShifts)) * -dmin, sums.loadUnaligned(as: SIMD16<Float>.self))
                block += bytesPerBlock
                values += 256
                sums += 64
            }
            return ByteDot.sum(sum)
        }

        /// Four activation vectors at once: each super-block's planes are unpacked and
        /// multiplied by their sub-block scales once (``scaledPlane(_:_:_:_:)``), so each vector
        /// takes four accumulating byte dot products per super-block instead of four products,
        /// four 32-bit multiplies and three additions. The integers are the same, and so is
        /// every float operation of ``dot(row:_:blocks:)``: the results are bit-identical.
        @inline(never)
        public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var sum0 = SIMD16<Float>(), sum1 = SIMD16<Float>(), sum2 = SIMD16<Float>(), sum3 = SIMD16<Float>()
            let v0 = UnsafeRawPointer(x.0.superBytes), v1 = UnsafeRawPointer(x.1.superBytes)
            let v2 = UnsafeRawPointer(x.2.superBytes), v3 = UnsafeRawPointer(x.3.superBytes)
            let s0 = UnsafeRawPointer(x.0.scaledSubBlockSums), s1 = UnsafeRawPointer(x.1.scaledSubBlockSums)
            let s2 = UnsafeRawPointer(x.2.scaledSubBlockSums), s3 = UnsafeRawPointer(x.3.scaledSubBlockSums)
            let minShifts = Q2_K.scaleShifts, picks = scalePicks
            var block = row
            for sb in 0..<(blocks / 8) {
                let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD16<UInt32>.self)
                let scaleBytes = block.loadUnaligned(fromByteOffset: scalesOffset, as: SIMD4<UInt32>.self)
                let table = SIMD16(lowHalf: SIMD8(lowHalf: scaleBytes, highHalf: scaleBytes),
                                   highHalf: SIMD8(lowHalf: scaleBytes, highHalf: scaleBytes))
                let w0 = scaledPlane(qs, 0, table, picks.0), w1 = scaledPlane(qs, 1, table, picks.1)
                let w2 = scaledPlane(qs, 2, table, picks.2), w3 = scaledPlane(qs, 3, table, picks.3)
                @inline(__always) func products(_ v: UnsafeRawPointer) -> SIMD16<Float> {
                    @inline(__always) func load(_ j: Int) -> SIMD16<UInt32> {
                        v.loadUnaligned(fromByteOffset: 256 * sb + 64 * j, as: SIMD16<UInt32>.self)
                    }
                    let p = ByteDot.dot(ByteDot.dot(.zero, below64: (w0, w1), (load(0), load(1))), below64: (w2, w3), (load(2), load(3)))
                    return IntegerLanes.exactFloats(p)
                }
                let scales = ByteDot.halves(block, dOffset), d = scales[0]
                let offsets = IntegerLanes.exactFloats(mins(block, minShifts)) * -scales[1]
                @inline(__always) func sums(_ s: UnsafeRawPointer) -> SIMD16<Float> {
                    s.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self)
                }
                sum0.multiplyAdd(products(v0), SIMD16(repeating: d * x.0.superScales[sb]))
                sum1.multiplyAdd(products(v1), SIMD16(repeating: d * x.1.superScales[sb]))
                sum2.multiplyAdd(products(v2), SIMD16(repeating: d * x.2.superScales[sb]))
                sum3.multiplyAdd(products(v3), SIMD16(repeating: d * x.3.superScales[sb]))
                sum0.multiplyAdd(offsets, sums(s0))
                sum1.multiplyAdd(offsets, sums(s1))
                sum2.multiplyAdd(offsets, sums(s2))
                sum3.multiplyAdd(offsets, sums(s3))
                block += bytesPerBlock
            }
            return SIMD4(ByteDot.sum(sum0), ByteDot.sum(sum1), ByteDot.sum(sum2), ByteDot.sum(sum3))
        }

        /// Plane j of the 2-bit values: weights 32j…32j+31 and 128+32j…, one per byte.
        @inline(__always)
        static func plane(_ qs: SIMD16<UInt32>, _ j: Int) -> SIMD16<UInt32> {
            (qs &>> UInt32(2 * j)) & 0x0303_0303
        }

        /// Plane j with each weight multiplied by its sub-block scale, still one unsigned byte
        /// each: q < 4 and the scale < 16, so q·scale < 64 and the 16-bit products of byte pairs
        /// with the scale do not carry into the neighbouring byte. `table` is the super-block's
        /// 16 scale bytes in each 16-byte lane and `pick` the plane's ``scalePicks`` entry: each
        /// 16-bit half of a lane gets its sub-block's scale byte, whose low nibble is the scale.
        @inline(__always)
        static func scaledPlane(_ qs: SIMD16<UInt32>, _ j: Int, _ table: SIMD16<UInt32>, _ pick: SIMD16<UInt32>) -> SIMD16<UInt32> {
            ByteDot.multiplyHalves(plane(qs, j), ByteDot.shuffleBytes(table, pick) & 0x000F_000F)
        }

        /// Per plane j, the byte shuffle indices that put the scale byte of each lane's
        /// sub-block (2j + (L/4)%2 + 8·(L/8), the same for the four lanes of a 16-byte lane) in
        /// the low byte of both 16-bit halves, and zero (0x80) in the high bytes.
        static let scalePicks: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>) = {
            func picks(_ j: Int) -> SIMD16<UInt32> {
                var v = SIMD16<UInt32>()
                for lane in 0..<16 {
                    let subBlock = UInt32(2 * j + (lane / 4) % 2 + 8 * (lane / 8))
                    v[lane] = subBlock | 0x80 << 8 | subBlock << 16 | 0x80 << 24
                }
                return v
            }
            return (picks(0), picks(1), picks(2), picks(3))
        }()

        /// Each plane's sub-block scales, lane L holding the scale of the sub-block its
        /// products belong to: 2j + (L/4)%2 + 8·(L/8).
        @inline(__always)
        static func planeScales(
            _ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>
        ) -> (SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>) {
            // Scale byte s is byte s%4 of word s/4: planes 0, 1 read words 0 (lanes 0…7) and 2
            // (lanes 8…15); planes 2, 3 words 1 and 3; odd planes two bytes further.
            let w = block.loadUnaligned(fromByteOffset: scalesOffset, as: SIMD4<UInt32>.self)
            let low = SIMD16(lowHalf: SIMD8(repeating: w[0]), highHalf: SIMD8(repeating: w[2]))
            let high = SIMD16(lowHalf: SIMD8(repeating: w[1]), highHalf: SIMD8(repeating: w[3]))
            @inline(__always) func scales(_ v: SIMD16<UInt32>, _ extra: UInt32) -> SIMD16<Int32> {
                unsafeBitCast((v &>> (shifts &+ extra)) & 0xF, to: SIMD16<Int32>.self)
            }
            return (scales(low, 0), scales(low, 16), scales(high, 0), scales(high, 16))
        }

        /// The sixteen mins in ``Q8Activations/subBlockLane(_:)`` order (that of the scaled sums).
        @inline(__always)
        static func mins(_ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>) -> SIMD16<Int32> {
            Q2_K.scalesAndMins(block, shifts).1
        }
    }
}
#endif
