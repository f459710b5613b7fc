import Foundation
@testable import Pocket
import Testing

// The shapes of Apple's documentation examples for dynamic instructions and profiles (with
// the app's own types filled in), compiled and evaluated as written.

private struct ListPhotosTool: Tool {
    let description = "Lists the photos."
    func call(arguments: CityArguments) async throws -> String { "none" }
}

private struct AddPhotoTool: Tool {
    let description = "Adds a photo."
    func call(arguments: CityArguments) async throws -> String { "added" }
}

private struct ImageEditingInstructions: DynamicInstructions {
    var body: some DynamicInstructions {
        Instructions {
            "The person is editing an image."
        }
    }
}

/// `DynamicInstructions`' overview example.
private struct PresentationInstructions: DynamicInstructions {
    var isEditingImage = true

    var body: some DynamicInstructions {
        Instructions {
            "Help people improve their presentation."
        }
        ListPhotosTool()
        AddPhotoTool()

        if isEditingImage {
            ImageEditingInstructions()
        }
    }
}

/// `DynamicProfile`'s overview example: an `if`/`else if`/`else` chain of profiles.
private struct PresentationProfile: LanguageModelSession.DynamicProfile {
    var isEditingImage = true
    var isEditingAnimation = false

    var body: some LanguageModelSession.DynamicProfile {
        if isEditingImage {
            Profile { PresentationInstructions(isEditingImage: true) }
                .temperature(0.2)
        } else if isEditingAnimation {
            Profile { Instructions("Help with the animation.") }
                .reasoningLevel(.deep)
        } else {
            Profile { PresentationInstructions(isEditingImage: false) }
                .historyTransform { Array($0.suffix(20)) }
        }
    }
}

/// `SessionPropertyValues`' overview example, compacting the history after a response.
private struct CompactingProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.history)
    var history

    var body: some LanguageModelSession.DynamicProfile {
        Profile {
            Instructions("You are a helpful assistant.")
        }
        .onResponse {
            if history.count > 100 {
                history = Array(history.suffix(50))
            }
        }
    }
}

@Suite struct AppleProfileExamplesTests {
    @Test func theDynamicInstructionsExampleResolves() {
        let editing = PresentationInstructions(isEditingImage: true).resolved()
        #expect(editing.texts == ["Help people improve their presentation.", "The person is editing an image."])
        #expect(editing.tools.map(\.name) == ["ListPhotosTool", "AddPhotoTool"])
        #expect(PresentationInstructions(isEditingImage: false).resolved().texts.count == 1)
    }

    @Test func theDynamicProfileExampleResolvesEachBranch() throws {
        let image = try PresentationProfile().resolvedProfile()
        #expect(image.temperature == 0.2)
        let animation = try PresentationProfile(isEditingImage: false, isEditingAnimation: true).resolvedProfile()
        #expect(animation.reasoningLevel == .deep)
        #expect(animation.instructions?.resolved().texts == ["Help with the animation."])
        let other = try PresentationProfile(isEditingImage: false).resolvedProfile()
        #expect(other.historyTransforms.count == 1)
        // The three branches are three profiles (for activation).
        #expect(Set([image.identity, animation.identity, other.identity]).count == 3)
    }

    @Test func theCompactingExampleResolves() throws {
        let resolved = try CompactingProfile().resolvedProfile()
        #expect(resolved.onResponse.count == 1)
        #expect(resolved.instructions?.resolved().texts == ["You are a helpful assistant."])
    }
}
