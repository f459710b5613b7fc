import Foundation

/// A constraint on the values the model may generate for a property.
///
/// Guides are written in `@Guide` attributes or passed to schema properties:
///
/// ```swift
/// GenerationSchema.Property(name: "age", type: Int.self, guides: [.range(0...120)])
/// GenerationSchema.Property(name: "tags", type: [String].self, guides: [.count(2...4), .element(.anyOf(["a", "b"]))])
/// ```
///
/// Each guide becomes a JSON Schema keyword in the schema's encoding (`enum`, `const`,
/// `pattern`, `minimum`, `maximum`, `minItems`, `maxItems`, or keywords inside `items`).
public struct GenerationGuide<Value>: Sendable {
    let constraint: GuideConstraint

    init(_ constraint: GuideConstraint) {
        self.constraint = constraint
    }
}

/// The type-erased content of a guide; numeric bounds are kept as `Double`.
indirect enum GuideConstraint: Sendable, Equatable {
    case anyOf([String])
    case constant(String)
    case pattern(String)
    /// A `Regex` whose source text the runtime cannot recover; fails when the schema is built.
    case unrepresentablePattern(String)
    case minimum(Double)
    case maximum(Double)
    case bounds(Double, Double)
    case minimumCount(Int)
    case maximumCount(Int)
    case countBounds(Int, Int)
    case element(GuideConstraint)
}

// MARK: Strings

extension GenerationGuide where Value == String {
    /// Requires the string to be exactly `value`.
    ///
    /// - Parameter value: The only allowed string (JSON Schema `const`).
    public static func constant(_ value: String) -> GenerationGuide<String> {
        GenerationGuide(.constant(value))
    }

    /// Requires the string to be one of `values`.
    ///
    /// - Parameter values: The allowed strings (JSON Schema `enum`).
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> {
        GenerationGuide(.anyOf(values))
    }

    /// Requires the string to match a regular expression.
    ///
    /// The pattern is written into the JSON Schema as the regex's source text, which Swift
    /// recovers from regex literals and from `Regex(_:)` strings (as an equivalent rendering,
    /// e.g. `-` becomes `\-`). A regex built with the RegexBuilder DSL may have no source
    /// form; building a schema that contains it then throws
    /// ``GenerationSchema/GuideError``. `@Guide` uses ``pattern(source:)``, which keeps the text
    /// exactly as written.
    ///
    /// - Parameter regex: The pattern the whole string must match.
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> {
        if let source = regex._literalPattern {
            return GenerationGuide(.pattern(source))
        }
        return GenerationGuide(.unrepresentablePattern("Regex<\(Output.self)>"))
    }

    /// Requires the string to match a regular expression given as its source text.
    ///
    /// A Pocket addition, emitted by the `@Guide` macro for `/…/` literals and `Regex("…")`
    /// with the text taken from the source code.
    ///
    /// - Parameter source: The regular expression (JSON Schema `pattern`).
    public static func pattern(source: String) -> GenerationGuide<String> {
        GenerationGuide(.pattern(source))
    }
}

// MARK: Numbers

extension GenerationGuide where Value == Int {
    /// Requires the value to be at least `value` (JSON Schema `minimum`).
    public static func minimum(_ value: Int) -> GenerationGuide<Int> { GenerationGuide(.minimum(Double(value))) }
    /// Requires the value to be at most `value` (JSON Schema `maximum`).
    public static func maximum(_ value: Int) -> GenerationGuide<Int> { GenerationGuide(.maximum(Double(value))) }
    /// Requires the value to lie in `range`, bounds included.
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> {
        GenerationGuide(.bounds(Double(range.lowerBound), Double(range.upperBound)))
    }
}

extension GenerationGuide where Value == Float {
    /// Requires the value to be at least `value` (JSON Schema `minimum`).
    public static func minimum(_ value: Float) -> GenerationGuide<Float> { GenerationGuide(.minimum(Double(value))) }
    /// Requires the value to be at most `value` (JSON Schema `maximum`).
    public static func maximum(_ value: Float) -> GenerationGuide<Float> { GenerationGuide(.maximum(Double(value))) }
    /// Requires the value to lie in `range`, bounds included.
    public static func range(_ range: ClosedRange<Float>) -> GenerationGuide<Float> {
        GenerationGuide(.bounds(Double(range.lowerBound), Double(range.upperBound)))
    }
}

extension GenerationGuide where Value == Double {
    /// Requires the value to be at least `value` (JSON Schema `minimum`).
    public static func minimum(_ value: Double) -> GenerationGuide<Double> { GenerationGuide(.minimum(value)) }
    /// Requires the value to be at most `value` (JSON Schema `maximum`).
    public static func maximum(_ value: Double) -> GenerationGuide<Double> { GenerationGuide(.maximum(value)) }
    /// Requires the value to lie in `range`, bounds included.
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> {
        GenerationGuide(.bounds(range.lowerBound, range.upperBound))
    }
}

extension GenerationGuide where Value == Decimal {
    /// Requires the value to be at least `value` (JSON Schema `minimum`; the bound is
    /// written as the nearest `Double`).
    public static func minimum(_ value: Decimal) -> GenerationGuide<Decimal> { GenerationGuide(.minimum(value._double)) }
    /// Requires the value to be at most `value` (JSON Schema `maximum`; the bound is written
    /// as the nearest `Double`).
    public static func maximum(_ value: Decimal) -> GenerationGuide<Decimal> { GenerationGuide(.maximum(value._double)) }
    /// Requires the value to lie in `range`, bounds included.
    public static func range(_ range: ClosedRange<Decimal>) -> GenerationGuide<Decimal> {
        GenerationGuide(.bounds(range.lowerBound._double, range.upperBound._double))
    }
}

// MARK: Arrays

extension GenerationGuide {
    /// Requires exactly `count` elements (JSON Schema `minItems` and `maxItems`).
    public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(.countBounds(count, count))
    }

    /// Requires the number of elements to lie in `count`, bounds included.
    public static func count<Element>(_ count: ClosedRange<Int>) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(.countBounds(count.lowerBound, count.upperBound))
    }

    /// Requires at least `count` elements (JSON Schema `minItems`).
    public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(.minimumCount(count))
    }

    /// Requires at most `count` elements (JSON Schema `maxItems`).
    public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(.maximumCount(count))
    }

    /// Applies `guide` to every element (inside the JSON Schema `items`).
    public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(.element(guide.constraint))
    }
}

extension Decimal {
    /// The nearest `Double`, read from the decimal's text so that `0.1` stays `0.1`.
    var _double: Double {
        Double(description) ?? .nan
    }
}
