import Foundation

/// Writes to standard error, so standard output carries only results.
enum Log {
    static func info(_ message: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((message + (newline ? "\n" : "")).utf8))
    }

    static func error(_ message: String) {
        info("pocket: error: " + message)
    }

    /// Writes text to standard output immediately (for streaming generation).
    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
