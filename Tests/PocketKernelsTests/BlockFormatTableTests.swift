import PocketGGUF
import PocketKernels
import Testing

/// The traits table and each format's byte layout against its formula.
@Suite struct BlockFormatTableTests {
    /// Bits of each weight's quantized value and bytes of scales per block, read off ggml's
    /// block definitions (independently of the formats' own `layout`). Value bits are a
    /// fraction where the values' bytes are not a whole number of bits per weight (TQ1_0's
    /// base-3 digits, IQ1's 11-bit codebook indices per 8 weights); every such fraction is
    /// exact in binary, so the size checks below stay exact.
    static let formula: [GGMLType: (valueBits: Double, scaleBytes: Int)] = [
        .f32: (32, 0), .f16: (16, 0), .bf16: (16, 0),
        .q4_0: (4, 2),  // d
        .q4_1: (4, 4),  // d, m
        .q5_0: (5, 2),  // d
        .q5_1: (5, 4),  // d, m
        .q8_0: (8, 2),  // d
        .q2_K: (2, 16 + 4),  // 16 packed scale/min bytes, d, dmin
        .q3_K: (3, 12 + 2),  // 16 six-bit scales, d
        .q4_K: (4, 12 + 4),  // 8 six-bit scales + 8 six-bit mins, d, dmin
        .q5_K: (5, 12 + 4),  // as Q4_K
        .q6_K: (6, 16 + 2),  // 16 int8 scales, d
        .iq2_xxs: (2, 2),  // d (the 4-bit scales are inside qs, with the grid and sign indices)
        .iq2_xs: (2, 2 + 8),  // d, 16 four-bit scales
        .iq2_s: (2.25, 2 + 8),  // 10-bit index per 8 weights (qs + qh), a sign bit per weight; d, 16 four-bit scales
        .iq3_xxs: (3, 2),  // d (the 4-bit sub-block scales share qs's sign words)
        .iq3_s: (3.25, 2 + 4),  // 9-bit index per 4 weights (qs + qh), a sign bit per weight; d, 4-bit scales
        .iq4_nl: (4, 2),  // d
        .iq4_xs: (4, 2 + 2 + 4),  // d, scales_h (8 × 2 high bits), scales_l (8 × 4 low bits)
        // qs: 8 index bits per group of 8 weights (1 bit each); qh: 16 bits per 32 weights (4 × 3
        // index bits, 3-bit scale, δ's sign; counted as values like other split-off high bits).
        .iq1_s: (1 + 0.5, 2),  // d
        // qs as IQ1_S's (1 bit each); qh: a nibble per group of 8 (3 index bits, δ's sign).
        .iq1_m: (1 + 0.5, 8),  // scales: 4 words of 3 × 3-bit scales and a nibble of the fp16 d
        // 240 digits five to a byte (48 bytes) and 16 four to a byte (4 bytes): 416 bits.
        .tq1_0: (416.0 / 256, 2),  // d
        .tq2_0: (2, 2),  // d
    ]

    @Test(arguments: BlockFormats.all.map { $0.type })
    func byteSizeMatchesFormula(type: GGMLType) throws {
        let format = try #require(BlockFormats.format(for: type))
        let formula = try #require(Self.formula[type], "no byte-size formula for \(type) in this test")
        let n = format.weightsPerBlock
        let valueBits = Double(n) * formula.valueBits
        try #require(valueBits == valueBits.rounded() && Int(valueBits) % 8 == 0, "\(type): values are not whole bytes")
        #expect(format.bytesPerBlock == Int(valueBits) / 8 + formula.scaleBytes)
        #expect(format.bytesPerBlock == type.typeSize)
        #expect(format.bitsPerWeight == formula.valueBits + Double(8 * formula.scaleBytes) / Double(n))

        // The layout tiles the block in order, and its value and scale bytes match the formula.
        var next = 0
        for field in format.layout {
            #expect(field.offset == next, "\(type): \(field) does not start where the previous field ends")
            #expect(field.byteCount > 0, "\(type): \(field) is empty")
            next = field.offset + field.byteCount
        }
        #expect(next == format.bytesPerBlock, "\(type): fields end at \(next) of \(format.bytesPerBlock)")
        let valueBytes = format.layout.filter { $0.role == .values }.map(\.byteCount).reduce(0, +)
        let scaleBytes = format.layout.filter { $0.role == .scales }.map(\.byteCount).reduce(0, +)
        #expect(valueBytes * 8 == Int(valueBits))
        #expect(scaleBytes == formula.scaleBytes)
        #expect(Set(format.layout.map(\.name)).count == format.layout.count, "\(type): duplicate field names")
    }

    @Test func everyTypeAppearsOnceAndMatchesItsBlockSize() {
        let types = BlockFormats.all.map { $0.type }
        #expect(Set(types).count == types.count, "a type is registered twice: \(types)")
        for format in BlockFormats.all {
            #expect(format.weightsPerBlock == format.type.blockSize, "\(format.type)")
            #expect(BlockFormats.format(for: format.type) == format, "\(format.type) looks up another format")
        }
    }

    @Test func eachRowHoldsItsOwnTypeAndEveryIntegerKernelIsReachable() {
        for type in GGMLType.allCases {
            guard let format = BlockFormats.format(for: type) else { continue }
            #expect(format.type == type, "the row for \(type) holds \(format.type)'s format")
            // A format with an integer kernel must be registered as quantized, or the matrix
            // products would not find its kernel.
            #expect((format is any QuantizedDotFormat.Type) == (BlockFormats.kernel(for: type) != nil), "\(type)")
            #expect((format is any QuantizableFormat.Type) == (BlockFormats.encoder(for: type) != nil), "\(type)")
        }
    }

    @Test func typesWithoutADecoderAreNotFound() {
        let registered = Set(BlockFormats.all.map { $0.type })
        for type in GGMLType.allCases where !registered.contains(type) {
            #expect(BlockFormats.format(for: type) == nil, "\(type)")
        }
        #expect(BlockFormats.format(for: .q8_K) == nil)
    }
}
