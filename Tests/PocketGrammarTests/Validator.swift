import Foundation

/// An independent JSON Schema validator for the tests: works on Foundation's parse of the
/// document and the schema, sharing no code with the grammar engine.
enum Validator {
    static func validate(_ json: String, against schemaText: String) -> String? {
        guard let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) else {
            return "not JSON: \(json)"
        }
        let schema = try! JSONSerialization.jsonObject(with: Data(schemaText.utf8)) as! [String: Any]
        return check(value, schema, root: schema, path: "$")
    }

    /// Foundation on Linux returns booleans as a distinct NSNumber subclass.
    static func isBoolean(_ value: Any) -> Bool {
        String(describing: type(of: value)).contains("Boolean") || type(of: value) == Bool.self
    }

    static func check(_ value: Any, _ schema: [String: Any], root: [String: Any], path: String) -> String? {
        if let ref = schema["$ref"] as? String {
            let name = ref.components(separatedBy: "/").last!
            let defs = (root["$defs"] as? [String: Any]) ?? (root["definitions"] as? [String: Any]) ?? [:]
            return check(value, defs[name] as! [String: Any], root: root, path: path)
        }
        if let options = (schema["anyOf"] ?? schema["oneOf"]) as? [[String: Any]] {
            return options.contains { check(value, $0, root: root, path: path) == nil } ? nil : "\(path): no anyOf branch matches"
        }
        if let choices = schema["enum"] as? [String] {
            return (value as? String).map(choices.contains) == true ? nil : "\(path): not one of \(choices)"
        }
        if let c = schema["const"] as? String { return value as? String == c ? nil : "\(path): not \(c)" }
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return "\(path): not an object" }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil { return "\(path): missing \(name)" }
            for (key, v) in object {
                guard let sub = properties[key] as? [String: Any] else {
                    if (schema["additionalProperties"] as? Bool) == false { return "\(path): unexpected \(key)" }
                    continue
                }
                if let e = check(v, sub, root: root, path: path + "." + key) { return e }
            }
        case "array":
            guard let array = value as? [Any] else { return "\(path): not an array" }
            if let min = schema["minItems"] as? Int, array.count < min { return "\(path): fewer than \(min)" }
            if let max = schema["maxItems"] as? Int, array.count > max { return "\(path): more than \(max)" }
            if let items = schema["items"] as? [String: Any] {
                for (i, v) in array.enumerated() { if let e = check(v, items, root: root, path: "\(path)[\(i)]") { return e } }
            }
        case "string":
            guard let s = value as? String else { return "\(path): not a string" }
            if let max = schema["maxLength"] as? Int, s.utf8.count > max { return "\(path): longer than \(max)" }
            if let pattern = schema["pattern"] as? String {
                // JSON Schema patterns are searches: some part of the string must match.
                let regex = try! NSRegularExpression(pattern: pattern)
                if regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) == nil { return "\(path): \(s) does not match \(pattern)" }
            }
        case "integer", "number":
            guard let n = value as? NSNumber, !isBoolean(value) else { return "\(path): not a number" }
            if schema["type"] as? String == "integer", n.doubleValue != n.doubleValue.rounded() { return "\(path): not an integer" }
            if let min = schema["minimum"] as? Double, n.doubleValue < min { return "\(path): below \(min)" }
            if let max = schema["maximum"] as? Double, n.doubleValue > max { return "\(path): above \(max)" }
        case "boolean":
            guard isBoolean(value) else { return "\(path): not a boolean" }
        case "null":
            guard value is NSNull else { return "\(path): not null" }
        default: break
        }
        return nil
    }
}
