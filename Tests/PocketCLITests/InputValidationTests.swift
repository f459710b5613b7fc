import Foundation
import Testing

/// Runs `pocket` through `/bin/sh` so arguments and standard input can hold bytes a Swift
/// `String` cannot (invalid UTF-8): `script` sees the executable as `$0` and `extra` as `$1…`.
func runPocketInShell(_ script: String, _ extra: [String] = [], input: Data = Data()) throws
    -> (status: Int32, output: String, errors: String)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script, builtExecutable("pocket").path] + extra
    let stdin = Pipe(), output = Pipe(), errors = Pipe()
    process.standardInput = stdin
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// Invalid UTF-8 on the command line or standard input is an input error (exit status 2)
/// saying where it is, never silently replaced with U+FFFD.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct InputValidationTests {
    @Test func anInvalidArgumentIsNamed() throws {
        let result = try runPocketInShell(#"exec "$0" tokenize --model "$1" "$(printf 'ab\377c')""#, [smolLM2URL.path])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.errors.contains("argument 4 is not valid UTF-8 (byte 0xFF at byte offset 2)"), "\(result.errors)")
        #expect(result.output.isEmpty)
        // A truncated sequence (the first byte of "é" alone) and an overlong "/" too.
        for bytes in [#"a\303"#, #"\300\257"#] {
            let bad = try runPocketInShell(#"exec "$0" generate --model "$1" "$(printf '"# + bytes + #"')""#, [smolLM2URL.path])
            #expect(bad.status == 2 && bad.errors.contains("argument 4 is not valid UTF-8"), "\(bad.errors)")
        }
    }

    @Test func validMultibyteArgumentsStillWork() throws {
        let result = try runPocket(["tokenize", "--model", smolLM2URL.path, "héllo 🙂 中文"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("["))
    }

    @Test func invalidStandardInputIsNamedByLineAndOffset() throws {
        let schema = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-utf8-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: schema) }
        try Data(#"{"type":"string"}"#.utf8).write(to: schema)
        let input = Data(#""ok""#.utf8) + Data([0x0A, 0x22, 0x62, 0xFF, 0x64, 0x22, 0x0A])
        let result = try runPocketInShell(#"exec "$0" schema check --schema "$1" --model "$2""#,
                                          [schema.path, smolLM2URL.path], input: input)
        #expect(result.status == 2)
        #expect(result.output == "accept\n")
        #expect(result.errors.contains("standard input line 2 is not valid UTF-8 (byte 0xFF at byte offset 7 of the input)"),
                "\(result.errors)")

        let chat = try runPocketInShell(#"exec "$0" chat --model "$1" --greedy -n 2"#, [smolLM2URL.path],
                                        input: Data([0xC3, 0x28, 0x0A]))
        #expect(chat.status == 2)
        #expect(chat.errors.contains("standard input line 1 is not valid UTF-8 (byte 0xC3 at byte offset 0"), "\(chat.errors)")
    }
}
