import Foundation

/// A text the model is run on to measure which weights matter (``ImportanceMatrix``).
///
/// `pocket quantize --calibration FILE` reads one; without the option the built-in
/// ``default`` (Pocket's own documentation) is used. The text must not be the one perplexity
/// is measured on, or the measurement would flatter the quantized model.
///
/// ```swift
/// let calibration = try CalibrationText(contentsOf: URL(fileURLWithPath: "notes.txt"))
/// ```
public struct CalibrationText: Sendable, Equatable {
    /// Where the text comes from (a path, or a description of the built-in text).
    public let name: String
    /// The text.
    public let text: String

    /// A text from memory.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// Reads a UTF-8 text file.
    ///
    /// - Throws: ``QuantizationError/unreadableCalibration(path:reason:)`` when the file is
    ///   missing, unreadable, not UTF-8, or empty.
    public init(contentsOf url: URL) throws(QuantizationError) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .unreadableCalibration(path: url.path, reason: "no such file or not readable")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadableCalibration(path: url.path, reason: "not UTF-8 text")
        }
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw .unreadableCalibration(path: url.path, reason: "the file is empty")
        }
        self.init(name: url.path, text: text)
    }
}
