/// The code `@Generable` writes for a struct or an enum.
///
/// The macro has two roles, and this type produces the text for both:
/// - **member** (inside the type, so that every name resolves as it does in the user's own
///   code): `static var generationSchema`, `var generatedContent`, and for structs the nested
///   `PartiallyGenerated` type used by snapshot streaming;
/// - **extension**: `extension T: Generable { init(_ content: GeneratedContent) throws }`. The
///   initializer lives in an extension so that the struct keeps its memberwise initializer.
///
/// Properties are generated in declaration order. `let` constants with an initial value cannot
/// be set by an initializer, so they are not part of the schema. Static and computed properties
/// are skipped.
///
/// `@Generable(name:)` renames the schema (`.renamed(name)` on it). With
/// `representNilExplicitlyInGeneratedContent: true` (a `true`/`false` literal), the schema is
/// built with that flag and `generatedContent` writes an optional property's own content, so a
/// `nil` property is present as `null` instead of left out; the initializer reads both forms.
///
/// Enums whose cases have no associated values are string choices (the case names). Enums
/// with associated values use ``GenerationSchema``'s `cases:` initializer (a Pocket addition):
/// a plain case is its name as a string, a case with one unlabeled value is the object
/// `{"case": value}`, and a case with labeled or several values is `{"case": {"label": …}}`,
/// with unlabeled values named `_0`, `_1`, … as in Swift's `Codable` synthesis.
public struct GenerableExpansion: Sendable {
    /// The declaration the macro is attached to.
    public let declaration: TypeDeclaration
    private let typeDescription: String?
    /// The `name:` expression of `@Generable(name:…)`: the schema's name instead of the type's.
    private let schemaName: String?
    /// `@Generable(…, representNilExplicitlyInGeneratedContent: true)`: `nil` optional
    /// properties are written as `null` rather than left out.
    public let representsNilExplicitly: Bool
    private let properties: [PropertyPlan]
    private let cases: [CasePlan]
    private let access: String

    struct PropertyPlan {
        var name: String
        var typeText: String
        var wrappedTypeText: String
        var isOptional: Bool
        var description: String?
        var guides: [String]
    }

    struct CasePlan {
        var name: String
        var description: String?
        var values: [(label: String?, typeText: String, isOptional: Bool)]

        /// `{"case": value}` rather than `{"case": {…}}`.
        var hasSingleUnlabeledValue: Bool { values.count == 1 && values[0].label == nil }

        func valueKey(_ index: Int) -> String { values[index].label ?? "_\(index)" }
    }

    /// Reads and checks the declaration `source` (the attached-to declaration's full text,
    /// attributes included).
    ///
    /// - Throws: ``MacroError`` at the first construct `@Generable` cannot express: a class,
    ///   protocol or generic type, a property without a type annotation, or a property type
    ///   that is a dictionary, tuple, closure, nested optional or other generic type.
    public init(declarationSource source: String) throws(MacroError) {
        let declaration = try DeclarationParser.parse(source)
        self.declaration = declaration
        guard declaration.kind == .struct || declaration.kind == .enum else {
            throw MacroError(
                "@Generable applies to structs and enums, not to \(declaration.kind.rawValue) declarations",
                at: declaration.nameOffset)
        }
        if let offset = declaration.genericParametersOffset {
            throw MacroError("@Generable does not support generic types; \(declaration.name) has generic parameters", at: offset)
        }
        let generable = declaration.attributes.last { $0.name == "Generable" }
        typeDescription = generable?.argument(labeled: "description")?.expression
        schemaName = generable?.argument(labeled: "name")?.expression
        representsNilExplicitly = try generable?.argument(labeled: Self.nilLabel).map(Self.booleanLiteral) ?? false
        if let argument = generable?.arguments?.first(where: { argument in !["name", "description", Self.nilLabel].contains { $0 == argument.label } }) {
            throw MacroError(
                "@Generable takes name:, description: and representNilExplicitlyInGeneratedContent: arguments; "
                    + "write @Generable(description: \"…\")", at: argument.offset)
        }
        switch declaration.accessLevel {
        case "public"?, "open"?: access = "public "
        case "package"?: access = "package "
        default: access = ""
        }

        var properties: [PropertyPlan] = []
        for property in declaration.properties where !(property.isLet && property.hasInitialValue) {
            try Self.check(property.type, at: property.typeOffset, allowOptional: true)
            var description: String?
            var guides: [String] = []
            // Apple's examples split a description and a guide over two @Guide attributes.
            for attribute in property.attributes where attribute.name == "Guide" {
                let read = try GuideAttribute(attribute)
                description = read.description ?? description
                guides += read.guides
            }
            var wrapped = property.type
            var isOptional = false
            if case .optional(let inner) = property.type {
                wrapped = inner
                isOptional = true
            }
            properties.append(PropertyPlan(
                name: property.name, typeText: Self.render(property.type), wrappedTypeText: Self.render(wrapped),
                isOptional: isOptional, description: description, guides: guides))
        }
        self.properties = properties

        var cases: [CasePlan] = []
        for enumCase in declaration.cases {
            var values: [(label: String?, typeText: String, isOptional: Bool)] = []
            for value in enumCase.associatedValues {
                try Self.check(value.type, at: value.offset, allowOptional: true)
                var isOptional = false
                if case .optional = value.type { isOptional = true }
                values.append((value.label, Self.render(value.type), isOptional))
            }
            let description = try enumCase.attributes.last { $0.name == "Guide" }.map { (attribute) throws(MacroError) in
                try GuideAttribute(attribute).description
            } ?? nil
            cases.append(CasePlan(name: enumCase.name, description: description, values: values))
        }
        if declaration.kind == .enum && cases.isEmpty {
            throw MacroError("@Generable needs at least one case in the enum \(declaration.name)", at: declaration.nameOffset)
        }
        self.cases = cases
    }

