// The parse state's vocabulary: a state is a set of stacks of frames, the top frame saying
// what the next byte may be, the frames below waiting for the value above them to finish.

/// One level of a parse stack.
enum Frame: Hashable, Sendable {
    /// A value of node `n` starts with the next byte (`n < 0`: any JSON value).
    case expect(Int32)
    /// Matching literal `id` (key, enum string, `true`…), `matched` bytes so far.
    case literal(id: Int32, matched: Int32)
    /// After `{`: a first key or `}`.
    case objectOpen(Int32)
    /// Matching the `"key":` of property `property` (index into the object's properties).
    case objectKey(Int32, property: Int32, matched: Int32)
    /// Waiting under a property's value.
    case objectValue(Int32, property: Int32)
    /// After property `after`'s value: `,` or `}`.
    case objectNext(Int32, after: Int32)
    /// After `,`: the `"` of the next key.
    case objectComma(Int32, after: Int32)
    /// After `[`.
    case arrayOpen(Int32)
    /// Waiting under an element; `count` elements were complete before it.
    case arrayItem(Int32, count: Int32)
    /// After `count` elements: `,` or `]`.
    case arrayNext(Int32, count: Int32)
    /// Inside string content (node `n`, or `keyNode` for a free object's key).
    case string(Int32, length: Int32, state: StringState)
    /// Inside a string that must match a pattern: the automaton state (``PatternAutomaton``: index
    /// plus one), bytes so far, and a partly read
    /// UTF-8 character (`pending` bytes still needed, `scalar` its bits so far).
    case patternString(Int32, states: UInt64, length: Int32, scalar: UInt32, pending: UInt8, width: UInt8)
    /// Inside a number.
    case number(NumberState)
    /// Any-value object: after `{`, after a key, waiting under a value, after a value, after `,`.
    case freeObjectOpen, freeObjectKey, freeObjectColon, freeObjectValue, freeObjectNext, freeObjectComma
    /// Any-value array: after `[`, waiting under an element, after an element.
    case freeArrayOpen, freeArrayItem, freeArrayNext
    /// Extra keys of object `n` (rule `rule` of its extras): waiting under the key string, after
    /// it, waiting under the value; then after a value (`,` or `}`) and after `,`.
    case extraKey(Int32, rule: Int32), extraColon(Int32, rule: Int32), extraValue(Int32, rule: Int32)
    case extraNext(Int32), extraComma(Int32)
    /// A run of whitespace between JSON tokens (only when the grammar allows whitespace).
    case whitespace(run: Int32)
}

/// Where string content is: plain, after `\`, in a `\u` escape (four hex digits), or inside a multi-byte
/// UTF-8 character (with the range the next byte must fall in).
struct StringState: Hashable, Sendable {
    var escape: UInt8 = 0          // 0 none, 1 after backslash, 2…5: hex digits still needed = 6 - escape
    var continuation: UInt8 = 0    // UTF-8 continuation bytes still needed
    var low: UInt8 = 0x80, high: UInt8 = 0xBF   // allowed range of the next continuation byte
    /// Characters begun so far (an escape sequence is one), saturated at the string's
    /// `minLength`: JSON Schema counts characters, and past the minimum the count no longer
    /// matters (so it does not split cached states).
    var characters: Int32 = 0

    /// The state after a character begins.
    func begun(_ minimum: Int32) -> StringState {
        var s = self
        if s.characters < minimum { s.characters += 1 }
        return s
    }
}

/// A number read so far. Values are limited to 15 integer and 15 fraction digits, without
/// exponents, which keeps range checks exact enough and output readable.
struct NumberState: Hashable, Sendable {
    var node: Int32
    var negative = false
    /// 0 after `-`, 1 in the integer part, 2 right after `.`, 3 in the fraction.
    var phase: UInt8 = 1
    var integerDigits: Int8 = 0
    var fractionDigits: Int8 = 0
    var leadingZero = false
    /// Magnitude of the digits so far, as a decimal value.
    var magnitude: Double = 0

    static let maximumDigits: Int8 = 15
}

/// Special node ids.
enum SpecialNode {
    /// Any JSON value.
    static let anyValue: Int32 = -1
    /// The key of an any-value object.
    static let key: Int32 = -2
    /// No node (an array with no elements beyond its prefix).
    static let none: Int32 = -3
}
