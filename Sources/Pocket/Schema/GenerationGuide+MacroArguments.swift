// `@Guide(.count(4)) var terms: [String]` is type-checked as a call of the macro
// `Guide<T>(description:_ guides: GenerationGuide<T>...)`, which cannot see the property's
// type: for `.count(4)` alone nothing says what the array's element is, and the generic
// `count<Element>` leaves `Element` undetermined. These overloads give the type checker one
// answer in exactly that situation. They never apply where the value type is known (a
// schema property's `[String]` does not match), and the macro reads the guide's source text
// and pastes it where the property's real type decides.

/// The element type the compiler settles on when it type-checks an array guide in a `@Guide`
/// attribute, where the property's real element type is not visible.
///
/// A Pocket addition with no values; it exists only so that `@Guide(.count(4))` compiles as
/// it does with Apple's framework. Never use it in your own types.
public enum GuideArgumentElement: Generable {
    /// The schema of arbitrary content; never used to generate.
    public static var generationSchema: GenerationSchema { GeneratedContent.generationSchema }

    /// Always throws: there are no values of this type.
    public init(_ content: GeneratedContent) throws {
        throw GeneratedContent.ConversionError(path: [], expected: "no value (GuideArgumentElement has none)", content: content)
    }

    /// Unreachable: there are no values of this type.
    public var generatedContent: GeneratedContent {
        switch self {}
    }
}

extension GenerationGuide where Value == [GuideArgumentElement] {
    /// `count(_:)` as it type-checks inside a `@Guide` attribute.
    public static func count(_ count: Int) -> GenerationGuide<[GuideArgumentElement]> {
        GenerationGuide(.countBounds(count, count))
    }

    /// `count(_:)` with a range, as it type-checks inside a `@Guide` attribute.
    public static func count(_ count: ClosedRange<Int>) -> GenerationGuide<[GuideArgumentElement]> {
        GenerationGuide(.countBounds(count.lowerBound, count.upperBound))
    }

    /// `minimumCount(_:)` as it type-checks inside a `@Guide` attribute.
    public static func minimumCount(_ count: Int) -> GenerationGuide<[GuideArgumentElement]> {
        GenerationGuide(.minimumCount(count))
    }

    /// `maximumCount(_:)` as it type-checks inside a `@Guide` attribute.
    public static func maximumCount(_ count: Int) -> GenerationGuide<[GuideArgumentElement]> {
        GenerationGuide(.maximumCount(count))
    }
}
