import Foundation
import Testing
@testable import PocketGrammar

/// allOf, anyOf/oneOf with sibling keywords, oneOf exclusivity and not
/// (JSONSchemaImport+Combinators, +Negation).
@Suite struct JSONSchemaImportCombinatorTests {
    @Test func allOfMergesBoundsTypesPropertiesAndRequired() throws {
        let s = try SchemaProbe(##"""
        {"definitions":{"base":{"type":"object","properties":{"id":{"type":"integer","minimum":0}},"required":["id"]}},
         "allOf":[{"$ref":"#/definitions/base"},{"properties":{"id":{"maximum":9},"name":{"type":"string","pattern":"^[a-z]+$"}},"required":["name"]},
                  {"properties":{"name":{"pattern":"x"}}}]}
        """##)
        s.check(valid: [#"{"id":3,"name":"axe"}"#], invalid: [#"{"id":3,"name":"abc"}"#, #"{"id":10,"name":"x"}"#, #"{"id":1}"#, #"{"name":"x"}"#])
        try SchemaProbe(##"{"allOf":[{"type":["string","integer"]},{"type":["integer","null"]}]}"##).check(valid: ["4"], invalid: [#""s""#, "null"])
        try SchemaProbe(##"{"allOf":[{"enum":["a","b","c"]},{"enum":["b","c","d"]}]}"##).check(valid: [#""b""#, #""c""#], invalid: [#""a""#, #""d""#])
        expectRefusal(##"{"allOf":[{"type":"string"},{"type":"integer"}]}"##, naming: "no type", at: "#/allOf/1")
    }

    @Test func allOfWithAClosedObjectForbidsTheOthersProperties() throws {
        try SchemaProbe(##"{"allOf":[{"type":"object","properties":{"a":{}},"additionalProperties":false},{"properties":{"b":{}}}]}"##)
            .check(valid: ["{}", #"{"a":1}"#], invalid: [#"{"b":1}"#, #"{"a":1,"b":2}"#])
    }

    @Test func typeBesideAnyOfConstrainsEveryBranch() throws {
        try SchemaProbe(##"{"type":"string","anyOf":[{"maxLength":2},{"pattern":"^x"}]}"##)
            .check(valid: [#""ab""#, #""xyzzy""#], invalid: [#""abc""#, "1"])
        try SchemaProbe(##"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}"##)
            .check(valid: [#"{"a":1}"#, #"{"b":2}"#, #"{"a":1,"b":2}"#], invalid: ["{}", #"{"a":"x"}"#])
    }

    @Test func oneOfAcceptsExactlyOneBranch() throws {
        let required = try SchemaProbe(##"{"type":"object","properties":{"side":{"type":"integer"},"radius":{"type":"integer"}},"oneOf":[{"required":["side"]},{"required":["radius"]}]}"##)
        required.check(valid: [#"{"side":5}"#, #"{"radius":2}"#], invalid: [#"{"side":5,"radius":2}"#, "{}"])
        let tagged = try SchemaProbe(##"{"oneOf":[{"type":"object","properties":{"t":{"const":"a"},"v":{"type":"integer"}},"required":["t"]},{"type":"object","properties":{"t":{"const":"b"},"v":{"type":"string"}},"required":["t"]}]}"##)
        tagged.check(valid: [#"{"t":"a","v":1}"#, #"{"t":"b","v":"s"}"#], invalid: [#"{"t":"a","v":"s"}"#])
        try SchemaProbe(##"{"oneOf":[{"type":"string"},{"type":"integer"}]}"##).check(valid: [#""s""#, "3"], invalid: ["null"])
        // Overlapping branches are kept apart by the other branch's required names.
        try SchemaProbe(##"{"oneOf":[{"type":"object","required":["a"]},{"type":"object","required":["b"]}]}"##)
            .check(valid: [#"{"a":1}"#, #"{"b":1}"#], invalid: [#"{"a":1,"b":1}"#])
        expectRefusal(##"{"oneOf":[{"type":"string","minLength":2},{"type":"string","maxLength":5}]}"##, naming: "oneOf", at: "#/oneOf/1")
    }

    @Test func notIsRewrittenWithoutNegation() throws {
        try SchemaProbe(##"{"type":"integer","minimum":1,"maximum":9,"not":{"enum":[3,4]}}"##).check(valid: ["1", "2", "5", "9"], invalid: ["3", "4", "0"])
        try SchemaProbe(##"{"type":"string","not":{"enum":["upstart"]}}"##).check(valid: [#""up""#, #""upstarts""#, "\"\""], invalid: [#""upstart""#])
        try SchemaProbe(##"{"not":{"type":"object"}}"##).check(valid: ["1", #""s""#, "[]", "null"], invalid: ["{}"])
        try SchemaProbe(##"{"type":"object","properties":{"cmd":{},"args":{}},"not":{"allOf":[{"required":["cmd"]},{"required":["args"]}]}}"##)
            .check(valid: ["{}", #"{"cmd":1}"#, #"{"args":2}"#], invalid: [#"{"cmd":1,"args":2}"#])
        try SchemaProbe(##"{"allOf":[{"enum":[{}]},{"not":{"type":"null"}}]}"##).check(valid: ["{}"], invalid: ["null"])
        expectRefusal(##"{"not":{"minLength":3}}"##, naming: "not with 'minLength'", at: "#/not/minLength")
    }
}
