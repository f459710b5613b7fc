import Foundation

/// Content attached to a prompt or instructions, such as an image, as in Apple's
/// FoundationModels (27).
///
/// ```swift
/// let prompt = Prompt {
///     "Compare these two images:"
///     Attachment(imageURL: first).label("image-0")
///     Attachment(imageURL: second).label("image-1")
/// }
/// ```
///
/// Pocket's models read text only: in a prompt an attachment becomes the placeholder text
/// `[image: label]` (``Transcript/AttachmentSegment/description``), so code written for image
/// prompts compiles and the model is told an image was there.
public struct Attachment<Content: Sendable>: Sendable {
    /// The attached content.
    public var content: Content
    /// The attachment's label, if one was assigned with ``label(_:)``.
    public var label: String?

    /// Assigns a label, which lets the model (and tools, through ``ImageReference``) refer to
    /// this attachment.
    ///
    /// - Parameter label: The name of the attachment.
    /// - Returns: The attachment with the label.
    public func label(_ label: String) -> Attachment<Content> {
        var copy = self
        copy.label = label
        return copy
    }
}

/// The content of an image attachment. Made by ``Attachment``'s initializers, never directly.
public struct ImageAttachmentContent: Sendable, Equatable {
    /// The image as a transcript holds it.
    let image: Transcript.ImageAttachment
}

extension Attachment where Content == ImageAttachmentContent {
    /// Creates an attachment from an image file.
    ///
    /// - Parameter imageURL: The image file's URL. It is not read: Pocket's models are text-only.
    public init(imageURL: URL) {
        self.init(content: ImageAttachmentContent(image: Transcript.ImageAttachment(url: imageURL)), label: nil)
    }

    /// The attachment as a transcript segment.
    public var transcriptSegment: Transcript.AttachmentSegment {
        Transcript.AttachmentSegment(content: .image(content.image), label: label)
    }
}

extension Attachment: PromptRepresentable where Content == ImageAttachmentContent {
    /// The attachment as a prompt part: an attachment segment of the prompt entry (its
    /// placeholder text `[image: label]` where the prompt is read as text).
    public var promptRepresentation: Prompt { Prompt(parts: [.attachment(transcriptSegment)]) }
}

extension Attachment: InstructionsRepresentable where Content == ImageAttachmentContent {
    /// The attachment's placeholder text (`[image: label]`).
    public var instructionsRepresentation: Instructions { Instructions(transcriptSegment.description) }
}

/// A reference to an image in a session's transcript by its attachment label, as in Apple's
/// FoundationModels (27): a tool can take one as an argument, and the model fills in the label.
///
/// ```swift
/// struct Arguments: Generable { var image: ImageReference … }
/// let image = arguments.image.resolved(in: transcript)
/// ```
public struct ImageReference: Generable, Sendable, Equatable {
    /// The label of the referenced image.
    public let attachmentLabel: String

    /// Creates a reference to the image with a label.
    ///
    /// - Parameter attachmentLabel: The image's label.
    public init(attachmentLabel: String) {
        self.attachmentLabel = attachmentLabel
    }

    /// An object with one string property, `attachmentLabel`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(
            type: ImageReference.self, description: "A reference to an attached image by its label",
            properties: [GenerationSchema.Property(name: "attachmentLabel", type: String.self)])
    }

    /// Reads a reference.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when `attachmentLabel` is missing or not a string.
    public init(_ content: GeneratedContent) throws {
        attachmentLabel = try content.value(String.self, forProperty: "attachmentLabel")
    }

    /// The reference as content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["attachmentLabel": attachmentLabel])
    }

    /// The image whose attachment segment has this label, searching the transcript from its
    /// last entry back; `nil` when there is none.
    ///
    /// - Parameter transcript: The session's transcript.
    /// - Returns: The referenced image, or `nil`.
    public func resolved(in transcript: Transcript) -> Transcript.ImageAttachment? {
        for entry in transcript.reversed() {
            for segment in entry.segments {
                if case .attachment(let a) = segment, a.label == attachmentLabel, case .image(let image) = a.content {
                    return image
                }
            }
        }
        return nil
    }
}
