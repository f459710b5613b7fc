import Foundation

/// Answers the Swift compiler's plugin messages for the `@Generable` and `@Guide` macros.
///
/// The compiler runs the macro executable and exchanges JSON messages with it (see
/// ``MessageFraming`` for the framing). Each message is a Swift enum in its synthesized
/// `Codable` form, `{"caseName": {"label": value, …}}`. The ones handled here:
///
/// - `getCapability` → `getCapabilityResult {capability: {protocolVersion}}`
/// - `expandAttachedMacro {macro, macroRole, declSyntax, extendedTypeSyntax, conformanceListSyntax, …}`
///   → `expandMacroResult {expandedSource, diagnostics}`
/// - anything else (freestanding macros, library loading) → an error result naming the
///   request, so the compiler reports it instead of waiting.
///
/// Diagnostic positions are UTF-8 offsets in the file: the declaration's `location.offset`
/// plus the offset the parser found inside the declaration's text.
public struct PluginMessageHandler: Sendable {
    /// The protocol version this plugin speaks.
    public static let protocolVersion = 7

    /// Creates a handler.
    public init() {}

    /// Returns the JSON reply to one JSON request, or `nil` for a message that needs none.
    public func reply(to request: [UInt8]) -> [UInt8]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request)) as? [String: Any],
              let (name, payload) = object.first, object.count == 1 else {
            return encode(["expandMacroResult": ["expandedSource": NSNull(), "diagnostics": [] as [Any]]])
        }
        let body = payload as? [String: Any] ?? [:]
        switch name {
        case "getCapability":
            return encode(["getCapabilityResult": ["capability": ["protocolVersion": Self.protocolVersion]]])
        case "expandAttachedMacro":
            return encode(["expandMacroResult": expandAttached(body)])
        case "loadPluginLibrary":
            return encode(["loadPluginLibraryResult": [
                "loaded": false,
                "diagnostics": [diagnostic("PocketMacros is an executable plugin; it loads no libraries", file: "", offset: 0)],
            ]])
        default:
            let syntax = body["syntax"] as? [String: Any]
            let location = syntax?["location"] as? [String: Any]
            return encode(["expandMacroResult": [
                "expandedSource": NSNull(),
                "diagnostics": [diagnostic(
                    "PocketMacros does not handle the request '\(name)'",
                    file: location?["fileName"] as? String ?? "", offset: location?["offset"] as? Int ?? 0)],
            ]])
        }
    }

    private func expandAttached(_ body: [String: Any]) -> [String: Any] {
        let macro = body["macro"] as? [String: Any] ?? [:]
        let typeName = macro["typeName"] as? String ?? ""
        let role = body["macroRole"] as? String ?? ""
        let declaration = body["declSyntax"] as? [String: Any] ?? [:]
        let source = declaration["source"] as? String ?? ""
        let location = declaration["location"] as? [String: Any] ?? [:]
        let fileName = location["fileName"] as? String ?? ""
        let baseOffset = location["offset"] as? Int ?? 0

        let result = expand(
            macro: typeName, role: role, declarationSource: source,
            extendedType: (body["extendedTypeSyntax"] as? [String: Any])?["source"] as? String,
            conformances: (body["conformanceListSyntax"] as? [String: Any])?["source"] as? String)
        return [
            "expandedSource": result.source.map { $0 as Any } ?? NSNull(),
            "diagnostics": result.errors.map { diagnostic($0.message, file: fileName, offset: baseOffset + $0.offset) },
        ]
    }

    /// Expands one attached-macro role.
    ///
    /// - Parameters:
    ///   - macro: The macro's implementation type name (`GenerableMacro`, `GuideMacro` or
    ///     `SessionPropertyEntryMacro`).
    ///   - role: The role being expanded (`member`, `extension`, `peer`, `accessor`).
    ///   - declarationSource: The attached-to declaration's source text.
    ///   - extendedType: For the extension role, the type being extended.
    ///   - conformances: For the extension role, the protocols still to add (`nil` when the
    ///     host did not say; then the conformance is written).
    /// - Returns: The generated source (`nil` when nothing can be generated) and any errors,
    ///   with offsets inside `declarationSource`.
    public func expand(
        macro: String, role: String, declarationSource: String, extendedType: String?, conformances: String?
    ) -> (source: String?, errors: [MacroError]) {
        switch (macro, role) {
        case ("GuideMacro", _):
            // @Guide only annotates; @Generable reads it.
            return ("", [])
        case ("GenerableMacro", "member"):
            do {
                return (try GenerableExpansion(declarationSource: declarationSource).memberDeclarations(), [])
            } catch {
                return (nil, [error])
            }
        case ("GenerableMacro", "extension"):
            // Errors are reported once, by the member role.
            guard let expansion = try? GenerableExpansion(declarationSource: declarationSource) else { return ("", []) }
            let type = (extendedType ?? expansion.declaration.name).trimmingCharacters(in: .whitespacesAndNewlines)
            let addConformance = conformances.map { $0.contains("Generable") } ?? true
            return (expansion.extensionDeclaration(extendedType: type, addConformance: addConformance), [])
        case ("SessionPropertyEntryMacro", "peer"):
            do {
                return (try SessionPropertyEntryExpansion(declarationSource: declarationSource).keyDeclaration, [])
            } catch {
                return (nil, [error])
            }
        case ("SessionPropertyEntryMacro", "accessor"):
            // Errors are reported once, by the peer role.
            guard let expansion = try? SessionPropertyEntryExpansion(declarationSource: declarationSource) else { return ("", []) }
            return (expansion.accessors, [])
        default:
            return (nil, [MacroError("PocketMacros has no \(role) role for \(macro)", at: 0)])
        }
    }

    private func diagnostic(_ message: String, file: String, offset: Int) -> [String: Any] {
        [
            "message": message,
            "severity": "error",
            "position": ["fileName": file, "offset": offset],
            "highlights": [] as [Any],
            "notes": [] as [Any],
            "fixIts": [] as [Any],
        ]
    }

    private func encode(_ object: [String: Any]) -> [UInt8] {
        // Every value above is a JSON type, so serialization cannot fail.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { Array($0) } ?? []
    }
}
