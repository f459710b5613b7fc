import Testing
@testable import PocketGGUF

@Suite("GGUFValue")
struct GGUFValueTests {
    @Test func integerAccessor() {
        #expect(GGUFValue.int8(-3).integerValue == -3)
        #expect(GGUFValue.uint64(UInt64(Int.max)).integerValue == Int.max)
        #expect(GGUFValue.uint64(UInt64(Int.max) + 1).integerValue == nil)
        #expect(GGUFValue.float32(1).integerValue == nil)
        #expect(GGUFValue.bool(true).integerValue == nil)
    }

    @Test func floatAccessor() {
        #expect(GGUFValue.float32(0.1).floatValue == Double(Float(0.1)))
        #expect(GGUFValue.float64(0.1).floatValue == 0.1)
        #expect(GGUFValue.uint64(.max).floatValue == 18446744073709551615.0)
        #expect(GGUFValue.int16(-2).floatValue == -2)
        #expect(GGUFValue.string("1").floatValue == nil)
    }

    @Test func otherAccessors() {
        #expect(GGUFValue.string("x").stringValue == "x")
        #expect(GGUFValue.uint8(1).stringValue == nil)
        #expect(GGUFValue.bool(false).boolValue == false)
        #expect(GGUFValue.uint8(0).boolValue == nil)
        #expect(GGUFValue.array([.bool(true)]).arrayValue == [.bool(true)])
        #expect(GGUFValue.string("").arrayValue == nil)
    }

    @Test func valueTypeNumbersFollowTheSpec() {
        // gguf_metadata_value_type numbers from the GGUF specification.
        let expected: [(GGUFValue, UInt32)] = [
            (.uint8(0), 0), (.int8(0), 1), (.uint16(0), 2), (.int16(0), 3), (.uint32(0), 4), (.int32(0), 5),
            (.float32(0), 6), (.bool(false), 7), (.string(""), 8), (.array([]), 9), (.uint64(0), 10),
            (.int64(0), 11), (.float64(0), 12),
        ]
        for (value, number) in expected { #expect(value.valueType.rawValue == number, "\(value)") }
        #expect(GGUFValueType.allCases.count == 13)
    }
}
