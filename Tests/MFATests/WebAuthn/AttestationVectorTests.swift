import Foundation
import MFA
import Testing

/// The attestation statements others published, verified as published:
/// the WebAuthn Level 3 specification's test vectors (Tests/vectors/
/// webauthn_spec_vectors.json: none, packed with six algorithms, tpm,
/// android-key, apple, fido-u2f) through the stateless verifier, and
/// python-fido2's statements (Tests/vectors/webauthn_statement_vectors.json:
/// a Windows Hello TPM, an Apple device) through the statement check itself.
/// Each tampered copy is refused.
@Suite("WebAuthn attestation vectors")
struct AttestationVectorTests {
    struct SpecVector: Decodable, CustomTestStringConvertible {
        struct Registration: Decodable {
            let challenge: String
            let clientDataJSON: String
            let attestationObject: String
        }

        struct Authentication: Decodable {
            let challenge: String
            let clientDataJSON: String
            let authenticatorData: String
            let signature: String
        }

        let name: String
        let credential_id: String
        let registration: Registration
        let authentication: Authentication

        var testDescription: String { name }
    }

    struct SpecFile: Decodable {
        let rp_id: String
        let origin: String
        let attestation_ca_cert: String
        let vectors: [SpecVector]
    }

    static let spec: SpecFile = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../vectors/webauthn_spec_vectors.json")
        // swiftlint:disable:next force_try
        return try! JSONDecoder().decode(SpecFile.self, from: Data(contentsOf: url))
    }()

    /// What each specification vector's registration must give: format and kind, or the refusal.
    enum Expected {
        case registers(format: String, kind: String)
        case refused(MFAErrorCode)
    }

    static let expected: [String: Expected] = [
        "none-es256": .registers(format: "none", kind: "none"),
        "packed-self-es256": .registers(format: "packed", kind: "self"),
        "none-es256-crossOrigin": .refused(.originMismatch), // libmfa takes no cross-origin response
        "none-es256-topOrigin": .refused(.originMismatch),
        "none-es256-long-credential-id": .registers(format: "none", kind: "none"),
        "packed-es256": .registers(format: "packed", kind: "basic"),
        "packed-es384": .registers(format: "packed", kind: "basic"),
        "packed-es512": .registers(format: "packed", kind: "basic"),
        "packed-rs256": .registers(format: "packed", kind: "basic"),
        "packed-eddsa": .registers(format: "packed", kind: "basic"),
        "packed-ed448": .refused(.invalidArgument), // Ed448 is not among the algorithms verified
        "tpm-es256": .registers(format: "tpm", kind: "attca"),
        "android-key-es256": .registers(format: "android-key", kind: "basic"),
        "apple-es256": .registers(format: "apple", kind: "anonca"),
        "fido-u2f-es256": .registers(format: "fido-u2f", kind: "basic"),
    ]

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func registrationJSON(_ vector: SpecVector, clientData: [UInt8]? = nil, object: [UInt8]? = nil) -> String {
        let id = base64url(hex(vector.credential_id))
        return jsonText(["id": id, "rawId": id, "type": "public-key", "clientExtensionResults": [String: Any](),
                         "response": ["clientDataJSON": base64url(clientData ?? hex(vector.registration.clientDataJSON)),
                                      "attestationObject": base64url(object ?? hex(vector.registration.attestationObject))]])
    }

    static func expectation(_ challenge: String) -> WebAuthnVerifier.Expectation {
        WebAuthnVerifier.Expectation(challenge: base64url(hex(challenge)), rpID: spec.rp_id, origins: [spec.origin])
    }

    static var rootPEM: String {
        let body = Data(hex(spec.attestation_ca_cert)).base64EncodedString(options: [.lineLength64Characters])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    @Test("the specification's vectors register as published, their chains lead to its root, and they sign in",
          arguments: spec.vectors)
    func specVector(_ vector: SpecVector) throws {
        guard let expected = Self.expected[vector.name] else {
            Issue.record("a vector nobody expected: \(vector.name)")
            return
        }
        let registered: WebAuthnVerifier.Credential
        switch expected {
        case .refused(let code):
            #expect(errorCode { try WebAuthnVerifier.verifyRegistration(
                credentialJSON: Self.registrationJSON(vector),
                expecting: Self.expectation(vector.registration.challenge)) } == code)
            return
        case .registers(let format, let kind):
            registered = try WebAuthnVerifier.verifyRegistration(
                credentialJSON: Self.registrationJSON(vector), expecting: Self.expectation(vector.registration.challenge))
            #expect(registered.format == format && registered.attestationKind == kind)
            #expect(registered.credentialID == Self.hex(vector.credential_id))
        }
        if !registered.certificates.isEmpty {
            #expect(try AttestationChain.isTrusted(registered.certificates, roots: [Self.rootPEM], now: 1_800_000_000),
                    "the chain leads to the specification's attestation CA")
        }
        let id = base64url(Self.hex(vector.credential_id))
        let assertion = jsonText(["id": id, "rawId": id, "type": "public-key", "clientExtensionResults": [String: Any](),
                                  "response": ["clientDataJSON": base64url(Self.hex(vector.authentication.clientDataJSON)),
                                               "authenticatorData": base64url(Self.hex(vector.authentication.authenticatorData)),
                                               "signature": base64url(Self.hex(vector.authentication.signature)),
                                               "userHandle": NSNull()]])
        let verified = try WebAuthnVerifier.verifyAssertion(
            credentialJSON: assertion, expecting: Self.expectation(vector.authentication.challenge),
            publicKey: registered.publicKey)
        #expect(verified.credentialID == registered.credentialID)
        var signature = Self.hex(vector.authentication.signature)
        signature[signature.count / 2] ^= 1
        let forged = assertion.replacingOccurrences(of: base64url(Self.hex(vector.authentication.signature)),
                                                    with: base64url(signature))
        #expect(errorCode { try WebAuthnVerifier.verifyAssertion(
            credentialJSON: forged, expecting: Self.expectation(vector.authentication.challenge),
            publicKey: registered.publicKey) } == .invalidVerificationCode)
    }

    @Test("tpm, android-key and apple vectors with another client data are refused (the statement binds the registration)",
          arguments: ["tpm-es256", "android-key-es256", "apple-es256", "packed-es384", "packed-es512"])
    func specVectorOtherClientData(_ name: String) throws {
        let vector = try #require(Self.spec.vectors.first { $0.name == name })
        // The same JSON with a space more: its hash, which the statement covers, is another.
        var clientData = Self.hex(vector.registration.clientDataJSON)
        clientData.insert(UInt8(ascii: " "), at: 1)
        #expect(errorCode { try WebAuthnVerifier.verifyRegistration(
            credentialJSON: Self.registrationJSON(vector, clientData: clientData),
            expecting: Self.expectation(vector.registration.challenge)) } == .invalidVerificationCode)
    }

    @Test("each byte of the tpm, android-key and apple statements is checked: a flipped one is refused",
          arguments: ["tpm-es256", "android-key-es256", "apple-es256"])
    func specVectorFlippedBytes(_ name: String) throws {
        let vector = try #require(Self.spec.vectors.first { $0.name == name })
        let object = Self.hex(vector.registration.attestationObject)
        // Every 7th byte of the statement (the attestation object up to "authData"), flipped in turn.
        let authDataKey = Array("hauthData".utf8)
        let end = try #require((0..<object.count - authDataKey.count).first {
            Array(object[$0..<$0 + authDataKey.count]) == authDataKey
        })
        var accepted: [Int] = []
        for index in stride(from: 20, to: end, by: 7) {
            var tampered = object
            tampered[index] ^= 0x01
            let json = Self.registrationJSON(vector, object: tampered)
            if (try? WebAuthnVerifier.verifyRegistration(
                credentialJSON: json, expecting: Self.expectation(vector.registration.challenge))) != nil {
                accepted.append(index)
            }
        }
        // A flipped bit may land where nothing is signed (a certificate's own
        // signature, judged by the chain): such copies must then fail the chain.
        for index in accepted {
            var tampered = object
            tampered[index] ^= 0x01
            let credential = try WebAuthnVerifier.verifyRegistration(
                credentialJSON: Self.registrationJSON(vector, object: tampered),
                expecting: Self.expectation(vector.registration.challenge))
            #expect(try !AttestationChain.isTrusted(credential.certificates, roots: [Self.rootPEM], now: 1_800_000_000),
                    "byte \(index) flipped and still trusted")
        }
    }

    // MARK: python-fido2's statements

    struct StatementVector: Decodable, CustomTestStringConvertible {
        struct Field: Decodable {
            let bytes: String?
            let array: [String]?
            let int: Int64?
            let text: String?
        }

        let name: String
        let format: String
        let statement: [String: Field]
        let authenticator_data: String
        let client_data_hash: String

        var testDescription: String { name }

        /// The statement as CBOR, with `change` applied to one field's bytes.
        func cbor(changing field: String? = nil, _ change: (inout [UInt8]) -> Void = { _ in }) -> CBORValue {
            .map(statement.keys.sorted().map { key in
                let value = statement[key]!
                let item: CBORValue
                if let bytes = value.bytes {
                    var raw = AttestationVectorTests.hex(bytes)
                    if key == field { change(&raw) }
                    item = .bytes(raw)
                } else if let array = value.array {
                    item = .array(array.enumerated().map { index, text in
                        var raw = AttestationVectorTests.hex(text)
                        if key == field, index == 0 { change(&raw) }
                        return .bytes(raw)
                    })
                } else if let number = value.int {
                    item = number >= 0 ? .unsigned(UInt64(number)) : .negative(UInt64(-1 - number))
                } else {
                    item = .text(value.text ?? "")
                }
                return CBORPair(.text(key), item)
            })
        }

        func verify(_ statement: CBORValue, clientDataHash: [UInt8]? = nil) throws -> AttestationResult {
            try AttestationStatement.verify(
                format: format, statement: statement,
                authData: AuthenticatorData(AttestationVectorTests.hex(authenticator_data)),
                clientDataHash: clientDataHash ?? AttestationVectorTests.hex(client_data_hash))
        }
    }

    struct StatementFile: Decodable {
        let vectors: [StatementVector]
    }

    static let statements: [StatementVector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../vectors/webauthn_statement_vectors.json")
        // swiftlint:disable:next force_try
        return try! JSONDecoder().decode(StatementFile.self, from: Data(contentsOf: url)).vectors
    }()

    @Test("python-fido2's statements verify as published; another client data hash, or a flipped byte of a signed field, is refused",
          arguments: statements)
    func statementVector(_ vector: StatementVector) throws {
        let result = try vector.verify(vector.cbor())
        let kinds = ["tpm": "attca", "apple": "anonca", "packed": "basic", "fido-u2f": "basic"]
        #expect(result.format == vector.format && result.kind.rawValue == kinds[vector.format])
        #expect(!result.chain.isEmpty)
        var otherHash = Self.hex(vector.client_data_hash)
        otherHash[0] ^= 1
        #expect(errorCode { try vector.verify(vector.cbor(), clientDataHash: otherHash) } == .invalidVerificationCode)
        // (A certificate's bytes are the chain's to judge: the specification's vectors show that.)
        for field in ["sig", "certInfo", "pubArea"] where vector.statement[field] != nil {
            let refused = errorCode { try vector.verify(vector.cbor(changing: field) { $0[$0.count - 40] ^= 0x10 }) }
            #expect(refused == .invalidVerificationCode || refused == .invalidArgument, "\(field): \(String(describing: refused))")
        }
    }
}
