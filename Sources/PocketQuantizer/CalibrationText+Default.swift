import Foundation

// The default calibration text of `pocket quantize` (``CalibrationText/default``): the project's
// own documentation (README.md, docs/architecture.md, docs/transformer.md, docs/tokenizer.md,
// docs/gguf.md as they were when it was frozen), a mix of English prose, Swift code, shell
// commands and tables written for this project. It is none of the texts the tests or the
// perplexity measurements score (docs/quantization.md: "Calibration"). The text is the resource
// `Resources/calibration.txt`, which must not change: quantization results depend on every byte
// (`CalibrationTextTests` checks its length and hash).

extension CalibrationText {
    /// The text shipped with Pocket for collecting activation statistics (about 31 KB), read
    /// once from the module's resources.
    ///
    /// - Throws: ``QuantizationError/unreadableCalibration(path:reason:)`` when the resource
    ///   cannot be read (an installation without PocketQuantizer's resource bundle).
    public static var `default`: CalibrationText {
        get throws(QuantizationError) { try builtIn.get() }
    }

    /// The default text, or why it cannot be read, looked up once.
    private static let builtIn: Result<CalibrationText, QuantizationError> = {
        do throws(QuantizationError) { return .success(try builtIn(in: .module)) } catch { return .failure(error) }
    }()

    /// The name of the default text (the resource's name in `bundle` is `calibration.txt`).
    static let builtInName = "built-in (Pocket's documentation)"

    /// Reads the default text from `bundle` (the module's resource bundle, or another in tests).
    static func builtIn(in bundle: Bundle) throws(QuantizationError) -> CalibrationText {
        guard let url = bundle.url(forResource: "calibration", withExtension: "txt") else {
            throw .unreadableCalibration(path: bundle.bundleURL.appendingPathComponent("calibration.txt").path,
                                         reason: "PocketQuantizer's built-in calibration text is not in its resource bundle")
        }
        return CalibrationText(name: builtInName, text: try CalibrationText(contentsOf: url).text)
    }
}
