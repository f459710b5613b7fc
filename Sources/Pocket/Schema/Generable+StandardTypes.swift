import Foundation

// Generable conformances of the standard types a @Generable property may have. Their schemas
// are inline (no title), so they never enter `$defs`.

extension String: Generable {
    /// A string: JSON Schema `{"type":"string"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .string(StringConstraints()), rootType: Self.self)
    }

    /// Reads a string.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not a string.
    public init(_ content: GeneratedContent) throws {
        guard case .string(let value) = content.kind else {
            throw GeneratedContent.ConversionError(path: [], expected: "a string", content: content)
        }
        self = value
    }

    /// The string as content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .string(self))
    }
}

extension Bool: Generable {
    /// A Boolean: JSON Schema `{"type":"boolean"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .boolean, rootType: Self.self)
    }

    /// Reads a Boolean.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not a Boolean.
    public init(_ content: GeneratedContent) throws {
        guard case .bool(let value) = content.kind else {
            throw GeneratedContent.ConversionError(path: [], expected: "a Boolean", content: content)
        }
        self = value
    }

    /// The Boolean as content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .bool(self))
    }
}

extension Int: Generable {
    /// An integer: JSON Schema `{"type":"integer"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .integer(minimum: nil, maximum: nil), rootType: Self.self)
    }

    /// Reads an integer.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not a number, has a
    ///   fraction, or does not fit in `Int`.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind, value == value.rounded(),
              let integer = Int(exactly: value)
        else {
            throw GeneratedContent.ConversionError(path: [], expected: "an integer", content: content)
        }
        self = integer
    }

    /// The integer as content (exact up to 2^53 in magnitude).
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(Double(self)))
    }
}

extension Double: Generable {
    /// A number: JSON Schema `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .number(minimum: nil, maximum: nil), rootType: Self.self)
    }

    /// Reads a number.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not a number.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else {
            throw GeneratedContent.ConversionError(path: [], expected: "a number", content: content)
        }
        self = value
    }

    /// The number as content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(self))
    }
}

extension Float: Generable {
    /// A number: JSON Schema `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .number(minimum: nil, maximum: nil), rootType: Self.self)
    }

    /// Reads a number, rounded to the nearest `Float`.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not a number.
    public init(_ content: GeneratedContent) throws {
        self = Float(try Double(content))
    }

    /// The number as content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(Double(self)))
    }
}

extension Decimal: Generable {
    /// A number: JSON Schema `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .number(minimum: nil, maximum: nil), rootType: Self.self)
    }

    /// Reads a number. The value is read from its shortest decimal text, so `0.1` becomes
    /// exactly `0.1`; content numbers are `Double`s, so digits beyond 15–17 are not kept.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not a finite number.
    public init(_ content: GeneratedContent) throws {
        let value = try Double(content)
        guard value.isFinite, let decimal = Decimal(string: JSONTextWriter.format(value)) else {
            throw GeneratedContent.ConversionError(path: [], expected: "a finite number", content: content)
        }
        self = decimal
    }

    /// The number as content (the nearest `Double`).
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(_double))
    }
}

extension GeneratedContent: Generable {
    /// Any JSON value: the JSON Schema `{}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .any, rootType: Self.self)
    }

    /// The content itself.
    public init(_ content: GeneratedContent) throws {
        self = content
    }

    /// The content itself.
    public var generatedContent: GeneratedContent {
        self
    }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
    /// Reads an array, converting every element.
    ///
    /// While a response streams, the last element of an unfinished array may be cut short; if
    /// it does not convert yet it is left out, as if it had not arrived.
    ///
    /// - Throws: ``GeneratedContent/ConversionError`` when the content is not an array, or for
    ///   the first element that does not convert (its path starts with `[index]`).
    public init(_ content: GeneratedContent) throws {
        guard case .array(let elements) = content.kind else {
            throw GeneratedContent.ConversionError(path: [], expected: "an array", content: content)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                result.append(try GeneratedContent.ConversionError.prefixing("[\(index)]") { try Element(element) })
            } catch where index == elements.count - 1 && !element.isComplete {
                break
            }
        }
        self = result
    }
}

extension Array: ConvertibleToGeneratedContent where Element: ConvertibleToGeneratedContent {
    /// The elements as an array.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .array(map(\.generatedContent)))
    }
}

extension Array: Generable where Element: Generable {
    /// Snapshots of an array hold snapshots of its elements.
    public typealias PartiallyGenerated = [Element.PartiallyGenerated]

    /// An array of the element's schema: JSON Schema `{"type":"array","items":…}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .array(items: .generable(Element.self, guides: []), minimumCount: nil, maximumCount: nil), rootType: Self.self)
    }

    /// Every element as a snapshot.
    public func asPartiallyGenerated() -> [Element.PartiallyGenerated] {
        map { $0.asPartiallyGenerated() }
    }
}

extension Optional: ConvertibleFromGeneratedContent where Wrapped: ConvertibleFromGeneratedContent {
    /// Reads `nil` from `null`, otherwise the wrapped value.
    ///
    /// - Throws: The wrapped type's conversion error.
    public init(_ content: GeneratedContent) throws {
        if case .null = content.kind {
            self = nil
        } else {
            self = try Wrapped(content)
        }
    }
}

extension Optional: PromptRepresentable, InstructionsRepresentable where Wrapped: ConvertibleToGeneratedContent {}

extension Optional: ConvertibleToGeneratedContent where Wrapped: ConvertibleToGeneratedContent {
    /// The wrapped value's content, or `null`. (In `GeneratedContent(properties:)` a `nil`
    /// property is left out instead.)
    public var generatedContent: GeneratedContent {
        self?.generatedContent ?? GeneratedContent(kind: .null)
    }
}
