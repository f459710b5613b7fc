import Foundation
@testable import Pocket
import PocketKernels
import Testing

/// A build of Pocket for a CPU this one is not: the model is ineligible, says why, and
/// responding throws instead of crashing.
@Suite struct UnsupportedCPUTests {
    static let error = UnsupportedCPUError(
        tier: .avx512, required: [.avx2, .avx512f, .avx512_fp16], missing: [.avx512_fp16], fastestSupportedTier: .avx512)

    @Test func unsupportedCPUMakesTheDeviceNotEligible() async throws {
        // The file does not exist either: the CPU is checked first, and is the reason given.
        let model = SystemLanguageModel(url: URL(fileURLWithPath: "/nonexistent/model.gguf"), checkCPU: { throw Self.error })
        #expect(model.availability == .unavailable(.deviceNotEligible))
        #expect(!model.isAvailable)
        let reported = try #require(model.unavailableError as? UnsupportedCPUError)
        #expect(reported == Self.error)
        #expect("\(reported)".contains("this CPU lacks avx512_fp16. Rebuild Pocket on this machine"))
        let session = LanguageModelSession(model: model)
        await #expect(throws: UnsupportedCPUError.self) { try await session.respond(to: "Hello") }
    }

    @Test func thisBuildRunsOnThisCPU() throws {
        try SystemLanguageModel.checkCPUSupport()
        let model = SystemLanguageModel(url: URL(fileURLWithPath: "/nonexistent/model.gguf"))
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(!(model.unavailableError is UnsupportedCPUError))
    }
}
