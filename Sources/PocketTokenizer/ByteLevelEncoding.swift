/// GPT-2's reversible mapping between bytes and printable Unicode characters.
///
/// Byte-level BPE vocabularies store every token as text in which each byte of the original
/// UTF-8 is replaced by one visible character: printable Latin-1 bytes map to themselves and
/// the rest (control characters, space, 0x7F–0xA0, 0xAD) to U+0100 and up, in byte order. So
/// `"Ġthe"` is the bytes `" the"` and `"Ċ"` is `"\n"`.
enum ByteLevelEncoding {
    /// Character for each byte value.
    static let characterForByte: [Unicode.Scalar] = {
        var table = [Unicode.Scalar](repeating: "\0", count: 256)
        var next: UInt32 = 256
        for byte in 0..<256 {
            let printable = (0x21...0x7E).contains(byte) || (0xA1...0xAC).contains(byte) || (0xAE...0xFF).contains(byte)
            if printable {
                table[byte] = Unicode.Scalar(UInt32(byte))!
            } else {
                table[byte] = Unicode.Scalar(next)!
                next += 1
            }
        }
        return table
    }()

    /// Byte for each character of the mapping, keyed by scalar value.
    static let byteForCharacter: [UInt32: UInt8] = {
        var map: [UInt32: UInt8] = [:]
        for (byte, scalar) in characterForByte.enumerated() { map[scalar.value] = UInt8(byte) }
        return map
    }()

    /// The original bytes of a vocabulary entry, or `nil` if it contains a character outside
    /// the mapping (then it is not a byte-level token).
    static func bytes(of token: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(token.unicodeScalars.count)
        for scalar in token.unicodeScalars {
            guard let byte = byteForCharacter[scalar.value] else { return nil }
            out.append(byte)
        }
        return out
    }
}
