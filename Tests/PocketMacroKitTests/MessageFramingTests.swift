import PocketMacroKit
import Testing

@Suite struct MessageFramingTests {
    @Test func framesAreLittleEndianLengthPrefixed() throws {
        let framed = MessageFraming.frame(Array("{}".utf8))
        #expect(framed == [2, 0, 0, 0, 0, 0, 0, 0, UInt8(ascii: "{"), UInt8(ascii: "}")])
        let long = [UInt8](repeating: 7, count: 300)
        #expect(Array(MessageFraming.frame(long).prefix(8)) == [44, 1, 0, 0, 0, 0, 0, 0])
        #expect(try MessageFraming.split(MessageFraming.frame(long) + framed) == [long, Array("{}".utf8)])
        #expect(try MessageFraming.split([]) == [])
    }

    @Test func truncatedStreamsAreErrors() throws {
        let framed = MessageFraming.frame(Array("{\"a\":1}".utf8))
        #expect(throws: MacroError.self) { try MessageFraming.split(Array(framed.dropLast())) }
        #expect(throws: MacroError.self) { try MessageFraming.split(framed + [1, 0, 0]) }
        #expect(throws: MacroError.self) {
            try MessageFraming.payloadLength(header: [0, 0, 0, 0, 0, 0, 0, 1])
        }
    }
}
