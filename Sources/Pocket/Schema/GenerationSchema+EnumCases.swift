// Enums with associated values. Apple's framework documents that @Generable supports them but
// not the JSON it generates; Pocket's encoding is an any-of of one schema per case:
//   case plain                         "plain"
//   case orderCoffee(String)           {"orderCoffee": "latte"}
//   case talk(complaint: String, Int)  {"talk": {"complaint": "…", "_1": 3}}
// Unlabeled values beyond a lone one are named `_0`, `_1`, … as in Swift's Codable synthesis.

extension GenerationSchema {
    /// Creates a schema for an enum whose cases may carry associated values: the value is one
    /// of `cases`.
    ///
    /// A Pocket addition, written by `@Generable` for enums with associated values (enums
    /// without them use ``init(type:description:anyOf:)-(_,_,[String])``).
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's title.
    ///   - description: A natural-language description of the type.
    ///   - cases: The cases, in declaration order.
    public init(type: any Generable.Type, description: String? = nil, cases: [EnumCase]) {
        self.init(type: type, description: description, representNilExplicitlyInGeneratedContent: false, cases: cases)
    }

    /// Creates a schema for an enum whose cases may carry associated values, choosing how an
    /// optional associated value without a value is generated.
    ///
    /// A Pocket addition, written by `@Generable(representNilExplicitlyInGeneratedContent:)`
    /// for enums with associated values. With `true`, an optional value of a case with
    /// labeled or several values (`{"case": {"label": …}}`) is always generated, as `null`
    /// when it has none; see
    /// ``init(type:description:representNilExplicitlyInGeneratedContent:properties:)``.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's title.
    ///   - description: A natural-language description of the type.
    ///   - representNilExplicitlyInGeneratedContent: Whether optional associated values are
    ///     always generated, as `null` when they have none.
    ///   - cases: The cases, in declaration order.
    public init(
        type: any Generable.Type, description: String? = nil, representNilExplicitlyInGeneratedContent: Bool,
        cases: [EnumCase]
    ) {
        let name = Self.typeName(type)
        var seen = Set<String>()
        var error: SchemaError? = cases.isEmpty ? Self.emptyChoices(name) : nil
        for enumCase in cases where !seen.insert(enumCase.name).inserted {
            error = .duplicateProperty(
                schema: name, property: enumCase.name,
                context: .init(debugDescription: "The enum \(name) declares the case \"\(enumCase.name)\" more than once."))
            break
        }
        self.init(
            root: .anyOf(
                name: name, description: description,
                choices: cases.map { $0.node(in: name, representingNilExplicitly: representNilExplicitlyInGeneratedContent) }),
            rootType: type, deferredError: error)
    }

    /// One case of an enum schema (see ``init(type:description:cases:)``).
    ///
    /// A Pocket addition.
    public struct EnumCase: Sendable {
        /// The case's name, which is also the JSON it is generated as.
        public let name: String
        let description: String?
        let payload: Payload

        enum Payload: Sendable {
            case none
            case value(SchemaNode)
            case properties([SchemaProperty])
        }

        /// A case without associated values, generated as its name.
        ///
        /// - Parameters:
        ///   - name: The case's name.
        ///   - description: A natural-language description of the case.
        public init(name: String, description: String? = nil) {
            self.name = name
            self.description = description
            payload = .none
        }

        /// A case with one unlabeled associated value, generated as `{"name": value}`.
        ///
        /// - Parameters:
        ///   - name: The case's name.
        ///   - description: A natural-language description of the case.
        ///   - type: The associated value's type.
        ///   - guides: Constraints on the associated value.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value.Type, guides: [GenerationGuide<Value>] = []
        ) {
            self.name = name
            self.description = description
            payload = .value(.generable(type, guides: guides.map(\.constraint)))
        }

        /// A case with labeled or several associated values, generated as
        /// `{"name": {"label": value, …}}`.
        ///
        /// - Parameters:
        ///   - name: The case's name.
        ///   - description: A natural-language description of the case.
        ///   - properties: One property per associated value, in order.
        public init(name: String, description: String? = nil, properties: [GenerationSchema.Property]) {
            self.name = name
            self.description = description
            payload = .properties(properties.map(\.storage))
        }

        func node(in enumName: String, representingNilExplicitly: Bool) -> SchemaNode {
            let caseName = "\(enumName).\(name)"
            switch payload {
            case .none:
                return .string(StringConstraints(constant: name))
            case .value(let node):
                return .object(name: caseName, description: description, properties: [
                    SchemaProperty(name: name, description: nil, node: node, isOptional: false),
                ])
            case .properties(let properties):
                let values = SchemaNode.object(
                    name: caseName + ".Values", description: nil,
                    properties: SchemaProperty.representingNil(properties, explicitly: representingNilExplicitly))
                return .object(name: caseName, description: description, properties: [
                    SchemaProperty(name: name, description: nil, node: values, isOptional: false),
                ])
            }
        }
    }
}
