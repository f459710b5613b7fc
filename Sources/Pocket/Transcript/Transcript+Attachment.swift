import Foundation

// Attachments in a transcript (Apple's FoundationModels 27): a segment that holds an image
// instead of text. Pocket's models read text only, so these are data: they can be built,
// saved and read back, and Pocket renders each as a short text placeholder naming its label
// (see `Transcript.Segment.text`).

extension Transcript {
    /// A segment that holds attached content, such as an image.
    ///
    /// ```swift
    /// let photo = Transcript.ImageAttachment(url: URL(fileURLWithPath: "/tmp/photo.png"))
    /// let segment = Transcript.Segment.attachment(.init(content: .image(photo), label: "photo-1"))
    /// ```
    public struct AttachmentSegment: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The attached content.
        public var content: Attachment
        /// A name the model and tools can refer to the attachment by, if any.
        public var label: String?

        /// Creates an attachment segment.
        ///
        /// - Parameters:
        ///   - id: The identifier.
        ///   - content: The attached content.
        ///   - label: A name for the attachment, if any.
        public init(id: String = UUID().uuidString, content: Attachment, label: String? = nil) {
            self.id = id
            self.content = content
            self.label = label
        }

        /// The text Pocket's text-only models see in place of the attachment:
        /// `[image: label]`, or `[image]` without a label.
        public var description: String {
            let kind = switch content { case .image: "image" }
            return label.map { "[\(kind): \($0)]" } ?? "[\(kind)]"
        }
    }

    /// The kinds of attached content.
    public enum Attachment: Sendable, Equatable, Codable {
        /// An image.
        case image(ImageAttachment)
    }

    /// An image in a transcript, referred to by its file URL or held as encoded bytes.
    ///
    /// Apple's type also offers the image as `CGImage`, `CIImage` and pixel buffers; those
    /// frameworks are not available to Pocket, so it keeps the source (URL or bytes) only.
    public struct ImageAttachment: Sendable, Equatable, Codable {
        /// The URL of the image file, if the attachment was made from one.
        public var url: URL?
        /// The encoded image (PNG, JPEG, …), if the attachment was made from bytes.
        public var data: Data?

        /// Creates an image attachment that refers to an image file.
        ///
        /// - Parameter url: The image file's URL.
        public init(url: URL) {
            self.url = url
            self.data = nil
        }

        /// Creates an image attachment from encoded image bytes.
        ///
        /// - Parameter data: The encoded image (PNG, JPEG, …).
        public init(data: Data) {
            self.url = nil
            self.data = data
        }
    }
}
