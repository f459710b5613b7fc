import Foundation
import PocketGrammar
@testable import Pocket
import PocketTokenizer

/// A model-free vocabulary for the engine's tests: one token per byte, a few whole words, and
/// ChatML's special tokens; replies are scripted as lists of pieces.
enum ScriptedVocabulary {
    static let specials = ["<tool_call>", "</tool_call>", "<|im_start|>", "<|im_end|>"]
    /// Multi-byte tokens, so scripts can mix words with bytes.
    static let words = ["{\"name\"", "Paris", " is", " sunny", "getWeather", "\"city\"", "\n  ", "\n    ", "{\"", "`", "<b>"]

    /// GPT-2's byte-level text form of each byte (printable bytes stand for themselves, the
    /// others for U+0100 onwards in byte order).
    static let byteForms: [Character] = {
        let printable = Array(33...126) + Array(161...172) + Array(174...255)
        var forms = [Character](repeating: " ", count: 256)
        var next = 256
        for b in 0..<256 {
            if printable.contains(b) {
                forms[b] = Character(Unicode.Scalar(UInt8(b)))
            } else {
                forms[b] = Character(Unicode.Scalar(UInt32(next))!)
                next += 1
            }
        }
        return forms
    }()

    static let tokenizer: Tokenizer = {
        let byteTokens = (0..<256).map { String(byteForms[$0]) }
        let wordTokens = words.map { String(Array($0.utf8).map { byteForms[Int($0)] }) }
        let tokens = byteTokens + wordTokens + specials
        let types = [Int](repeating: 1, count: byteTokens.count + wordTokens.count) + [Int](repeating: 3, count: specials.count)
        return try! Tokenizer(
            tokens: tokens, tokenTypes: types, merges: [], preTokenizer: "gpt-2",
            bosToken: nil, eosToken: tokens.count - 1)
    }()

    static func special(_ text: String) -> Int { tokenizer.specialToken(text)! }
    static var endOfTurn: Int { special("<|im_end|>") }

    /// The grammar's view of the vocabulary.
    static let vocabulary = Vocabulary(
        tokens: (0..<tokenizer.vocabularySize).map { tokenizer.isSpecial($0) ? [] : tokenizer.bytes(of: $0) },
        endOfGeneration: tokenizer.endOfGenerationTokens)

    /// Token ids of `pieces`: a special token, a whole word, or else one token per byte.
    static func script(_ pieces: [String]) -> [Int] {
        pieces.flatMap { piece -> [Int] in
            if let id = tokenizer.specialToken(piece) { return [id] }
            if let w = words.firstIndex(of: piece) { return [256 + w] }
            return piece.utf8.map { Int($0) }
        }
    }

    /// A ChatML template with Qwen's native tool format (its markers and the prose around the
    /// tool list).
    static let nativeTemplate = ChatTemplate(template: """
        {%- for message in messages %}{{- '<|im_start|>' + message.role }}{%- endfor %}\
        {{- '# Tools\\n\\n<tools>' }}{{- '\\n</tools>\\n\\nCall a tool with <tool_call></tool_call>.<|im_end|>\\n' }}\
        {{- '<tool_response>' }}
        """)
}
