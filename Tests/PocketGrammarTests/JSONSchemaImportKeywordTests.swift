import Foundation
import Testing
@testable import PocketGrammar

/// Keyword policy and the keywords of single schemas (JSONSchemaImport, +Types, +Objects, +Values).
@Suite struct JSONSchemaImportKeywordTests {
    @Test func annotationsAndUnknownKeywordsAreIgnored() throws {
        let schema = ##"""
        {"$schema":"http://json-schema.org/draft-04/schema#","id":"http://x/y.json","title":"T","description":"d",
         "type":"object","readonly":true,"readOnly":true,"writeOnly":false,"deprecated":true,"examples":[1],"default":{},
         "x-vendor":{"a":1},"propertyOrder":3,"_format":"date","self":{"name":"n"},"javaType":"X","$comment":"c",
         "properties":{"a":{"type":"integer","example":4,"x-kubernetes-int-or-string":true,"form":"none"}},"required":["a"]}
        """##
        try SchemaProbe(schema).check(valid: [#"{"a":1}"#], invalid: [#"{"a":"1"}"#, #"{}"#])
    }

    @Test func validationKeywordsThatCannotBeEnforcedAreErrorsWithTheirPath() {
        expectRefusal(##"{"type":"array","items":{"type":"integer"},"uniqueItems":true}"##, naming: "uniqueItems", at: "#/uniqueItems")
        expectRefusal(##"{"type":"object","properties":{"a":{"if":{"type":"string"},"then":{"minLength":1}}}}"##, naming: "if", at: "#/properties/a/if")
        expectRefusal(##"{"type":"array","contains":{"type":"integer"}}"##, naming: "contains", at: "#/contains")
        expectRefusal(##"{"type":"string","format":"iri"}"##, naming: "format 'iri'", at: "#/format")
        expectRefusal(##"{"type":"object","propertyNames":{"pattern":"^a"}}"##, naming: "propertyNames", at: "#/propertyNames")
    }

    @Test func uniqueItemsIsAcceptedWhereItCannotFail() throws {
        try SchemaProbe(##"{"type":"array","items":{"type":"integer"},"uniqueItems":true,"maxItems":1}"##)
            .check(valid: ["[]", "[3]"], invalid: ["[3,3]"])
        try SchemaProbe(##"{"type":"array","uniqueItems":false}"##).check(valid: ["[1,1]"], invalid: ["{}"])
    }

    @Test func unknownFormatsAreAnnotations() throws {
        try SchemaProbe(##"{"type":"string","format":"int64"}"##).check(valid: [#""abc""#], invalid: ["1"])
        try SchemaProbe(##"{"type":"integer","format":"email"}"##).check(valid: ["12"], invalid: [#""a@b.c""#])
    }

    @Test func nonStringEnumAndConst() throws {
        try SchemaProbe(##"{"enum":[1,2.5,"a",true,null,[1,"x"],{"k":false}]}"##).check(
            valid: ["1", "2.5", #""a""#, "true", "null", #"[1,"x"]"#, #"{"k":false}"#],
            invalid: ["2", "false", #""b""#, "[1]", #"{"k":true}"#, "1.5"])
        try SchemaProbe(##"{"const":false}"##).check(valid: ["false"], invalid: ["true", "0"])
        try SchemaProbe(##"{"const":0.3}"##).check(valid: ["0.3"], invalid: ["0.30000000000000004", "3"])
        try SchemaProbe(##"{"type":"integer","enum":[1,"1",2,7],"maximum":5}"##).check(valid: ["1", "2"], invalid: [#""1""#, "7"])
    }

    @Test func enumOrConstOutsideTheOtherKeywordsIsAnError() {
        expectRefusal(##"{"type":"string","const":3}"##, naming: "no value", at: "#")
        expectRefusal(##"{"type":"integer","enum":[10,20],"maximum":5}"##, naming: "no value", at: "#/enum")
    }

    @Test func additionalPropertiesTrueAndSchemaValued() throws {
        let open = try SchemaProbe(##"{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}"##)
        open.check(valid: [#"{"a":1}"#, #"{"a":1,"b":[true,{"c":null}]}"#, #"{"a":1,"zz":"x","y":2}"#],
                   invalid: [#"{"b":1}"#, #"{"a":1,"a":2}"#, #"{"a":"x"}"#])
        let typed = try SchemaProbe(##"{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string","maxLength":3}}"##)
        typed.check(valid: ["{}", #"{"a":1,"b":"xy"}"#, #"{"q":"abc","r":""}"#], invalid: [#"{"b":1}"#, #"{"b":"long"}"#, #"{"a":"s"}"#])
        // A free object is an object, not any value.
        try SchemaProbe(##"{"type":"object"}"##).check(valid: ["{}", #"{"x":[1]}"#], invalid: ["1", "[]", #""s""#])
    }

    @Test func patternProperties() throws {
        let p = try SchemaProbe(##"{"type":"object","properties":{"id":{"type":"string"}},"patternProperties":{"^x-":{"type":"integer"},"^n[0-9]+$":{"type":"boolean"}},"additionalProperties":false}"##)
        p.check(valid: [#"{"id":"a","x-one":1,"n12":true}"#, #"{"x-":2}"#],
                invalid: [#"{"x-one":"s"}"#, #"{"n1":1}"#, #"{"other":1}"#, #"{"n1a":true}"#])
        // Declared names matching a pattern get both schemas.
        let both = try SchemaProbe(##"{"type":"object","properties":{"x-a":{"minimum":3}},"patternProperties":{"^x-":{"type":"integer"}}}"##)
        both.check(valid: [#"{"x-a":4}"#], invalid: [#"{"x-a":2}"#, #"{"x-a":3.5}"#])
        expectRefusal(##"{"type":"object","patternProperties":{"a":{"type":"integer"},"b":{"type":"string"}}}"##, naming: "overlapping", at: "#/patternProperties")
    }

    @Test func requiredNamesWithoutSchemasAndUnsatisfiableRequired() throws {
        try SchemaProbe(##"{"type":"object","properties":{"a":{"type":"integer"}},"required":["b"]}"##)
            .check(valid: [#"{"b":null}"#, #"{"a":1,"b":"x"}"#], invalid: [#"{"a":1}"#, "{}"])
        expectRefusal(##"{"type":"object","properties":{"a":{}},"required":["b"],"additionalProperties":false}"##, naming: "no value", at: "#")
    }

    @Test func tuplesWithPrefixItemsItemsListsAndAdditionalItems() throws {
        try SchemaProbe(##"{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}"##)
            .check(valid: ["[]", "[1]", #"[1,"a"]"#], invalid: [#"["a"]"#, #"[1,"a",2]"#])
        try SchemaProbe(##"{"type":"array","items":[{"type":"boolean"}],"additionalItems":{"type":"null"},"minItems":2}"##)
            .check(valid: ["[true,null]", "[false,null,null]"], invalid: ["[true]", "[true,1]"])
        try SchemaProbe(##"{"type":"array","prefixItems":[{"const":"x"}]}"##).check(valid: [#"["x",1,{}]"#], invalid: [#"["y"]"#])
    }

    @Test func dependentRequiredAndDependencies() throws {
        let d = try SchemaProbe(##"{"type":"object","properties":{"card":{"type":"string"},"billing":{"type":"string"},"name":{"type":"string"}},"dependentRequired":{"card":["billing"]},"additionalProperties":false}"##)
        d.check(valid: ["{}", #"{"billing":"b"}"#, #"{"card":"c","billing":"b"}"#, #"{"name":"n"}"#], invalid: [#"{"card":"c"}"#, #"{"card":"c","name":"n"}"#])
        let schema = try SchemaProbe(##"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"dependencies":{"a":{"properties":{"b":{"minimum":10}},"required":["b"]}}}"##)
        schema.check(valid: [#"{"b":1}"#, #"{"a":1,"b":10}"#], invalid: [#"{"a":1}"#, #"{"a":1,"b":3}"#])
    }

    @Test func propertyCounts() throws {
        try SchemaProbe(##"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"minProperties":1,"additionalProperties":false}"##)
            .check(valid: [#"{"a":1}"#, #"{"b":1}"#, #"{"a":1,"b":2}"#], invalid: ["{}"])
        try SchemaProbe(##"{"type":"object","properties":{"a":{}},"required":["a"],"minProperties":1,"maxProperties":1,"additionalProperties":false}"##)
            .check(valid: [#"{"a":1}"#], invalid: ["{}"])
        expectRefusal(##"{"type":"object","minProperties":2}"##, naming: "minProperties", at: "#/minProperties")
        expectRefusal(##"{"type":"object","maxProperties":2}"##, naming: "maxProperties", at: "#/maxProperties")
    }

    @Test func integerMultipleOfAndExclusiveBounds() throws {
        try SchemaProbe(##"{"type":"integer","multipleOf":5,"minimum":-12,"maximum":20}"##)
            .check(valid: ["-10", "0", "5", "20"], invalid: ["-15", "3", "25", "21"])
        try SchemaProbe(##"{"type":"number","multipleOf":1}"##).check(valid: ["3", "-2"], invalid: ["1.5"])
        try SchemaProbe(##"{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":3}"##).check(valid: ["1", "2"], invalid: ["0", "3"])
        try SchemaProbe(##"{"type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":3}"##).check(valid: ["1", "3"], invalid: ["0"])
        try SchemaProbe(##"{"type":"number","exclusiveMaximum":1}"##).check(valid: ["0.999", "-4"], invalid: ["1", "1.5"])
        expectRefusal(##"{"type":"number","multipleOf":0.5}"##, naming: "multipleOf", at: "#/multipleOf")
    }

    @Test func boundsBeyondInt64AreBoundsNotTraps() throws {
        // Snowplow's maximum: 2^63 written in decimal.
        try SchemaProbe(##"{"type":"integer","minimum":0,"maximum":9223372036854776000}"##).check(valid: ["0", "123456789012345"], invalid: ["-1"])
        try SchemaProbe(##"{"type":"number","maximum":1e30,"minimum":-1e300}"##).check(valid: ["5", "-7.5"], invalid: [])
        let huge = String(repeating: "9", count: 400)
        try SchemaProbe(#"{"type":"integer","maximum":\#(huge)}"#).check(valid: ["1"], invalid: ["a"])
        expectRefusal(#"{"type":"integer","minimum":\#(huge)}"#, naming: "no value", at: "#/minimum")
        expectRefusal(##"{"type":"integer","minimum":1e30}"##, naming: "no value", at: "#/minimum")
        try SchemaProbe(##"{"type":"array","maxItems":1e30,"items":{"type":"string","maxLength":1e20}}"##).check(valid: [#"["a"]"#], invalid: ["[1]"])
    }

    @Test func searchPatternsAndWholeStringPatterns() throws {
        let search = try SchemaProbe(##"{"type":"string","pattern":"\\w+"}"##)
        search.check(valid: [#""a""#, #""--x--""#], invalid: [#""--""#, "\"\""])
        try SchemaProbe(##"{"type":"string","pattern":"^https?://"}"##).check(valid: [#""https://a.b/c""#, #""http://""#], invalid: [#""ftp://x""#, #"" http://""#])
        try SchemaProbe(##"{"type":"string","pattern":"\\.json$"}"##).check(valid: [#""a.json""#], invalid: [#""a.json5""#])
        try SchemaProbe(##"{"type":"string","pattern":"^a$|b"}"##).check(valid: [#""a""#, #""xbx""#], invalid: [#""ax""#])
        let whole = try SchemaProbe(##"{"type":"string","pattern":"\\w+"}"##, patterns: .wholeString)
        whole.check(valid: [#""abc""#], invalid: [#""--x--""#])
    }

    @Test func minLengthAndMaxLengthWithAPattern() throws {
        try SchemaProbe(##"{"type":"string","pattern":"^[a-z]*$","minLength":2,"maxLength":4}"##)
            .check(valid: [#""ab""#, #""abcd""#], invalid: [#""a""#, #""abcde""#, #""A1""#])
        // minLength counts characters: "éé" is two, an escape sequence one.
        try SchemaProbe(##"{"type":"string","pattern":"^é+$","minLength":2}"##).check(valid: [#""éé""#], invalid: [#""é""#])
        try SchemaProbe(##"{"type":"string","minLength":2}"##).check(valid: [#""ab""#, #""éé""#, #""a\n""#, #""🙂🙂""#], invalid: [#""é""#, #""\n""#, #""🙂""#, "\"\""])
    }

    @Test func referenceForms() throws {
        let d4 = ##"{"id":"http://example.com/s.json","definitions":{"a b":{"type":"integer"},"x/y":{"type":"string"},"p~q":{"type":"boolean"}},"type":"object","properties":{"one":{"$ref":"#/definitions/a%20b"},"two":{"$ref":"#/definitions/x~1y"},"three":{"$ref":"#/definitions/p~0q"},"four":{"$ref":"#/properties/one"},"five":{"$ref":"http://example.com/s.json#/definitions/x~1y"}},"required":["one","two","three","four","five"]}"##
        try SchemaProbe(d4).check(valid: [#"{"one":1,"two":"s","three":true,"four":2,"five":"t"}"#], invalid: [#"{"one":"1","two":"s","three":true,"four":2,"five":"t"}"#])
        try SchemaProbe(##"{"type":"object","properties":{"next":{"$ref":"#"}}}"##).check(valid: [#"{"next":{"next":{}}}"#], invalid: [#"{"next":1}"#])
        expectRefusal(##"{"$ref":"other.json#/a"}"##, naming: "other.json", at: "#/$ref")
    }

    @Test func referenceCyclesThatProduceNothingAreImportErrors() {
        expectRefusal(##"{"$ref":"#/$defs/U","$defs":{"U":{"anyOf":[{"$ref":"#/$defs/U"}]}}}"##, naming: "cycle", at: "#")
        expectRefusal(##"{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}"##, naming: "cycle", at: "#")
        expectRefusal(##"{"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"required":["n"]}}}"##, naming: "no finite", at: "#")
    }

    @Test func recursiveCombinatorsAreErrorsNotCrashes() {
        for schema in [
            ##"{"$ref":"#/$defs/U","$defs":{"U":{"oneOf":[{"$ref":"#/$defs/U"},{"type":"string"}]}}}"##,
            ##"{"$ref":"#/$defs/U","$defs":{"U":{"allOf":[{"$ref":"#/$defs/U"}]}}}"##,
            ##"{"$ref":"#/$defs/U","$defs":{"U":{"not":{"$ref":"#/$defs/U"}}}}"##,
            ##"{"$ref":"#/$defs/U","$defs":{"U":{"type":"object","properties":{"a":{"$ref":"#/$defs/U"}},"allOf":[{"$ref":"#/$defs/U"}]}}}"##,
            String(repeating: #"{"items":"#, count: 150) + "{}" + String(repeating: "}", count: 150),
        ] {
            #expect(throws: GrammarError.self, "\(schema.prefix(80))") { try JSONSchemaImport.schema(fromJSON: schema) }
        }
    }

    @Test func aCycleWithAWayOutKeepsOnlyTheWayOut() throws {
        try SchemaProbe(##"{"$ref":"#/$defs/U","$defs":{"U":{"anyOf":[{"$ref":"#/$defs/U"},{"type":"integer"}]}}}"##)
            .check(valid: ["3"], invalid: [#""s""#])
    }
}
