/// Reads a struct or enum declaration from its source text.
///
/// A hand-written recursive-descent parser over ``Lexer`` tokens. It understands what
/// `@Generable` needs, and skips everything else by bracket matching: methods, initializers,
/// subscripts, computed and static properties, nested types and type aliases. Anything it does
/// not understand where it matters (a `#if` block among the members, a tuple pattern) is a
/// ``MacroError`` at the offending offset, so a schema is never silently wrong.
public struct DeclarationParser {
    private let source: [UInt8]
    private let tokens: [Token]
    private var index = 0

    private init(source: String, tokens: [Token]) {
        self.source = Array(source.utf8)
        self.tokens = tokens
    }

    /// Parses the first type declaration in `source` (leading attributes and modifiers included).
    ///
    /// - Throws: ``MacroError`` for text that is not a type declaration or that it cannot read.
    public static func parse(_ source: String) throws(MacroError) -> TypeDeclaration {
        var parser = DeclarationParser(source: source, tokens: try Lexer.tokenize(source))
        return try parser.parseTypeDeclaration()
    }

    /// Parses a lone property declaration such as `@SessionPropertyEntry var tone: String =
    /// "calm"` (leading attributes and modifiers skipped): its first binding's name, type text
    /// and initial-value text.
    ///
    /// - Throws: ``MacroError`` for text that is not a `var` or `let` declaration.
    public static func parseProperty(_ source: String) throws(MacroError) -> PropertyDeclaration {
        var parser = DeclarationParser(source: source, tokens: try Lexer.tokenize(source))
        return try parser.parsePropertyDeclaration()
    }

    /// Parses a lone attribute such as `@Generable(description: "A cat")`.
    public static func parseAttribute(_ source: String) throws(MacroError) -> Attribute {
        var parser = DeclarationParser(source: source, tokens: try Lexer.tokenize(source))
        guard let attribute = try parser.parseAttributes().first else {
            throw MacroError("expected an attribute", at: 0)
        }
        return attribute
    }

    // MARK: Token access

    private var current: Token? { index < tokens.count ? tokens[index] : nil }

    private func token(at offset: Int) -> Token? {
        index + offset < tokens.count ? tokens[index + offset] : nil
    }

    private var endOffset: Int { source.count }

    private var currentOffset: Int { current?.start ?? endOffset }

    private func isSymbol(_ symbol: String) -> Bool { current?.isSymbol(symbol) ?? false }

    private func isWord(_ word: String) -> Bool { current?.isWord(word) ?? false }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws(MacroError) {
        guard isSymbol(symbol) else {
            throw MacroError("expected '\(symbol)' \(context)\(foundDescription)", at: currentOffset)
        }
        index += 1
    }

    private mutating func expectIdentifier(_ context: String) throws(MacroError) -> Token {
        guard let token = current, token.kind == .identifier else {
            throw MacroError("expected \(context)\(foundDescription)", at: currentOffset)
        }
        index += 1
        return token
    }

    private var foundDescription: String {
        current.map { ", found '\($0.text)'" } ?? ", found the end of the declaration"
    }

    /// Whether a line break separates the current token from the one before it.
    private var startsLine: Bool {
        guard let token = current, index > 0 else { return true }
        return source[tokens[index - 1].end..<token.start].contains(UInt8(ascii: "\n"))
    }

    private func text(from start: Int, to end: Int) -> String {
        String(decoding: source[start..<end], as: UTF8.self)
    }

    // MARK: Declarations

