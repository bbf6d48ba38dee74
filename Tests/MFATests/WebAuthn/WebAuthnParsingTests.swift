import Foundation
import MFA
import Testing

@Suite("WebAuthn parsing and configuration")
struct WebAuthnParsingTests {
    /// Registers with an attestation object of the test's making.
    func register(_ fixture: WebAuthnFixture, object: [UInt8]) throws {
        let key = TestAuthenticator()
        let options = jsonObject(try fixture.registrationOptions(fixture.user()))
        let json = key.registrationJSON(clientDataJSON: key.clientData("webauthn.create", options["challenge"] as! String),
                                        attestationObject: object)
        _ = try fixture.context.multiFactor(for: fixture.user()).enroll(
            with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json), displayName: nil)
    }

    @Test("hostile CBOR is INVALID_ARGUMENT: huge declared sizes, deep nesting, indefinite lengths, tags, floats, duplicate keys, trailing bytes")
    func hostileCBOR() throws {
        let fixture = try WebAuthnFixture()
        let cases: [[UInt8]] = [
            [0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // an array of 2^64-1 items
            [0xbb, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00], // a map of 2^32 pairs
            // Regression (found by fuzz_webauthn_assert): a map of 2^63 or more pairs, whose size arrives
            // negative from libcbor, trapped on doubling it.
            [0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0x00], [0x9b, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x00],
            [0x5a, 0xff, 0xff, 0xff, 0xff, 0x00], // a 4 GiB byte string
            Array(repeating: 0x81, count: 100) + [0x00], // nested 100 deep
            [0x9f, 0x00, 0xff], [0x5f, 0x41, 0x00, 0xff], [0x7f, 0x61, 0x61, 0xff], // indefinite
            [0xc1, 0x00], [0xf9, 0x3c, 0x00], [0xf7], // a tag, a half float, undefined
            [0xa2, 0x61, 0x61, 0x00, 0x61, 0x61, 0x01], // a repeated key
            [0xa0, 0x00], // bytes after the item
            [0x63, 0xff, 0xfe, 0xfd], // text that is not UTF-8
            [], [0x18], // nothing; cut short
        ]
        for bytes in cases {
            #expect(errorCode { try register(fixture, object: bytes) } == .invalidArgument, "\(bytes.prefix(12))")
        }
    }

    @Test("malformed responses are INVALID_ARGUMENT")
    func malformedResponses() throws {
        let fixture = try WebAuthnFixture()
        let key = TestAuthenticator()
        let good = TestAuthenticator.fields(key.register(try fixture.registrationOptions(fixture.user())))
        var variants: [String] = ["", "null", "[]", "{}", #"{"type":"public-key"}"#, String(repeating: "[", count: 100)]
        for (field, value) in [("type", "password"), ("rawId", "!!"), ("id", base64url([1, 2, 3]))] {
            var changed = good
            changed[field] = value
            variants.append(jsonText(changed))
        }
        for (field, value) in [("clientDataJSON", base64url(Array("{".utf8))), ("attestationObject", "***"),
                               ("clientDataJSON", base64url(Array(#"{"type":"webauthn.get","challenge":"x","origin":"https://example.com"}"#.utf8)))] {
            var changed = good
            var response = changed["response"] as! [String: Any]
            response[field] = value
            changed["response"] = response
            variants.append(jsonText(changed))
        }
        for json in variants {
            #expect(errorCode { try fixture.context.multiFactor(for: fixture.user()).enroll(
                with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json), displayName: nil) }
                == .invalidArgument, "\(json.prefix(60))")
        }
    }

    @Test("configuration: the section reads back, and bad values are INVALID_ARGUMENT naming the field")
    func configuration() throws {
        let fixture = try WebAuthnFixture()
        try fixture.context.updateConfig(json: """
            {"webauthn":{"rpId":"example.com","rpName":"ACME","origins":["https://example.com","https://a.example.com",
             "https://login.example.com:8443"],"userVerification":"discouraged","residentKey":"required",
             "attestation":"indirect","timeout":120000}}
            """)
        let settings = try fixture.context.config().webAuthnSettings
        #expect(settings.rpName == "ACME" && settings.origins.count == 3 && settings.residentKey == .required)
        #expect(settings.timeoutMilliseconds == 120000 && settings.attestation == .indirect)
        let written = MFAConfigDocument.json(try fixture.context.config()).jsonText
        try fixture.context.setConfig(json: written)
        #expect(try fixture.context.config().webAuthnSettings == settings)
        for bad in [#"{"rpId":"Example.com"}"#, #"{"rpId":"https://example.com"}"#, #"{"rpId":""}"#,
                    #"{"origins":["http://example.com"]}"#, #"{"origins":["https://example.com/path"]}"#,
                    #"{"origins":"https://example.com"}"#, #"{"userVerification":"always"}"#, #"{"timeout":5}"#,
                    #"{"attestationRoots":["not a certificate"]}"#, #"{"colour":"blue"}"#,
                    // fuzz_config (regress-crash-c38e50c7c18d): a PEM header alone passed as a certificate.
                    #"{"attestationRoots":["-----BEGIN CERTIFICATE-----"]}"#,
                    #"{"attestationRoots":["-----BEGIN CERTIFICATE-----\nMIIB\n"]}"#] {
            let error = errorMessage { try fixture.context.updateConfig(json: #"{"webauthn":\#(bad)}"#) }
            #expect(error?.code == .invalidArgument && error?.message.contains("webauthn") == true, "\(bad)")
        }
    }

    @Test("the stateless verifier checks a registration and an assertion with the host's challenge")
    func statelessVerifier() throws {
        let key = TestAuthenticator()
        let challenge = base64url(Array(repeating: 9, count: 32))
        let options = jsonText(["challenge": challenge, "rp": ["id": "example.com"], "user": ["id": base64url([1])]])
        let expectation = WebAuthnVerifier.Expectation(challenge: challenge, rpID: "example.com",
                                                       origins: ["https://example.com"])
        let credential = try WebAuthnVerifier.verifyRegistration(credentialJSON: key.register(options),
                                                                 expecting: expectation)
        #expect(credential.credentialID == key.credentialID && credential.algorithm == -8 && credential.format == "none")
        let assertion = try WebAuthnVerifier.verifyAssertion(
            credentialJSON: key.assert(jsonText(["challenge": challenge, "rpId": "example.com"])),
            expecting: expectation, publicKey: credential.publicKey)
        #expect(assertion.signCount == 1 && assertion.flags & 0x05 == 0x05)
        var other = expectation
        other.challenge = base64url(Array(repeating: 8, count: 32))
        #expect(errorCode { try WebAuthnVerifier.verifyAssertion(
            credentialJSON: key.assert(jsonText(["challenge": challenge, "rpId": "example.com"])),
            expecting: other, publicKey: credential.publicKey) } == .invalidSession)
    }
}

func errorMessage<T>(_ body: () throws -> T) -> MFAError? {
    do {
        _ = try body()
        return nil
    } catch let error as MFAError {
        return error
    } catch {
        return MFAError(.internal)
    }
}
