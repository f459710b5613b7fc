import Foundation

extension GenerationSchema {
    /// An error that occurs when there is a problem creating a generation schema.
    public enum SchemaError: Error, LocalizedError, Sendable {
        /// The context in which the error occurred.
        public struct Context: Sendable {
            /// A description of the problem for developers; not localized.
            public let debugDescription: String

            /// Creates a context.
            ///
            /// - Parameter debugDescription: A description of the problem for developers.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// An object schema declares two properties with the same name.
        case duplicateProperty(schema: String, property: String, context: Context)
        /// Two different schemas share a type name.
        case duplicateType(schema: String?, type: String, context: Context)
        /// An any-of schema has no choices.
        case emptyTypeChoices(schema: String, context: Context)
        /// A schema refers to names that no schema defines.
        case undefinedReferences(schema: String?, references: [String], context: Context)

        /// A sentence describing the problem.
        public var errorDescription: String? {
            switch self {
            case .duplicateProperty(let schema, let property, _):
                return "The schema \"\(schema)\" has more than one property named \"\(property)\"."
            case .duplicateType(let schema, let type, _):
                let place = schema.map { " in the schema \"\($0)\"" } ?? ""
                return "More than one schema is named \"\(type)\"\(place); type names must be unique."
            case .emptyTypeChoices(let schema, _):
                return "The any-of schema \"\(schema)\" has no choices."
            case .undefinedReferences(let schema, let references, _):
                let place = schema.map { "The schema \"\($0)\"" } ?? "A schema"
                let names = references.map { "\"\($0)\"" }.joined(separator: ", ")
                return "\(place) refers to undefined schemas: \(names)."
            }
        }

        /// How to fix the problem.
        public var recoverySuggestion: String? {
            switch self {
            case .duplicateProperty: return "Give every property of the schema a distinct name."
            case .duplicateType: return "Rename one of the schemas so that each name is used once."
            case .emptyTypeChoices: return "Pass at least one choice."
            case .undefinedReferences: return "Add the referenced schemas to the dependencies."
            }
        }

        /// The error's context.
        public var context: Context {
            switch self {
            case .duplicateProperty(_, _, let context), .duplicateType(_, _, let context),
                 .emptyTypeChoices(_, let context), .undefinedReferences(_, _, let context):
                return context
            }
        }
    }

    /// An error for a guide that cannot be expressed in the schema.
    ///
    /// A Pocket addition: thrown when a schema is encoded and a guide does not fit the value it
    /// constrains, or a `Regex` pattern guide has no source text (see
    /// ``GenerationGuide/pattern(_:)``).
    public struct GuideError: Error, LocalizedError, CustomStringConvertible, Sendable {
        /// What is wrong and where.
        public let message: String

        /// Creates a guide error.
        ///
        /// - Parameter message: What is wrong and where.
        public init(message: String) {
            self.message = message
        }

        /// The message.
        public var description: String { message }

        /// The message.
        public var errorDescription: String? { message }
    }
}
