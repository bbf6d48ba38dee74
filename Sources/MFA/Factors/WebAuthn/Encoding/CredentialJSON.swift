/// The browser's `PublicKeyCredential` in its JSON form
/// (`credential.toJSON()`, WebAuthn Level 3 §5.1.8): the fields a relying
/// party verifies, decoded from unpadded base64url.
package struct CredentialJSON: Sendable {
    /// The longest JSON text accepted.
    package static let maxBytes = 65536

    /// The credential id (`rawId`, equal to `id`).
    package var credentialID: [UInt8]
    /// The client data, as signed.
    package var clientDataJSON: [UInt8]
    /// The attestation object (registration).
    package var attestationObject: [UInt8]?
    /// The transports the browser reports (registration).
    package var transports: [String]
    /// The authenticator data (authentication).
    package var authenticatorData: [UInt8]?
    /// The signature (authentication).
    package var signature: [UInt8]?
    /// The user handle the authenticator returned (authentication), if any.
    package var userHandle: [UInt8]?
    /// "platform" or "cross-platform", when the browser says.
    package var attachment: String?
    /// At registration, whether the credential is discoverable, when the
    /// browser says (`clientExtensionResults.credProps.rk`).
    package var residentKey: Bool?

    /// What the JSON is expected to be.
    package enum Ceremony: Sendable {
        case registration
        case authentication
    }

    /// Reads the JSON of a credential for `ceremony`.
    /// - Throws: `invalidArgument` naming the field that is missing or malformed.
    package init(_ text: String, for ceremony: Ceremony) throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "credential: \(why)") }
        guard text.utf8.count <= Self.maxBytes else { throw fail("longer than \(Self.maxBytes) bytes") }
        let json = try JSONParser.parse(text)
        guard case .object = json else { throw fail("not a JSON object") }
        guard case .string("public-key")? = json["type"] else { throw fail("type must be \"public-key\"") }
        let rawID = try Self.base64(json["rawId"], "rawId")
        if json["id"] != nil {
            guard try Self.base64(json["id"], "id") == rawID else { throw fail("id and rawId differ") }
        }
        guard !rawID.isEmpty, rawID.count <= AuthenticatorData.maxCredentialIDBytes else {
            throw fail("rawId must be 1 to 1023 bytes")
        }
        guard let response = json["response"], case .object = response else { throw fail("no response object") }
        credentialID = rawID
        clientDataJSON = try Self.base64(response["clientDataJSON"], "response.clientDataJSON")
        switch json["authenticatorAttachment"] {
        case .string(let value)?: attachment = value
        case nil, .null?: attachment = nil
        default: throw fail("authenticatorAttachment must be a string")
        }
        transports = []
        switch ceremony {
        case .registration:
            switch json["clientExtensionResults"]?["credProps"]?["rk"] {
            case .bool(let value)?: residentKey = value
            case nil, .null?: residentKey = nil
            default: throw fail("clientExtensionResults.credProps.rk must be a boolean")
            }
            attestationObject = try Self.base64(response["attestationObject"], "response.attestationObject")
            if let list = response["transports"] {
                guard case .array(let items) = list, items.count <= 16 else {
                    throw fail("response.transports must be an array of strings")
                }
                for item in items {
                    guard case .string(let name) = item, !name.isEmpty, name.utf8.count <= 32,
                          name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ",") }) else {
                        throw fail("response.transports must be short ASCII names")
                    }
                    if !transports.contains(name) { transports.append(name) }
                }
            }
        case .authentication:
            authenticatorData = try Self.base64(response["authenticatorData"], "response.authenticatorData")
            signature = try Self.base64(response["signature"], "response.signature")
            switch response["userHandle"] {
            case nil, .null?: userHandle = nil
            case let value?:
                let handle = try Self.base64(value, "response.userHandle")
                userHandle = handle.isEmpty ? nil : handle
            }
        }
    }

    /// The bytes of a base64url string field (padding tolerated).
    private static func base64(_ value: JSONValue?, _ name: String) throws(MFAError) -> [UInt8] {
        guard case .string(var text)? = value else {
            throw MFAError(.invalidArgument, "credential: \(name) must be a base64url string")
        }
        while text.hasSuffix("=") { text.removeLast() }
        guard let bytes = Base64URL.decode(text) else {
            throw MFAError(.invalidArgument, "credential: \(name) is not base64url")
        }
        return bytes
    }
}
