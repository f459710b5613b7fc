import PocketGrammar

extension GeneratedContent {
    /// Reads the whole content as a value of the given type.
    ///
    /// - Parameter type: The type to read.
    /// - Returns: The converted value.
    /// - Throws: ``ConversionError`` when the content does not fit the type.
    public func value<Value: ConvertibleFromGeneratedContent>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(self)
    }

    /// Reads one property of a structure.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - property: The property name.
    /// - Returns: The converted property value.
    /// - Throws: ``ConversionError`` when this content is not a structure, the property is
    ///   missing, or its value does not fit; the error's path starts with `property`.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value.Type = Value.self, forProperty property: String
    ) throws -> Value {
        let properties = try structureProperties(reading: property)
        guard let content = properties[property] else {
            throw ConversionError(path: [property], expected: "a value of type \(Value.self)", content: self, isMissing: true)
        }
        return try ConversionError.prefixing(property) { try Value(content) }
    }

    /// Reads an optional property of a structure.
    ///
    /// - Parameters:
    ///   - type: The optional type to read.
    ///   - property: The property name.
    /// While a response streams, a property's value may be cut short (`"sight"` of an
    /// enumeration case `"sightseeing"`). An incomplete value that does not convert yet reads as
    /// `nil`, like a property that has not arrived; complete values convert strictly.
    ///
    /// - Returns: `nil` when the property is missing or `null` (or incomplete and not yet
    ///   convertible), else the converted value.
    /// - Throws: ``ConversionError`` when this content is not a structure or a complete value
    ///   does not fit; the error's path starts with `property`.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value?.Type = Value?.self, forProperty property: String
    ) throws -> Value? {
        let properties = try structureProperties(reading: property)
        guard let content = properties[property] else { return nil }
        if case .null = content.kind { return nil }
        do {
            return try ConversionError.prefixing(property) { try Value(content) }
        } catch where !content.isComplete {
            return nil
        }
    }

    private func structureProperties(reading property: String) throws -> [String: GeneratedContent] {
        guard case .structure(let properties, _) = kind else {
            throw ConversionError(path: [], expected: "a structure with the property \"\(property)\"", content: self)
        }
        return properties
    }

    /// An error thrown when generated content does not have the shape a type expects.
    ///
    /// This is a Pocket addition (Apple documents only that conversions throw). The
    /// description names where in the content the problem is and what was expected:
    ///
    /// ```text
    /// Cannot convert generated content at days[2].activities[0].title: expected a string,
    /// found the number 3
    /// ```
    public struct ConversionError: Error, CustomStringConvertible, Sendable {
        /// The path from the top-level content to the offending value: property names and
        /// array indices written as `"[2]"`. Empty for the top-level value.
        public let path: [String]
        /// What the converting type expected, e.g. `"a string"` or `"one of \"a\", \"b\""`.
        public let expected: String
        /// The content that did not fit (for a missing property: the structure that lacks it).
        public let content: GeneratedContent
        /// Whether the value was absent rather than of the wrong kind.
        public let isMissing: Bool

        /// Creates an error for content that does not fit.
        ///
        /// - Parameters:
        ///   - path: Property names and `"[index]"` components leading to `content`.
        ///   - expected: What was expected, as a phrase ("a string", "one of \"a\", \"b\"").
        ///   - content: The content found there.
        public init(path: [String], expected: String, content: GeneratedContent) {
            self.init(path: path, expected: expected, content: content, isMissing: false)
        }

        init(path: [String], expected: String, content: GeneratedContent, isMissing: Bool) {
            self.path = path
            self.expected = expected
            self.content = content
            self.isMissing = isMissing
        }

        /// The path written as in Swift: `days[2].activities[0].title`.
        public var pathDescription: String {
            var text = ""
            for component in path {
                if !text.isEmpty, !component.hasPrefix("[") { text += "." }
                text += component
            }
            return text
        }

        /// A sentence naming the path, the expected kind and what was found.
        public var description: String {
            let location = path.isEmpty ? "the top level" : pathDescription
            let found = isMissing ? "the property is missing" : "found \(Self.describe(content))"
            return "Cannot convert generated content at \(location): expected \(expected), \(found)"
        }

        /// This error with `component` in front of its path.
        ///
        /// A Pocket addition, used by code that reads nested content by hand (such as the
        /// `@Generable` expansion of enum cases with several associated values).
        ///
        /// - Parameter component: A property name, or an index written as `[2]`.
        public func prefixed(by component: String) -> ConversionError {
            ConversionError(path: [component] + path, expected: expected, content: content, isMissing: isMissing)
        }

        /// Runs `body`, adding `component` in front of the path of a conversion error it throws.
        static func prefixing<T>(_ component: String, _ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let error as ConversionError {
                throw ConversionError(
                    path: [component] + error.path, expected: error.expected, content: error.content,
                    isMissing: error.isMissing)
            }
        }

        static func describe(_ content: GeneratedContent) -> String {
            switch content.kind {
            case .null: return "null"
            case .bool(let value): return "the Boolean \(value)"
            case .number: return "the number \(content.jsonString)"
            case .string(let value):
                let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
                var quoted = ""
                JSONText.appendQuoted(shown, to: &quoted)
                return "the string \(quoted)"
            case .array(let elements): return "an array of \(elements.count) element\(elements.count == 1 ? "" : "s")"
            case .structure(let properties, let orderedKeys):
                let keys = GeneratedContent.outputKeys(properties, orderedKeys)
                return keys.isEmpty ? "an empty structure" : "a structure with keys \(keys.joined(separator: ", "))"
            }
        }
    }
}
