import Foundation

/// A coarse script-based check for prompts that are clearly in an unsupported language.
///
/// Only scripts are told apart (Latin, Cyrillic, Greek, Arabic, Hebrew, Han, Kana, Hangul,
/// Devanagari, Thai): a prompt is rejected only when most of its letters are in a script none
/// of the model's listed languages uses. Latin-script languages are not told apart, so a
/// prompt is never rejected by mistake for being, say, French on an English-only model.
enum LanguageDetection {
    /// The script of a letter, or `nil` for non-letters.
    private static func script(of scalar: Unicode.Scalar) -> String? {
        guard scalar.properties.isAlphabetic else { return nil }
        switch scalar.value {
        case 0x41...0x24F, 0x1E00...0x1EFF: return "Latin"
        case 0x370...0x3FF: return "Greek"
        case 0x400...0x52F: return "Cyrillic"
        case 0x590...0x5FF: return "Hebrew"
        case 0x600...0x6FF, 0x750...0x77F: return "Arabic"
        case 0x900...0x97F: return "Devanagari"
        case 0xE00...0xE7F: return "Thai"
        case 0x3040...0x30FF: return "Kana"
        case 0xAC00...0xD7AF, 0x1100...0x11FF: return "Hangul"
        case 0x4E00...0x9FFF, 0x3400...0x4DBF: return "Han"
        default: return nil
        }
    }

    /// The scripts a language is written in.
    private static func scripts(of code: String) -> Set<String> {
        switch code {
        case "ru", "uk", "bg", "sr", "mk", "be", "kk": ["Cyrillic", "Latin"]
        case "el": ["Greek"]
        case "he", "yi": ["Hebrew"]
        case "ar", "fa", "ur": ["Arabic"]
        case "hi", "mr", "ne": ["Devanagari"]
        case "th": ["Thai"]
        case "ja": ["Kana", "Han"]
        case "zh": ["Han"]
        case "ko": ["Hangul", "Han"]
        default: ["Latin"]
        }
    }

    /// The name of the prompt's script when it is clearly one the model's languages do not use.
    ///
    /// A model that lists no languages supports everything.
    static func unsupportedLanguage(of text: String, supported: Set<Locale.Language>) -> String? {
        let codes = supported.compactMap { $0.languageCode?.identifier }
        guard !codes.isEmpty else { return nil }
        let allowed = codes.reduce(into: Set<String>()) { $0.formUnion(scripts(of: $1)) }
        var counts: [String: Int] = [:]
        var letters = 0
        for scalar in text.unicodeScalars {
            guard let s = script(of: scalar) else { continue }
            counts[s, default: 0] += 1
            letters += 1
        }
        guard letters >= 4, let (top, count) = counts.max(by: { $0.value < $1.value }) else { return nil }
        return !allowed.contains(top) && count * 10 >= letters * 7 ? "\(top) script" : nil
    }
}
