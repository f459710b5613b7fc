#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Text from the command line and standard input, checked to be UTF-8.
///
/// Swift's `CommandLine.arguments` and `readLine()` replace invalid bytes with U+FFFD; a prompt
/// or a document silently altered that way gives results for text the user never wrote. These
/// readers reject it instead, with an input error (exit status 2) saying where the bad byte is.
enum TextInput {
    /// The command-line arguments after the program name, each validated as UTF-8.
    ///
    /// - Throws: ``CLIError/input(_:)`` naming the first invalid argument (1-based, after the
    ///   program name) and the byte offset inside it.
    static func arguments() throws(CLIError) -> [String] {
        var result: [String] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                            count: strlen(pointer))
            if let offset = invalidUTF8Offset(bytes) {
                throw .input("argument \(index) is not valid UTF-8 (byte 0x\(hex(bytes[offset])) at byte offset \(offset))")
            }
            result.append(String(decoding: bytes, as: UTF8.self))
        }
        return result
    }

    /// Reads standard input one line at a time, like `readLine()`, but validating UTF-8.
    struct Lines {
        /// Standard input as a C stream of its own (the C library's `stdin` global is not
        /// concurrency-safe to name in Swift 6); nothing else in `pocket` reads standard input.
        nonisolated(unsafe) private static let stream = fdopen(STDIN_FILENO, "r")

        /// Lines read so far.
        private(set) var lineNumber = 0
        /// Bytes of standard input consumed so far.
        private(set) var byteOffset = 0

        /// The next line without its line break (`\n` or `\r\n`), or `nil` at the end of input.
        ///
        /// - Throws: ``CLIError/input(_:)`` naming the line (1-based) and the byte offset in
        ///   the whole input of the first invalid byte.
        mutating func next() throws(CLIError) -> String? {
            var buffer: UnsafeMutablePointer<CChar>?
            var capacity = 0
            defer { free(buffer) }
            let length = getline(&buffer, &capacity, Self.stream)
            guard length >= 0, let buffer else { return nil }
            var bytes = UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
            lineNumber += 1
            let lineStart = byteOffset
            byteOffset += length
            if let offset = invalidUTF8Offset(bytes) {
                throw .input("standard input line \(lineNumber) is not valid UTF-8 (byte 0x\(hex(bytes[offset])) at byte offset \(lineStart + offset) of the input)")
            }
            if bytes.last == UInt8(ascii: "\n") { bytes = UnsafeBufferPointer(rebasing: bytes.dropLast()) }
            if bytes.last == UInt8(ascii: "\r") { bytes = UnsafeBufferPointer(rebasing: bytes.dropLast()) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The offset of the first byte that does not start a valid UTF-8 sequence (overlong forms,
    /// surrogates and truncated sequences included), or `nil` if `bytes` is valid UTF-8.
    static func invalidUTF8Offset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
