import Foundation
import Testing
@testable import PocketGrammar

/// Each format against valid and invalid strings from its RFC grammar.
@Suite struct JSONSchemaFormatsTests {
    static let cases: [(format: String, valid: [String], invalid: [String])] = [
        ("date", ["2024-02-29", "2023-12-31", "2000-02-29", "1999-01-01"],
         ["2023-02-29", "1900-02-29", "2023-04-31", "2023-13-01", "2023-1-01", "20230101", "2023-00-10"]),
        ("time", ["23:59:59Z", "00:00:00.123+05:30", "12:30:00z", "08:00:00-00:00"],
         ["24:00:00Z", "12:60:00Z", "12:00:00", "12:00Z", "12:00:00+5:00"]),
        ("date-time", ["2024-01-01T12:00:00Z", "2024-01-01t12:00:00.5+01:00", "2022-01-01T12:00:00.000Z"],
         ["2024-01-01 12:00:00Z", "2024-01-01T12:00:00", "2024-01-01", "2024-01-32T00:00:00Z"]),
        ("duration", ["P1Y", "P1Y2M3DT4H5M6S", "PT5M", "P3W", "P1DT12H", "P0D"],
         ["P", "PT", "P1H", "1Y", "P1Y2W", "PT1D", "P1.5Y"]),
        ("email", ["a@b.co", "first.last+tag@sub.example.org", "x_y@localhost"],
         ["a@", "@b.com", "a b@c.com", "a..b@c.com", "a@-b.com", "a@b-.com", ".a@b.com"]),
        ("hostname", ["example.com", "a", "xn--bcher-kva.example", "a-b.c-d.e1"],
         ["-a.com", "a-.com", "a..b", "a_b.com", String(repeating: "a", count: 64) + ".com", "a.com."]),
        ("ipv4", ["0.0.0.0", "192.168.1.1", "255.255.255.255"], ["256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5", "1.2.3.-4"]),
        ("ipv6", ["::", "::1", "2001:db8::ff00:42:8329", "fe80::1:2:3:4", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.128", "1::"],
         ["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", ":1:2", "1:2:3:4:5:6:7", "::ffff:999.0.2.128", "g::1"]),
        ("uri", ["https://example.com/a/b?c=d#e", "mailto:a@b.c", "urn:isbn:0451450523", "http://[", "file:///tmp/x", "a:"],
         ["//example.com", "/relative", "1http://x", "http://a b", "http://%zz", ""]),
        ("uri-reference", ["https://example.com", "/relative/path?q#f", "../up", "#frag", "", "//host/p"],
         ["a b", "%g0", "x:y z"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"],
         ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-426614174000"]),
    ]

    @Test(arguments: cases.indices)
    func formatAcceptsItsGrammarAndNothingElse(_ index: Int) throws {
        let (format, valid, invalid) = Self.cases[index]
        var validCases = valid, invalidCases = invalid
        if format == "uri" { validCases.removeAll { $0 == "http://[" }; invalidCases.append("http://[") }  // no IP literal: "[" is not allowed
        let probe = try SchemaProbe(#"{"type":"string","format":"\#(format)"}"#)
        probe.check(valid: validCases.map(JSONText.quoted), invalid: invalidCases.map(JSONText.quoted))
    }

    @Test func everyFormatHasCases() {
        #expect(Set(Self.cases.map(\.format)) == Set(JSONSchemaFormats.names))
    }

    @Test func formatCombinesWithPatternAndLengths() throws {
        try SchemaProbe(##"{"type":"string","format":"email","pattern":"@example\\.com$","maxLength":14}"##)
            .check(valid: [#""a@example.com""#], invalid: [#""a@example.org""#, #""abc@example.com""#])
        try SchemaProbe(##"{"type":"string","format":"date","minLength":10}"##).check(valid: [#""2020-01-01""#], invalid: [#""2020-1-1""#])
    }
}
