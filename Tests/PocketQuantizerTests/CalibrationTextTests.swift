import Foundation
import Testing
@testable import PocketQuantizer

/// The built-in calibration text, read from the module's resources.
@Suite struct CalibrationTextTests {
    /// 64-bit FNV-1a of `bytes`.
    static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0100_0000_01b3 }
    }

    @Test func defaultIsTheFrozenText() throws {
        let text = try CalibrationText.default
        #expect(text.name == "built-in (Pocket's documentation)")
        // Length and hash of the string literal the text used to be (before it became
        // Resources/calibration.txt): any change would change quantization results.
        let bytes = Array(text.text.utf8)
        #expect(bytes.count == 31_774)
        #expect(Self.fnv1a(bytes) == 0x5201_5915_f9c7_0ccb)
        #expect(text.text.hasPrefix("# Pocket\n\nPocket is a pure-Swift"))
    }

    @Test func missingResourceIsATypedError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-bundle-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = try #require(Bundle(path: folder.path))
        #expect(throws: QuantizationError.unreadableCalibration(
            path: bundle.bundleURL.appendingPathComponent("calibration.txt").path,
            reason: "PocketQuantizer's built-in calibration text is not in its resource bundle")) {
            try CalibrationText.builtIn(in: bundle)
        }
    }
}