    private static let nilLabel = "representNilExplicitlyInGeneratedContent"

    /// The value of a `true` or `false` argument; the generated code depends on it, so it must
    /// be known when the macro expands.
    private static func booleanLiteral(_ argument: Argument) throws(MacroError) -> Bool {
        if argument.tokens.count == 1, argument.tokens[0].isWord("true") { return true }
        if argument.tokens.count == 1, argument.tokens[0].isWord("false") { return false }
        throw MacroError(
            "representNilExplicitlyInGeneratedContent must be the literal true or false, found '\(argument.expression)'",
            at: argument.offset)
    }

    /// The flag as an argument of the schema initializers, when it is set.
    private var nilArgument: String {
        representsNilExplicitly ? ", representNilExplicitlyInGeneratedContent: true" : ""
    }

    /// `.renamed(…)` after the schema initializer for `@Generable(name:)`.
    private var renaming: String {
        schemaName.map { ".renamed(\($0))" } ?? ""
    }

    /// The value written for a property or associated value in `generatedContent`: a `nil`
    /// optional is left out by `GeneratedContent(properties:)`, unless nil is explicit, where
    /// the optional's own content (`null` for `nil`) is written.
    private func contentExpression(_ value: String, isOptional: Bool) -> String {
        representsNilExplicitly && isOptional ? "\(value).generatedContent" : value
    }

    /// Rejects the types a schema cannot describe, pointing at the type.
    private static func check(_ type: TypeSyntax, at offset: Int, allowOptional: Bool) throws(MacroError) {
        switch type {
        case .optional(let wrapped):
            guard allowOptional else {
                throw MacroError(
                    "optionals are supported only as the type of a whole property (String?), not nested in arrays or other optionals",
                    at: offset)
            }
            try check(wrapped, at: offset, allowOptional: false)
        case .array(let element):
            try check(element, at: offset, allowOptional: false)
        case .named(let name, let arguments):
            if !arguments.isEmpty {
                throw MacroError(
                    "the generic type \(render(type)) is not supported by @Generable; use String, Int, Double, Float, "
                        + "Decimal, Bool, arrays, optionals or another @Generable type", at: offset)
            }
            if name == "Any" || name == "AnyObject" {
                throw MacroError("'\(name)' has no schema; use a @Generable type or GeneratedContent", at: offset)
            }
        case .dictionary:
            throw MacroError(
                "dictionaries are not supported by @Generable; use an array of a @Generable struct with key and value properties",
                at: offset)
        case .tuple(let elements):
            throw MacroError(
                elements.isEmpty ? "'()' has no schema" : "tuples are not supported by @Generable; use a @Generable struct",
                at: offset)
        case .function:
            throw MacroError("closures cannot be generated; remove the property or make it computed", at: offset)
        case .opaque:
            throw MacroError("'some' and 'any' types have no schema; use a concrete @Generable type", at: offset)
        }
    }