    private static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "static", "class", "final",
        "lazy", "weak", "unowned", "mutating", "nonmutating", "override", "required", "convenience",
        "nonisolated", "dynamic", "indirect", "optional", "isolated", "consuming", "borrowing",
        "distributed", "sending", "prefix", "postfix", "infix",
    ]

    private static let typeKeywords: Set<String> = ["struct", "enum", "class", "actor", "protocol", "extension"]

    private mutating func parseTypeDeclaration() throws(MacroError) -> TypeDeclaration {
        let attributes = try parseAttributes()
        let modifiers = try parseModifiers()
        guard let keyword = current, keyword.kind == .identifier, let kind = TypeDeclaration.Kind(rawValue: keyword.text) else {
            throw MacroError("expected a struct or enum declaration\(foundDescription)", at: currentOffset)
        }
        index += 1
        let name = try expectIdentifier("the type's name")
        var genericOffset: Int?
        if isSymbol("<") {
            genericOffset = currentOffset
            try skipBalanced(open: "<", close: ">")
        }
        var inheritance: [String] = []
        if isSymbol(":") {
            index += 1
            repeat {
                let start = currentOffset
                _ = try parseType()
                inheritance.append(text(from: start, to: tokens[index - 1].end))
            } while consume(",")
        }
        if isWord("where") {
            while let token = current, !token.isSymbol("{") { index += 1 }
        }
        var declaration = TypeDeclaration(
            kind: kind, name: name.text, nameOffset: name.start, attributes: attributes, modifiers: modifiers,
            genericParametersOffset: genericOffset, inheritance: inheritance, properties: [], cases: [])
        try expectSymbol("{", "to open the body of \(name.text)")
        try parseMembers(into: &declaration)
        return declaration
    }

    private mutating func consume(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        index += 1
        return true
    }

    private mutating func parseAttributes() throws(MacroError) -> [Attribute] {
        var attributes: [Attribute] = []
        while let at = current, at.kind == .at {
            index += 1
            var name = try expectIdentifier("an attribute name after '@'").text
            while isSymbol("."), let next = token(at: 1), next.kind == .identifier {
                name = next.text
                index += 2
            }
            var arguments: [Argument]?
            // Arguments belong to the attribute only when '(' follows without a space.
            if let open = current, open.isSymbol("("), open.start == tokens[index - 1].end {
                arguments = try parseArguments()
            }
            attributes.append(Attribute(name: name, arguments: arguments, offset: at.start))
        }
        return attributes
    }

    /// Parses `( label: expr, expr, … )`, keeping each expression as source text.
    private mutating func parseArguments() throws(MacroError) -> [Argument] {
        let open = currentOffset
        index += 1
        var arguments: [Argument] = []
        if consume(")") { return arguments }
        while true {
            guard let first = current else { throw MacroError("unterminated argument list", at: open) }
            var label: String?
            if first.kind == .identifier, let colon = token(at: 1), colon.isSymbol(":") {
                label = first.text
                index += 2
            }
            let expressionStart = index
            var depth = 0
            while let token = current {
                if depth == 0 && (token.isSymbol(",") || token.isSymbol(")")) { break }
                if token.isSymbol("(") || token.isSymbol("[") || token.isSymbol("{") { depth += 1 }
                if token.isSymbol(")") || token.isSymbol("]") || token.isSymbol("}") { depth -= 1 }
                index += 1
            }
            guard current != nil else { throw MacroError("unterminated argument list", at: open) }
            guard index > expressionStart else {
                throw MacroError("expected an expression in the argument list", at: currentOffset)
            }
            let expressionTokens = Array(tokens[expressionStart..<index])
            arguments.append(Argument(
                label: label,
                expression: text(from: expressionTokens[0].start, to: expressionTokens.last!.end),
                tokens: expressionTokens, offset: first.start))
            if consume(")") { return arguments }
            index += 1  // the comma
        }
    }

    private mutating func parseModifiers() throws(MacroError) -> [String] {
        var modifiers: [String] = []
        while let token = current, token.kind == .identifier, Self.modifiers.contains(token.text) {
            // `class var` is a modifier; `class Name` is a declaration.
            if token.text == "class", let next = self.token(at: 1), next.kind == .identifier,
               !Self.modifiers.contains(next.text), !["var", "let", "func", "subscript", "init"].contains(next.text) {
                break
            }
            modifiers.append(token.text)
            index += 1
            // private(set), unowned(safe), nonisolated(unsafe) …
            if isSymbol("("), let inner = self.token(at: 1), inner.kind == .identifier, let close = self.token(at: 2), close.isSymbol(")") {
                index += 3
            }
        }
        return modifiers
    }

    private mutating func parseMembers(into declaration: inout TypeDeclaration) throws(MacroError) {
        while true {
            guard let token = current else {
                throw MacroError("expected '}' to close the body of \(declaration.name)", at: endOffset)
            }
            if token.isSymbol("}") {
                index += 1
                return
            }
            if token.isSymbol(";") {
                index += 1
                continue
            }
            if token.kind == .poundKeyword {
                throw MacroError(
                    "'\(token.text)' blocks among the members of a @Generable type are not supported; "
                        + "declare the properties without conditional compilation", at: token.start)
            }
            let attributes = try parseAttributes()
            let modifiers = try parseModifiers()
            guard let keyword = current, keyword.kind == .identifier else {
                throw MacroError("expected a member declaration\(foundDescription)", at: currentOffset)
            }
            let isStatic = modifiers.contains("static") || modifiers.contains("class")
            switch keyword.text {
            case "var", "let":
                index += 1
                let properties = try parseBindings(isLet: keyword.text == "let", isStatic: isStatic, attributes: attributes)
                declaration.properties += properties
            case "case":
                index += 1
                declaration.cases += try parseCases(attributes: attributes)
            case "func", "init", "deinit", "subscript", "macro", "operator", "precedencegroup":
                index += 1
                try skipUntilBody()
            case "typealias", "associatedtype":
                index += 1
                _ = try expectIdentifier("a name")
                if isSymbol("<") { try skipBalanced(open: "<", close: ">") }
                if consume("=") || consume(":") { _ = try parseType() }
            case _ where Self.typeKeywords.contains(keyword.text):
                index += 1
                try skipUntilBody()
            case "import":
                throw MacroError("unexpected 'import' inside a type", at: keyword.start)
            default:
                throw MacroError("expected a member declaration, found '\(keyword.text)'", at: keyword.start)
            }
        }
    }

    /// Skips a declaration's header up to and including its `{ … }` body, or to the end of the
    /// line when it has none (a protocol requirement).
    private mutating func skipUntilBody() throws(MacroError) {
        while let token = current {
            if token.isSymbol("(") {
                try skipBalanced(open: "(", close: ")")
            } else if token.isSymbol("[") {
                try skipBalanced(open: "[", close: "]")
            } else if token.isSymbol("{") {
                try skipBalanced(open: "{", close: "}")
                return
            } else if token.isSymbol("}") || (startsLine && index > 0 && (token.kind == .at || Self.startsMember(token))) {
                return
            } else {
                index += 1
            }
        }
    }

    private static func startsMember(_ token: Token) -> Bool {
        token.kind == .identifier
            && (modifiers.contains(token.text) || typeKeywords.contains(token.text)
                || ["var", "let", "case", "func", "init", "deinit", "subscript", "typealias"].contains(token.text))
    }

    /// Skips from an opening bracket to its matching close, counting only that bracket pair
    /// (literals and comments are already single tokens).
    private mutating func skipBalanced(open: String, close: String) throws(MacroError) {
        let start = currentOffset
        var depth = 0
        while let token = current {
            if token.isSymbol(open) { depth += 1 }
            if token.isSymbol(close) { depth -= 1 }
            index += 1
            if depth == 0 { return }
        }
        throw MacroError("expected '\(close)' to match this '\(open)'", at: start)
    }

    // MARK: Properties

    private mutating func parsePropertyDeclaration() throws(MacroError) -> PropertyDeclaration {
        _ = try parseAttributes()
        _ = try parseModifiers()
        guard let keyword = current, keyword.isWord("var") || keyword.isWord("let") else {
            throw MacroError("expected a property declaration\(foundDescription)", at: currentOffset)
        }
        index += 1
        let name = try expectIdentifier("a property name")
        var typeText: String?
        if consume(":") {
            let start = currentOffset
            _ = try parseType()
            typeText = text(from: start, to: tokens[index - 1].end)
        }
        var initialValue: String?
        if consume("=") {
            let start = index
            try skipExpression()
            if index > start { initialValue = text(from: tokens[start].start, to: tokens[index - 1].end) }
        }
        return PropertyDeclaration(
            isLet: keyword.text == "let", keywordOffset: keyword.start, name: name.text, nameOffset: name.start,
            typeText: typeText, initialValue: initialValue)
    }

    /// Parses `name: Type = value, …` after `var`/`let`; returns the stored instance properties.
    private mutating func parseBindings(isLet: Bool, isStatic: Bool, attributes: [Attribute]) throws(MacroError) -> [StoredProperty] {
        var properties: [StoredProperty] = []
        while true {
            if isSymbol("(") {
                throw MacroError(
                    "tuple patterns are not supported in a @Generable type; declare one property per name",
                    at: currentOffset)
            }
            let name = try expectIdentifier("a property name")
            var type: (syntax: TypeSyntax, text: String, offset: Int)?
            if consume(":") {
                let start = currentOffset
                let syntax = try parseType()
                type = (syntax, text(from: start, to: tokens[index - 1].end), start)
            }
            var hasInitialValue = false
            var isComputed = false
            if consume("=") {
                hasInitialValue = true
                try skipExpression()
            }
            if isSymbol("{") {
                // willSet/didSet observe a stored property; anything else is a computed one.
                let next = token(at: 1)
                let isObserved = next.map { $0.isWord("willSet") || $0.isWord("didSet") } ?? false
                isComputed = !isObserved
                try skipBalanced(open: "{", close: "}")
            }
            // A `let` with an initial value is a constant no initializer can set: not generated,
            // so it needs no type annotation either.
            let isConstant = isLet && hasInitialValue
            if !isComputed && !isStatic && !(isConstant && type == nil) {
                guard let type else {
                    throw MacroError(
                        "the property '\(name.text)' needs an explicit type annotation for @Generable "
                            + "(write 'var \(name.text): Type')", at: name.start)
                }
                properties.append(StoredProperty(
                    name: name.text, offset: name.start, type: type.syntax, typeText: type.text,
                    typeOffset: type.offset, isLet: isLet, hasInitialValue: hasInitialValue, attributes: attributes))
            }
            if !consume(",") { return properties }
        }
    }

    /// Skips an initial-value expression: up to a top-level `,`, `;`, `}` or the start of the
    /// next declaration on a new line, or an observer block `{ didSet … }`.
    private mutating func skipExpression() throws(MacroError) {
        let start = index
        while let token = current {
            if token.isSymbol(",") || token.isSymbol(";") || token.isSymbol("}") { return }
            if index > start && startsLine && (token.kind == .at || token.kind == .poundKeyword || Self.startsMember(token)) {
                return
            }
            if token.isSymbol("{") {
                if index > start, let next = self.token(at: 1), next.isWord("willSet") || next.isWord("didSet") {
                    return
                }
                try skipBalanced(open: "{", close: "}")
            } else if token.isSymbol("(") {
                try skipBalanced(open: "(", close: ")")
            } else if token.isSymbol("[") {
                try skipBalanced(open: "[", close: "]")
            } else {
                index += 1
            }
        }
    }

    // MARK: Types

    /// Parses a type annotation: named types (qualified, generic), `[T]`, `[K: V]`, tuples,
    /// function types, `some`/`any`, and any number of `?`/`!` suffixes.
    private mutating func parseType() throws(MacroError) -> TypeSyntax {
        while let token = current, token.kind == .at {
            index += 1
            _ = try expectIdentifier("an attribute name")
        }
        while isWord("inout") || isWord("sending") || isWord("borrowing") || isWord("consuming") { index += 1 }
        var type: TypeSyntax
        if isWord("some") || isWord("any") {
            index += 1
            _ = try parseType()
            return .opaque
        } else if isSymbol("[") {
            index += 1
            let element = try parseType()
            if consume(":") {
                let value = try parseType()
                type = .dictionary(element, value)
            } else {
                type = .array(element)
            }
            try expectSymbol("]", "to close the type")
        } else if isSymbol("(") {
            index += 1
            var elements: [TypeSyntax] = []
            while !isSymbol(")") {
                guard current != nil else { throw MacroError("expected ')' to close the tuple type", at: endOffset) }
                if let label = current, label.kind == .identifier, let colon = token(at: 1), colon.isSymbol(":") {
                    index += 2
                }
                elements.append(try parseType())
                if !consume(",") { break }
            }
            try expectSymbol(")", "to close the tuple type")
            if isWord("async") || isWord("throws") { index += 1 }
            if isSymbol("-"), let arrow = token(at: 1), arrow.isSymbol(">") {
                index += 2
                _ = try parseType()
                return .function
            }
            type = elements.count == 1 ? elements[0] : .tuple(elements)
        } else {
            var name = try expectIdentifier("a type").text
            var arguments: [TypeSyntax] = []
            while true {
                if isSymbol("<"), let open = current, open.start == tokens[index - 1].end {
                    index += 1
                    arguments = []
                    repeat { arguments.append(try parseType()) } while consume(",")
                    try expectSymbol(">", "to close the generic arguments")
                }
                if isSymbol("."), let next = token(at: 1), next.kind == .identifier {
                    name += "." + next.text
                    index += 2
                    continue
                }
                break
            }
            switch (name, arguments.count) {
            case ("Optional", 1), ("Swift.Optional", 1): type = .optional(arguments[0])
            case ("Array", 1), ("Swift.Array", 1): type = .array(arguments[0])
            case ("Dictionary", 2), ("Swift.Dictionary", 2): type = .dictionary(arguments[0], arguments[1])
            default: type = .named(name, genericArguments: arguments)
            }
        }
        // `?` and `!` bind only when written right after the type.
        while let suffix = current, suffix.isSymbol("?") || suffix.isSymbol("!"), suffix.start == tokens[index - 1].end {
            index += 1
            type = .optional(type)
        }
        return type
    }

    // MARK: Enum cases

    private mutating func parseCases(attributes: [Attribute]) throws(MacroError) -> [EnumCase] {
        var cases: [EnumCase] = []
        while true {
            let name = try expectIdentifier("a case name")
            var values: [AssociatedValue] = []
            if isSymbol("(") {
                index += 1
                while !isSymbol(")") {
                    guard let first = current else { throw MacroError("expected ')' after the associated values", at: endOffset) }
                    var label: String?
                    if first.kind == .identifier, let colon = token(at: 1), colon.isSymbol(":") {
                        label = first.text == "_" ? nil : first.text
                        index += 2
                    } else if first.kind == .identifier, let second = token(at: 1), second.kind == .identifier,
                              let colon = token(at: 2), colon.isSymbol(":") {
                        label = first.text == "_" ? nil : first.text
                        index += 3
                    }
                    let typeStart = currentOffset
                    let type = try parseType()
                    values.append(AssociatedValue(
                        label: label, type: type, typeText: text(from: typeStart, to: tokens[index - 1].end),
                        offset: first.start))
                    if consume("=") { try skipExpression() }
                    if !consume(",") { break }
                }
                try expectSymbol(")", "after the associated values")
            }
            if consume("=") {
                // A raw value: a literal, possibly negative.
                if isSymbol("-") { index += 1 }
                guard let literal = current, [.number, .stringLiteral].contains(literal.kind) || literal.isWord("true") || literal.isWord("false") else {
                    throw MacroError("expected a raw value literal\(foundDescription)", at: currentOffset)
                }
                index += 1
            }
            cases.append(EnumCase(name: name.text, offset: name.start, associatedValues: values, attributes: attributes))
            if !consume(",") { return cases }
        }
    }
}
