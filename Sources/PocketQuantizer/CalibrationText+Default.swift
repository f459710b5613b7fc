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
        do throws(QuantizationError) {
            if let bundle = resourceBundle() { return .success(try builtIn(in: bundle)) }
            // A checkout whose build products moved: the source file itself.
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources/calibration.txt")
            guard FileManager.default.fileExists(atPath: source.path) else {
                throw .unreadableCalibration(path: source.path, reason: "PocketQuantizer's resource bundle is not next to the executable")
            }
            return .success(CalibrationText(name: builtInName, text: try CalibrationText(contentsOf: source).text))
        } catch {
            return .failure(error)
        }
    }()

    /// PocketQuantizer's resource bundle (`<package>_PocketQuantizer.resources`, or `.bundle` on
    /// Apple platforms) beside the executable or its resources, or `nil`. Looked up here rather
    /// than with SwiftPM's `Bundle.module`, whose accessor stops the process when the bundle is
    /// missing (a `pocket` binary copied without it).
    static func resourceBundle() -> Bundle? {
        let places = [Bundle.main.resourceURL, Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()]
        for place in places.compactMap({ $0 }) {
            let entries = (try? FileManager.default.contentsOfDirectory(at: place, includingPropertiesForKeys: nil)) ?? []
            for entry in entries.sorted(by: { $0.path < $1.path })
            where entry.lastPathComponent.hasSuffix("_PocketQuantizer.resources") || entry.lastPathComponent.hasSuffix("_PocketQuantizer.bundle") {
                if let bundle = Bundle(url: entry) { return bundle }
            }
        }
        return nil
    }

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
