import Foundation
import PocketMacroKit
import Testing

/// Replays the messages the Swift compiler sent while type-checking Fixtures/sample.swift.txt
/// (recorded by Fixtures/record.sh), in process and through the real plugin executable.
@Suite struct PluginMessageHandlerTests {
    let fixtures: URL
    let sample: String
    let requests: [[UInt8]]

    init() throws {
        fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        sample = try String(contentsOf: fixtures.appendingPathComponent("sample.swift.txt"), encoding: .utf8)
        let recorded = try Data(contentsOf: fixtures.appendingPathComponent("recorded-requests.bin"))
        requests = try MessageFraming.split(Array(recorded))
    }

    func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// The expansion request for `role` of the declaration whose text contains `marker`, and its reply.
    func exchange(role: String, marker: String) throws -> (request: [String: Any], result: [String: Any]) {
        let handler = PluginMessageHandler()
        for request in requests where !request.isEmpty {
            let message = try json(request)
            guard let body = message["expandAttachedMacro"] as? [String: Any], body["macroRole"] as? String == role,
                  let source = (body["declSyntax"] as? [String: Any])?["source"] as? String, source.contains(marker)
            else { continue }
            let reply = try json(try #require(handler.reply(to: request)))
            return (body, try #require(reply["expandMacroResult"] as? [String: Any]))
        }
        Issue.record("no \(role) request for \(marker) in the recording")
        return ([:], [:])
    }

    @Test func capabilityHandshake() throws {
        let first = try json(requests[0])
        #expect(first["getCapability"] != nil)
        let reply = try json(try #require(PluginMessageHandler().reply(to: requests[0])))
        let capability = (reply["getCapabilityResult"] as? [String: Any])?["capability"] as? [String: Any]
        #expect(capability?["protocolVersion"] as? Int == PluginMessageHandler.protocolVersion)
    }

    @Test func expansionsOfTheRecordedDeclarations() throws {
        let member = try exchange(role: "member", marker: "struct Cat").result
        let source = try #require(member["expandedSource"] as? String)
        #expect(source.contains(#"GenerationSchema.Property(name: "age", description: "Age", type: Int.self, guides: [.range(0...20)])"#))
        #expect(source.contains(#"GenerationSchema.Property(name: "name", type: String.self, guides: [.pattern(source: "[A-Z][a-z]+")])"#))
        #expect((member["diagnostics"] as? [Any])?.isEmpty == true)

        let (request, ext) = try exchange(role: "extension", marker: "struct Cat")
        #expect((request["conformanceListSyntax"] as? [String: Any])?["source"] as? String != nil)
        #expect((ext["expandedSource"] as? String)?.hasPrefix("extension Cat: Generable {") == true)

        let enumMember = try exchange(role: "member", marker: "enum Encounter").result
        #expect((enumMember["expandedSource"] as? String)?.contains(#"GenerationSchema.EnumCase(name: "leave")"#) == true)

        let peer = try exchange(role: "peer", marker: "@Guide").result
        #expect(peer["expandedSource"] as? String == "")
    }

    /// Diagnostics carry the file name and the byte offset of the offending text in the file.
    @Test func diagnosticsPointIntoTheFile() throws {
        for (marker, needle) in [
            ("struct BadDictionary", "[String: Int]"), ("struct BadInferred", "count = 3"), ("class BadClass", "BadClass {"),
        ] {
            let result = try exchange(role: "member", marker: marker).result
            #expect(result["expandedSource"] is NSNull)
            let diagnostics = try #require(result["diagnostics"] as? [[String: Any]])
            #expect(diagnostics.count == 1)
            let position = diagnostics.first?["position"] as? [String: Any]
            #expect(position?["fileName"] as? String == "sample.swift")
            #expect(position?["offset"] as? Int == offset(of: needle, in: sample), "\(marker)")
            #expect(diagnostics.first?["severity"] as? String == "error")
            // The extension role stays silent: the error is reported once.
            let ext = try exchange(role: "extension", marker: marker).result
            #expect((ext["diagnostics"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func unknownRequestsGetAnErrorReply() throws {
        let request = Array(#"{"expandFreestandingMacro":{"syntax":{"location":{"fileName":"f.swift","offset":12}}}}"#.utf8)
        let reply = try json(try #require(PluginMessageHandler().reply(to: request)))
        let diagnostics = (reply["expandMacroResult"] as? [String: Any])?["diagnostics"] as? [[String: Any]]
        #expect((diagnostics?.first?["position"] as? [String: Any])?["offset"] as? Int == 12)
        #expect(PluginMessageHandler().reply(to: Array("not json".utf8)) != nil)
    }

    /// The executable the compiler runs answers the recorded session exactly as the handler does.
    @Test func pluginExecutableAnswersTheRecordedSession() throws {
        let directory = Bundle.module.bundleURL.deletingLastPathComponent()
        let executable = directory.appendingPathComponent("PocketMacros-tool")
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build the package first: \(executable.path)")
        let process = Process()
        process.executableURL = executable
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let recorded = try Data(contentsOf: fixtures.appendingPathComponent("recorded-requests.bin"))
        input.fileHandleForWriting.write(recorded)
        try input.fileHandleForWriting.close()
        let replies = try MessageFraming.split(Array(output.fileHandleForReading.readDataToEndOfFile()))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let handler = PluginMessageHandler()
        let expected = requests.filter { !$0.isEmpty }.compactMap { handler.reply(to: $0) }
        #expect(replies.count == expected.count)
        #expect(replies == expected)
    }
}
