/// The client data of a WebAuthn response (WebAuthn §5.8.1): the JSON the
/// browser wrote and the authenticator signed (by its SHA-256).
package struct ClientData: Sendable, Equatable {
    /// The longest clientDataJSON accepted.
    package static let maxBytes = 8192

    /// The bytes as received.
    package var raw: [UInt8]
    /// "webauthn.create" or "webauthn.get".
    package var type: String
    /// The challenge, as the browser wrote it (base64url).
    package var challenge: String
    /// The origin of the page that made the call ("https://example.com").
    package var origin: String
    /// Whether the call came from a cross-origin frame.
    package var crossOrigin: Bool
    /// The top-level origin, for a cross-origin call.
    package var topOrigin: String?

    /// Reads clientDataJSON: a UTF-8 JSON object with string `type`,
    /// `challenge` and `origin`; `crossOrigin` a boolean if present.
    /// - Throws: `invalidArgument` naming what is malformed.
    package init(_ bytes: [UInt8]) throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "clientDataJSON: \(why)") }
        guard bytes.count <= Self.maxBytes else { throw fail("longer than \(Self.maxBytes) bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw fail("not UTF-8") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            throw fail("not JSON (\(error.message))")
        }
        guard case .object = json else { throw fail("not a JSON object") }
        guard case .string(let type)? = json["type"] else { throw fail("no type") }
        guard case .string(let challenge)? = json["challenge"] else { throw fail("no challenge") }
        guard case .string(let origin)? = json["origin"] else { throw fail("no origin") }
        var crossOrigin = false
        switch json["crossOrigin"] {
        case nil, .null?: break
        case .bool(let value)?: crossOrigin = value
        default: throw fail("crossOrigin is not a boolean")
        }
        // Token Binding (WebAuthn Level 2 §7.1 step 10): libmfa's connections
        // never use it, so "present" does not match them; a status outside
        // the enumeration is malformed. A non-object (some U2F-era clients
        // wrote a string) says nothing and is ignored.
        if case .object? = json["tokenBinding"] {
            switch json["tokenBinding"]?["status"] {
            case .string("supported")?: break
            case .string("present")?: throw fail("tokenBinding says Token Binding was used; libmfa does not use it")
            default: throw fail("tokenBinding.status must be \"supported\" or \"present\"")
            }
        }
        var topOrigin: String?
        if case .string(let top)? = json["topOrigin"] { topOrigin = top }
        raw = bytes
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
    }
}
