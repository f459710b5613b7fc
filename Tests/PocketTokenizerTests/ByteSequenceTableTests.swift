import PocketTokenizer
import Testing

/// ``ByteSequenceTable`` against a `Dictionary` of the same sequences, and the merge-rule
/// decoding that feeds it (``ByteLevelEncoding/decodePair(_:into:)``).
@Suite struct ByteSequenceTableTests {
    /// 20,000 random sequences of 0–12 bytes over a small alphabet (many shared prefixes, some
    /// repeated): every one finds the token the dictionary gives it (the first inserted), and
    /// 5,000 others are absent, through several doublings of the slots.
    @Test func agreesWithADictionary() {
        var random = SystemRandomNumberGenerator()
        func sequence() -> [UInt8] { (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt8.random(in: 0...5, using: &random) } }
        var table = ByteSequenceTable(capacity: 10)
        var reference: [[UInt8]: Int] = [:]
        for token in 0..<20_000 {
            let s = sequence()
            s.withUnsafeBufferPointer { table.insertIfAbsent($0, token: token) }
            if reference[s] == nil { reference[s] = token }
        }
        #expect(table.count == reference.count)
        let wrong = reference.filter { table.token(of: $0.key) != $0.value }
        #expect(wrong.isEmpty, "\(wrong.count) of \(reference.count) sequences map to another token")
        var absent = 0
        for _ in 0..<5_000 {
            let s = sequence() + [6]  // byte 6 was never inserted
            if table.token(of: s) == nil { absent += 1 }
        }
        #expect(absent == 5_000)
    }

    @Test func theFirstTokenOfASequenceWins() {
        var table = ByteSequenceTable(capacity: 4)
        for (bytes, token) in [([1, 2], 7), ([1, 2], 9), ([], 3), ([], 4), ([1], 5)] as [([UInt8], Int)] {
            bytes.withUnsafeBufferPointer { table.insertIfAbsent($0, token: token) }
        }
        #expect(table.token(of: [1, 2]) == 7)
        #expect(table.token(of: []) == 3)
        #expect(table.token(of: [1]) == 5)
        #expect(table.token(of: [2]) == nil)
        #expect(table.count == 3)
    }

    /// A rule's parts come out back to back, split at the one space; anything that is not two
    /// byte-level tokens is refused, and a long rule grows the buffer.
    @Test func mergeRulesDecodeIntoOneBuffer() throws {
        var buffer = [UInt8](repeating: 0, count: 2)
        let (left, count) = try #require(ByteLevelEncoding.decodePair("Ġt he", into: &buffer))
        #expect(Array(buffer[0..<left]) == Array(" t".utf8))
        #expect(Array(buffer[left..<count]) == Array("he".utf8))
        #expect(ByteLevelEncoding.decodePair("nospace", into: &buffer) == nil)
        #expect(ByteLevelEncoding.decodePair("a b c", into: &buffer) == nil)  // a second space is not a byte-level character
        let long = String(repeating: "x", count: 300) + " y"
        let parts = try #require(ByteLevelEncoding.decodePair(long, into: &buffer))
        #expect(parts.leftCount == 300 && parts.count == 301 && buffer[300] == UInt8(ascii: "y"))
        let empty = try #require(ByteLevelEncoding.decodePair(" a", into: &buffer))
        #expect(empty.leftCount == 0 && empty.count == 1)
    }
}
