/// GPT-2's reversible mapping between bytes and printable Unicode characters.
///
/// Byte-level BPE vocabularies store every token as text in which each byte of the original
/// UTF-8 is replaced by one visible character: printable Latin-1 bytes map to themselves and
/// the rest (control characters, space, 0x7F–0xA0, 0xAD) to U+0100 and up, in byte order. So
/// `"Ġthe"` is the bytes `" the"` and `"Ċ"` is `"\n"`.
package enum ByteLevelEncoding {
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

    /// Byte for each character of the mapping, indexed by scalar value, or -1: the mapping's
    /// characters all lie below U+0144, so a flat table replaces a dictionary lookup per
    /// character (vocabularies hold ~150k tokens, decoded at every load).
    static let byteForCharacter: [Int16] = {
        var table = [Int16](repeating: -1, count: Int(characterForByte.map(\.value).max()!) + 1)
        for (byte, scalar) in characterForByte.enumerated() { table[Int(scalar.value)] = Int16(byte) }
        return table
    }()

    /// The byte a character of the mapping stands for, or `nil` for any other character.
    @inline(__always)
    static func byte(of scalar: Unicode.Scalar) -> UInt8? {
        let index = Int(scalar.value)
        guard index < byteForCharacter.count, byteForCharacter[index] >= 0 else { return nil }
        return UInt8(truncatingIfNeeded: byteForCharacter[index])
    }

    /// The original bytes of a vocabulary entry, or `nil` if it contains a character outside
    /// the mapping (then it is not a byte-level token).
    static func bytes(of token: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(token.utf8.count)  // at least one UTF-8 byte per character
        for scalar in token.unicodeScalars {
            guard let byte = byte(of: scalar) else { return nil }
            out.append(byte)
        }
        return out
    }

    /// Decodes a merge rule `"left right"` (two byte-level tokens and one space, which no
    /// byte-level token contains) into `buffer`: the left part's bytes, then the right part's.
    /// Returns the left part's length and both parts' length, or `nil` when the rule has no
    /// space or a character outside the mapping (a second space among them). `buffer` grows
    /// when needed.
    package static func decodePair(_ rule: String, into buffer: inout [UInt8]) -> (leftCount: Int, count: Int)? {
        var count = 0
        var leftCount: Int?
        for scalar in rule.unicodeScalars {
            if scalar == " ", leftCount == nil {
                leftCount = count
                continue
            }
            guard let byte = byte(of: scalar) else { return nil }
            if count == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            buffer[count] = byte
            count += 1
        }
        guard let leftCount else { return nil }
        return (leftCount, count)
    }
}
