// Integer dot product of TQ1_0 weights with 8-bit activations.
//
// The eight activation blocks of a super-block read these ternary digits (TQ1_0.swift):
//   blocks 0…4   digit b of bytes 0…31 (weights 0…15 of the block from bytes 0…15, 16…31
//                from bytes 16…31)
//   blocks 5, 6  digits 2(b − 5) and 2(b − 5) + 1 of bytes 32…47 (one digit per half block)
//   block 7      digit 4 of bytes 32…47, then digit m of qh byte k for weight 240 + 4m + k
// Each set of 16 bytes is loaded once per super-block and brought into lane order (lane 4k+m
// holds byte 4m+k, as Q4_0's nibbles). A digit is then three multiplies, a mask and a shift
// per lane: ((c·3^j mod 256)·3) >> 8. For the qh half, repeating the one 32-bit word of qh
// puts byte k in lane 4k+m, and lane 4k+m is multiplied by 3^m. Per block:
//   Σ d·(t_i − 1)·d_b·x_i = d·d_b·Σ (t_i − 1)·x_i,
// the sum on integers, then one multiply-add by d·d_b, as Q4_0's.

extension TQ1_0: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    /// 3^m in lane 4k+m: the multiplier that brings digit m of qh byte k to the top.
    static let qhPowers = SIMD16<UInt32>(1, 3, 9, 27, 1, 3, 9, 27, 1, 3, 9, 27, 1, 3, 9, 27)

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        var scales = activations.scales
        let shifts = IntegerLanes.byteShifts, powers = qhPowers
        for _ in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            subBlocks(block, shifts, powers) { low, high, k in
                products.multiplyAdd(
                    IntegerLanes.blockProducts(low, high, values + 128 * k), SIMD16(repeating: d * scales[k]))
            }
            values += 1024
            scales += 8
            block += bytesPerBlock
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): each block's digits are unpacked once. Every
    /// vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so each
    /// result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        let shifts = IntegerLanes.byteShifts, powers = qhPowers
        var block = row
        for sb in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            subBlocks(block, shifts, powers) { low, high, k in
                products.add(low, high, block: 8 * sb + k, scale: d)
            }
            block += bytesPerBlock
        }
        return products.sums
    }

    /// Calls `body` with the weights `t − 1` of each of the super-block's eight activation
    /// blocks `k` in order, lane-ordered: the low half (weights 32k…32k+15) and the high half,
    /// as two's-complement lanes.
    @inline(__always)
    static func subBlocks(
        _ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>, _ qhPowers: SIMD16<UInt32>,
        _ body: (SIMD16<UInt32>, SIMD16<UInt32>, Int) -> Void
    ) {
        let first = (IntegerLanes.repeated(block, qsOffset) &>> shifts) & 0xFF
        let second = (IntegerLanes.repeated(block, qsOffset + 16) &>> shifts) & 0xFF
        let third = (IntegerLanes.repeated(block, qsOffset + 32) &>> shifts) & 0xFF
        var power: UInt32 = 1  // 3^k
        for k in 0..<5 {
            body(digits(first, power), digits(second, power), k)
            power &*= 3
        }
        body(digits(third, 1), digits(third, 3), 5)
        body(digits(third, 9), digits(third, 27), 6)
        let qh = SIMD16(repeating: UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)))
        body(digits(third, 81), digits((qh &>> shifts) & 0xFF, qhPowers), 7)
    }

    /// The digit selected by `power` (3^j) of each lane's byte `c` (0…255), minus 1.
    @inline(__always)
    static func digits(_ c: SIMD16<UInt32>, _ power: UInt32) -> SIMD16<UInt32> {
        ((((c &* power) & 0xFF) &* 3) &>> 8) &- 1
    }

    /// ``digits(_:_:)-(_,UInt32)`` with a power per lane.
    @inline(__always)
    static func digits(_ c: SIMD16<UInt32>, _ power: SIMD16<UInt32>) -> SIMD16<UInt32> {
        ((((c &* power) & 0xFF) &* 3) &>> 8) &- 1
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var weights = [Int32](repeating: 0, count: 256)
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            if b % 8 == 0 { ternaryDigits(block, into: &weights) }
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            var integer: Int32 = 0
            for i in 0..<32 {
                integer += (weights[32 * (b % 8) + i] - 1) * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float(integer)
        }
        return total
    }

    /// The 256 digits `t` of the super-block at `block` in weight order, one at a time with the
    /// scalar decoder's ``digit(_:_:)``, each weight's byte and digit found from the layout.
    static func ternaryDigits(_ block: UnsafeRawPointer, into weights: inout [Int32]) {
        for i in 0..<256 {
            let byte: Int, j: Int
            switch i {
            case ..<160: (byte, j) = (qsOffset + i % 32, i / 32)
            case ..<240: (byte, j) = (qsOffset + 32 + (i - 160) % 16, (i - 160) / 16)
            default: (byte, j) = (qhOffset + (i - 240) % 4, (i - 240) / 4)
            }
            var power: UInt8 = 1
            for _ in 0..<j { power &*= 3 }
            weights[i] = digit(block.byte(at: byte), power)
        }
    }
}