    /// Canonical source text of a type (`Optional<T>` becomes `T?`, `Array<T>` becomes `[T]`).
    static func render(_ type: TypeSyntax) -> String {
        switch type {
        case .named(let name, let arguments):
            return arguments.isEmpty ? name : "\(name)<\(arguments.map(render).joined(separator: ", "))>"
        case .optional(let wrapped): return render(wrapped) + "?"
        case .array(let element): return "[\(render(element))]"
        case .dictionary(let key, let value): return "[\(render(key)): \(render(value))]"
        case .tuple(let elements): return "(\(elements.map(render).joined(separator: ", ")))"
        case .function: return "(/* closure */)"
        case .opaque: return "(/* opaque */)"
        }
    }

    // MARK: Member role

    /// The members to add inside the type.
    public func memberDeclarations() -> String {
        declaration.kind == .struct ? structMembers() : enumMembers()
    }

    private func structMembers() -> String {
        var lines: [String] = []
        lines.append("\(access)nonisolated static var generationSchema: GenerationSchema {")
        lines.append("    GenerationSchema(type: Self.self, description: \(typeDescription ?? "nil")\(nilArgument), properties: [")
        for property in properties {
            var arguments = "name: \(swiftStringLiteral(property.name))"
            if let description = property.description { arguments += ", description: \(description)" }
            arguments += ", type: \(property.typeText).self"
            if !property.guides.isEmpty { arguments += ", guides: [\(property.guides.joined(separator: ", "))]" }
            lines.append("        GenerationSchema.Property(\(arguments)),")
        }
        lines.append("    ])\(renaming)")
        lines.append("}")
        lines.append("")
        lines.append("\(access)nonisolated var generatedContent: GeneratedContent {")
        if properties.isEmpty {
            lines.append("    GeneratedContent(properties: [:])")
        } else {
            lines.append("    GeneratedContent(properties: [")
            for property in properties {
                let value = contentExpression("self.\(escaped(property.name))", isOptional: property.isOptional)
                lines.append("        \(swiftStringLiteral(property.name)): \(value),")
            }
            lines.append("    ])")
        }
        lines.append("}")
        lines.append("")
        lines.append("/// A snapshot of a partially generated `\(declaration.name)`: every property is optional.")
        lines.append("\(access)struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent {")
        lines.append("    \(access)var id: GenerationID")
        for property in properties {
            // `[DayPlan].PartiallyGenerated` is `[DayPlan.PartiallyGenerated]`.
            lines.append("    \(access)var \(escaped(property.name)): \(property.wrappedTypeText).PartiallyGenerated?")
        }
        lines.append("")
        lines.append("    \(access)nonisolated init(_ content: GeneratedContent) throws {")
        lines.append("        self.id = content.id ?? GenerationID()")
        for property in properties {
            lines.append("        self.\(escaped(property.name)) = try content.value(forProperty: \(swiftStringLiteral(property.name)))")
        }
        lines.append("    }")
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private var hasAssociatedValues: Bool { cases.contains { !$0.values.isEmpty } }

    private func enumMembers() -> String {
        var lines: [String] = []
        lines.append("\(access)nonisolated static var generationSchema: GenerationSchema {")
        if hasAssociatedValues {
            lines.append("    GenerationSchema(type: Self.self, description: \(typeDescription ?? "nil")\(nilArgument), cases: [")
            for enumCase in cases {
                var arguments = "name: \(swiftStringLiteral(enumCase.name))"
                if let description = enumCase.description { arguments += ", description: \(description)" }
                if enumCase.hasSingleUnlabeledValue {
                    arguments += ", type: \(enumCase.values[0].typeText).self"
                } else if !enumCase.values.isEmpty {
                    let values = enumCase.values.indices.map { index in
                        "GenerationSchema.Property(name: \(swiftStringLiteral(enumCase.valueKey(index))), type: \(enumCase.values[index].typeText).self)"
                    }
                    arguments += ", properties: [\(values.joined(separator: ", "))]"
                }
                lines.append("        GenerationSchema.EnumCase(\(arguments)),")
            }
            lines.append("    ])\(renaming)")
        } else {
            let names = cases.map { swiftStringLiteral($0.name) }.joined(separator: ", ")
            lines.append("    GenerationSchema(type: Self.self, description: \(typeDescription ?? "nil"), anyOf: [\(names)])\(renaming)")
        }
        lines.append("}")
        lines.append("")
        lines.append("\(access)nonisolated var generatedContent: GeneratedContent {")
        lines.append("    switch self {")
        for enumCase in cases {
            let key = swiftStringLiteral(enumCase.name)
            if enumCase.values.isEmpty {
                lines.append("    case .\(escaped(enumCase.name)):")
                lines.append("        return GeneratedContent(kind: .string(\(key)))")
            } else {
                let bindings = enumCase.values.indices.map { "let value\($0)" }.joined(separator: ", ")
                lines.append("    case .\(escaped(enumCase.name))(\(bindings)):")
                if enumCase.hasSingleUnlabeledValue {
                    lines.append("        return GeneratedContent(properties: [\(key): value0])")
                } else {
                    let pairs = enumCase.values.indices.map { index in
                        let value = contentExpression("value\(index)", isOptional: enumCase.values[index].isOptional)
                        return "\(swiftStringLiteral(enumCase.valueKey(index))): \(value)"
                    }
                    lines.append("        return GeneratedContent(properties: [\(key): GeneratedContent(properties: [\(pairs.joined(separator: ", "))])])")
                }
            }
        }
        lines.append("    }")
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    // MARK: Extension role

    /// The extension declaring the conformance (when `addConformance`) and the initializer.
    ///
    /// - Parameters:
    ///   - extendedType: The type as the compiler names it (e.g. `NPC.Encounter`).
    ///   - addConformance: Whether to write `: Generable` (the compiler omits it from the
    ///     request when the type already declares the conformance).
    public func extensionDeclaration(extendedType: String, addConformance: Bool) -> String {
        var lines: [String] = []
        lines.append("extension \(extendedType)\(addConformance ? ": Generable" : "") {")
        lines.append("    \(access)nonisolated init(_ content: GeneratedContent) throws {")
        if declaration.kind == .struct {
            for property in properties {
                lines.append("        self.\(escaped(property.name)) = try content.value(forProperty: \(swiftStringLiteral(property.name)))")
            }
        } else {
            lines += enumInitializerBody().map { "        " + $0 }
        }
        lines.append("    }")
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private func enumInitializerBody() -> [String] {
        let plain = cases.filter { $0.values.isEmpty }
        let valued = cases.filter { !$0.values.isEmpty }
        var lines: [String] = []
        lines.append("switch content.kind {")
        if !plain.isEmpty {
            lines.append("case .string(let name):")
            lines.append("    switch name {")
            for enumCase in plain {
                lines.append("    case \(swiftStringLiteral(enumCase.name)): self = .\(escaped(enumCase.name)); return")
            }
            lines.append("    default: break")
            lines.append("    }")
        }
        if !valued.isEmpty {
            lines.append("case .structure(let properties, _) where properties.count == 1:")
            lines.append("    switch properties.keys.first! {")
            for enumCase in valued {
                let key = swiftStringLiteral(enumCase.name)
                lines.append("    case \(key):")
                if enumCase.hasSingleUnlabeledValue {
                    lines.append("        self = .\(escaped(enumCase.name))(try content.value(forProperty: \(key)))")
                } else {
                    lines.append("        let payload = try content.value(GeneratedContent.self, forProperty: \(key))")
                    let arguments = enumCase.values.indices.map { index -> String in
                        let read = "try payload.value(forProperty: \(swiftStringLiteral(enumCase.valueKey(index))))"
                        return enumCase.values[index].label.map { "\(escaped($0)): \(read)" } ?? read
                    }
                    lines.append("        do {")
                    lines.append("            self = .\(escaped(enumCase.name))(\(arguments.joined(separator: ", ")))")
                    lines.append("        } catch let error as GeneratedContent.ConversionError {")
                    lines.append("            throw error.prefixed(by: \(key))")
                    lines.append("        }")
                }
                lines.append("        return")
            }
            lines.append("    default: break")
            lines.append("    }")
        }
        lines.append("default: break")
        lines.append("}")
        let expected = "one of the cases of \(declaration.name): "
            + cases.map { $0.values.isEmpty ? "\"\($0.name)\"" : "{\"\($0.name)\": …}" }.joined(separator: ", ")
        lines.append("throw GeneratedContent.ConversionError(path: [], expected: \(swiftStringLiteral(expected)), content: content)")
        return lines
    }

    /// Names that are keywords must be written in backticks.
    private func escaped(_ name: String) -> String {
        Self.keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while",
        "as", "Any", "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try",
    ]
}
