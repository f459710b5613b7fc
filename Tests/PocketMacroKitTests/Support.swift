/// The UTF-8 offset of the first occurrence of `needle` in `text` (tests compute expected
/// diagnostic positions this way, independently of the lexer).
func offset(of needle: String, in text: String) -> Int? {
    let haystack = Array(text.utf8)
    let pattern = Array(needle.utf8)
    guard pattern.count <= haystack.count else { return nil }
    for start in 0...(haystack.count - pattern.count) where Array(haystack[start..<start + pattern.count]) == pattern {
        return start
    }
    return nil
}
