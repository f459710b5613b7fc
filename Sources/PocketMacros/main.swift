// The @Generable / @Guide compiler plugin. The compiler starts this executable and talks to it
// over stdin/stdout with length-prefixed JSON messages; PocketMacroKit does the work. Standard
// output carries only replies, so errors go to standard error.
import Foundation
import PocketMacroKit

let input = FileHandle.standardInput
let output = FileHandle.standardOutput
let handler = PluginMessageHandler()

/// Reads exactly `count` bytes, or fewer at the end of the input.
func read(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count {
        let chunk = input.readData(ofLength: count - bytes.count)
        if chunk.isEmpty { break }
        bytes += chunk
    }
    return bytes
}

while true {
    let header = read(MessageFraming.headerSize)
    if header.isEmpty { break }  // the compiler closed the stream: we are done
    do {
        let length = try MessageFraming.payloadLength(header: header)
        let payload = read(length)
        guard payload.count == length else {
            FileHandle.standardError.write(Data("PocketMacros: message cut short (\(payload.count) of \(length) bytes)\n".utf8))
            exit(1)
        }
        // The compiler ends a session with an empty frame; it expects no answer.
        if payload.isEmpty { continue }
        if let reply = handler.reply(to: payload) {
            output.write(Data(MessageFraming.frame(reply)))
        }
    } catch {
        FileHandle.standardError.write(Data("PocketMacros: \(error)\n".utf8))
        exit(1)
    }
}
