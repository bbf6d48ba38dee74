import MFA
import Testing

@Suite("Project and tenant configuration (SPEC flow 1)")
struct ConfigTests {
    @Test("defaults, round trip, and a tenant overriding the project field by field", arguments: StoreKind.available)
    func layering(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind, config: "{}")
        #expect(try fixture.context.config() == MFAConfig())
        try fixture.context.setConfig(json: """
            {"state":"ENABLED","providers":{"totp":"ENABLED","phone":"ENABLED"},"totp":{"adjacentIntervals":3},
             "testPhoneNumbers":{"+15555550100":"123456"},"limits":{"freeAttempts":7}}
            """)
        try fixture.context.setConfig(json: #"{"state":"MANDATORY","providers":{"phone":"DISABLED"}}"#, tenant: "t1")
        let project = try fixture.context.config()
        let tenant = try fixture.context.config(tenant: "t1")
        #expect(project.state == .enabled && project.phone == .enabled && project.adjacentIntervals == 3)
        #expect(tenant.state == .mandatory && tenant.phone == .disabled && tenant.totp == .enabled)
        #expect(tenant.adjacentIntervals == 3 && tenant.limits.freeAttempts == 7)
        #expect(tenant.testCode(for: "+15555550100") == "123456")
        let json = try fixture.context.configJSON(tenant: "t1")
        let copy = try EngineFixture(kind, config: json)
        #expect(try copy.context.config() == tenant)
        #expect(fixture.log.kinds().filter { $0 == .configChange }.count == 3)
    }

    @Test("bad documents are INVALID_ARGUMENT naming the field", arguments: StoreKind.available)
    func rejects(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let elevenNumbers = (0..<11).map { "\"+1555555010\($0)\":\"123456\"" }.joined(separator: ",")
        let cases: [(String, String)] = [
            (#"{"totp":{"adjacentIntervals":11}}"#, "totp.adjacentIntervals"),
            (#"{"totp":{"adjacentIntervals":-1}}"#, "totp.adjacentIntervals"),
            (#"{"totp":{"adjacentIntervals":"11"}}"#, "totp.adjacentIntervals"),
            (#"{"totp":{"adjacentIntervals":"five"}}"#, "totp.adjacentIntervals"),
            ("{\"testPhoneNumbers\":{\(elevenNumbers)}}", "at most 10"),
            (#"{"testPhoneNumbers":{"+15555550100":"12345"}}"#, "six digits"),
            (#"{"testPhoneNumbers":{"+15555550100":"1234567"}}"#, "six digits"),
            (#"{"testPhoneNumbers":{"+15555550100":"12a456"}}"#, "six digits"),
            (#"{"testPhoneNumbers":{"+15555550100":123456}}"#, "six digits"),
            (#"{"testPhoneNumbers":{"555-0100":"123456"}}"#, "E.164"),
            (#"{"state":"ON"}"#, "state"),
            (#"{"providers":{"sms":"ENABLED"}}"#, "unknown field"),
            (#"{"limits":{"maxFactors":0}}"#, "limits.maxFactors"),
            (#"{"colour":"blue"}"#, "unknown field"),
            (#"{"state":"ENABLED""#, "invalid JSON"),
            ("[]", "JSON object"),
        ]
        for (json, fragment) in cases {
            do {
                try fixture.context.setConfig(json: json)
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(fragment), "\(error.message) for \(json)")
            }
        }
        #expect(try fixture.context.config().totp == .enabled)
    }
}

@Suite("JSON")
struct JSONTests {
    @Test("parses and writes back what it read")
    func roundTrip() throws {
        let text = #"{"a":[1,-2,3.5,true,false,null],"b":{"c":"x\"y\\z\n\u00e9\ud83d\ude00"}}"#
        let value = try JSONParser.parse(text)
        #expect(try JSONParser.parse(value.jsonText) == value)
        #expect(value["b"]?["c"] == .string("x\"y\\z\né😀"))
    }

    @Test("rejects malformed text")
    func rejects() {
        for text in ["", "{", "{\"a\"}", "[1,]", "01", "\"\\x\"", "{\"a\":1,\"a\":2}", "1 2", "\"\\ud800\"",
                     String(repeating: "[", count: 40) + String(repeating: "]", count: 40)] {
            #expect(throws: MFAError.self) { try JSONParser.parse(text) }
        }
    }
}
