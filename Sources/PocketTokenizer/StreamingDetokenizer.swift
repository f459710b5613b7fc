/// Turns generated tokens into text as they arrive, never emitting half a character.
///
/// A UTF-8 character can be split across tokens (byte-level vocabularies have tokens for
/// single bytes of emoji and CJK characters). The detokenizer holds back an incomplete
/// trailing sequence until the bytes that complete it arrive; bytes that cannot form a valid
/// character are emitted as U+FFFD.
///
/// ```swift
/// var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
/// for id in generated { print(detokenizer.append(id), terminator: "") }
/// print(detokenizer.finish())
/// ```
public struct StreamingDetokenizer {
    private let tokenizer: Tokenizer
    private var pending: [UInt8] = []

    /// Creates a detokenizer for `tokenizer`'s vocabulary.
    public init(tokenizer: Tokenizer) {
        self.tokenizer = tokenizer
    }

    /// Adds one token and returns the text that is now complete (possibly empty).
    public mutating func append(_ id: Int) -> String {
        pending += tokenizer.bytes(of: id)
        let complete = Self.completePrefixLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeSubrange(..<complete)
        return text
    }

    /// Returns whatever is still held back (an incomplete sequence becomes U+FFFD) and resets.
    public mutating func finish() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Length of the longest prefix of `bytes` that does not end inside a character that more
    /// bytes could still complete.
    static func completePrefixLength(_ bytes: [UInt8]) -> Int {
        // Look back at most 3 bytes for the lead byte of an unfinished sequence.
        var i = bytes.count - 1
        var continuation = 0
        while i >= 0 && continuation < 3 && bytes[i] & 0xC0 == 0x80 {
            continuation += 1
            i -= 1
        }
        guard i >= 0 else { return bytes.count }
        let lead = bytes[i]
        let needed = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 1
        // A valid lead byte still waiting for continuation bytes: hold the sequence back.
        return needed > continuation + 1 ? i : bytes.count
    }
}
