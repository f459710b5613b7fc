/// The framing of compiler plugin messages: an 8-byte little-endian length, then that many
/// bytes of JSON. Anything else on the plugin's standard output corrupts the stream, which is
/// why the plugin logs nothing there.
public enum MessageFraming {
    /// Bytes in the length header.
    public static let headerSize = 8

    /// `payload` prefixed with its length.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        let length = UInt64(payload.count)
        return (0..<headerSize).map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) } + payload
    }

    /// The payload length announced by an 8-byte header.
    ///
    /// - Throws: ``MacroError`` when `header` is not 8 bytes or announces more than `limit`.
    public static func payloadLength(header: [UInt8], limit: Int = 1 << 30) throws(MacroError) -> Int {
        guard header.count == headerSize else {
            throw MacroError("a plugin message header has \(headerSize) bytes, found \(header.count)", at: 0)
        }
        var length: UInt64 = 0
        for (index, byte) in header.enumerated() { length |= UInt64(byte) << (8 * UInt64(index)) }
        guard length <= UInt64(limit) else {
            throw MacroError("a plugin message announces \(length) bytes, more than the \(limit)-byte limit", at: 0)
        }
        return Int(length)
    }

    /// Splits a stream of whole frames into payloads.
    ///
    /// - Throws: ``MacroError`` at the frame that is cut short.
    public static func split(_ bytes: [UInt8]) throws(MacroError) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var position = 0
        while position < bytes.count {
            guard bytes.count - position >= headerSize else {
                throw MacroError("a plugin message header is cut short", at: position)
            }
            let length = try payloadLength(header: Array(bytes[position..<position + headerSize]))
            let start = position + headerSize
            guard length <= bytes.count - start else {
                throw MacroError("a plugin message announces \(length) bytes, \(bytes.count - start) follow", at: position)
            }
            payloads.append(Array(bytes[start..<start + length]))
            position = start + length
        }
        return payloads
    }
}
