/// Reading and writing the `webauthn` configuration section.
enum WebAuthnConfig {
    static let fields = ["rpId", "rpName", "origins", "userVerification", "residentKey", "attestation",
                         "attestationRoots", "timeout", "passkeySignIn"]

    static func apply(_ section: JSONValue, to settings: inout WebAuthnSettings) throws(MFAError) {
        try ConfigFields.expectObject(section, "webauthn", keys: fields)
        if let value = section["rpId"] {
            switch value {
            case .null: settings.rpID = nil
            case .string(let id) where isDomain(id): settings.rpID = id
            default:
                throw MFAError(.invalidArgument, "webauthn.rpId must be a lower-case domain name, such as example.com")
            }
        }
        if let value = section["rpName"] {
            guard case .string(let name) = value, name.utf8.count <= 256 else {
                throw MFAError(.invalidArgument, "webauthn.rpName must be a string of at most 256 bytes")
            }
            settings.rpName = name
        }
        if let value = section["origins"] {
            settings.origins = try strings(value, "webauthn.origins", max: WebAuthnSettings.maxOrigins)
            guard settings.origins.allSatisfy(isOrigin) else {
                throw MFAError(.invalidArgument, "webauthn.origins: each must be https://host[:port] "
                    + "(http:// for localhost only) or android:apk-key-hash:...")
            }
        }
        if let value = section["userVerification"] {
            settings.userVerification = try ConfigFields.enumValue(value, "webauthn.userVerification",
                                                                   WebAuthnUserVerification.self)
        }
        if let value = section["residentKey"] {
            settings.residentKey = try ConfigFields.enumValue(value, "webauthn.residentKey", WebAuthnResidentKey.self)
        }
        if let value = section["attestation"] {
            settings.attestation = try ConfigFields.enumValue(value, "webauthn.attestation",
                                                              WebAuthnAttestationConveyance.self)
        }
        if let value = section["attestationRoots"] {
            let roots = try strings(value, "webauthn.attestationRoots", max: WebAuthnSettings.maxAttestationRoots)
            guard roots.allSatisfy({
                $0.utf8.count <= WebAuthnSettings.maxRootBytes && $0.hasPrefix("-----BEGIN CERTIFICATE-----")
                    && $0.dropFirst(27).contains("-----END CERTIFICATE-----")
            }) else {
                throw MFAError(.invalidArgument,
                               "webauthn.attestationRoots: each must be a PEM certificate of at most 16384 bytes")
            }
            settings.attestationRoots = roots
        }
        if let value = section["timeout"] {
            settings.timeoutMilliseconds = try ConfigFields.integer(value, "webauthn.timeout", WebAuthnSettings.timeouts)
        }
        if let value = section["passkeySignIn"] {
            guard case .bool(let allowed) = value else {
                throw MFAError(.invalidArgument, "webauthn.passkeySignIn must be true or false")
            }
            settings.passkeySignIn = allowed
        }
    }

    static func json(_ settings: WebAuthnSettings) -> JSONValue {
        .object([
            ("rpId", settings.rpID.map(JSONValue.string) ?? .null),
            ("rpName", .string(settings.rpName)),
            ("origins", .array(settings.origins.map(JSONValue.string))),
            ("userVerification", .string(settings.userVerification.rawValue)),
            ("residentKey", .string(settings.residentKey.rawValue)),
            ("attestation", .string(settings.attestation.rawValue)),
            ("attestationRoots", .array(settings.attestationRoots.map(JSONValue.string))),
            ("timeout", .int(settings.timeoutMilliseconds)),
            ("passkeySignIn", .bool(settings.passkeySignIn)),
        ])
    }

    private static func strings(_ value: JSONValue, _ name: String, max: Int) throws(MFAError) -> [String] {
        guard case .array(let items) = value, items.count <= max else {
            throw MFAError(.invalidArgument, "\(name) must be an array of at most \(max) strings")
        }
        var out: [String] = []
        for item in items {
            guard case .string(let text) = item else {
                throw MFAError(.invalidArgument, "\(name) must be an array of at most \(max) strings")
            }
            if !out.contains(text) { out.append(text) }
        }
        return out
    }

    /// A lower-case DNS name of labels [a-z0-9-] (not starting or ending
    /// with '-'), at most 253 bytes, or "localhost".
    static func isDomain(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"),
                  label.last != UInt8(ascii: "-") else { return false }
            return label.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-")
            }
        }
    }

    /// Checks the relying party as a whole, once every layer of the
    /// configuration is applied: an rp id that is a domain a relying party
    /// can own (not a public suffix, `PublicSuffixes`, nor an IP address),
    /// and origins a browser can write and that belong to it: no default
    /// port (`https://example.com:443` is written `https://example.com`),
    /// and a host that is the rp id or a subdomain of it. Android origins
    /// (`android:apk-key-hash:`) name no host and are not checked here.
    /// - Throws: `invalidArgument` naming the field (an origin by its index,
    ///   never its text).
    static func checkRelyingParty(_ settings: WebAuthnSettings) throws(MFAError) {
        if let rpID = settings.rpID {
            if let last = rpID.split(separator: ".").last, last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                throw MFAError(.invalidArgument, "webauthn.rpId must be a domain name, not an IP address")
            }
            guard !PublicSuffixes.contains(rpID) else {
                throw MFAError(.invalidArgument, "webauthn.rpId is a public suffix (such as com, co.uk or github.io), "
                    + "under which anyone can register a domain; use the relying party's own domain")
            }
        }
        for (index, origin) in settings.origins.enumerated() {
            let field = "webauthn.origins[\(index)]"
            let secure = origin.hasPrefix("https://")
            guard secure || origin.hasPrefix("http://") else { continue }
            let authority = origin.dropFirst(secure ? 8 : 7)
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let host = String(parts[0])
            if parts.count == 2, parts[1] == (secure ? "443" : "80") {
                throw MFAError(.invalidArgument, "\(field) names the default port of its scheme, which a browser "
                    + "never writes in an origin: leave the port out")
            }
            if let rpID = settings.rpID, host != rpID, !host.hasSuffix("." + rpID) {
                throw MFAError(.invalidArgument, "\(field) is outside webauthn.rpId: its host must be the rp id "
                    + "or a subdomain of it")
            }
        }
    }

    /// `https://host[:port]`, `http://localhost[:port]`, or an Android app's `android:apk-key-hash:...`.
    static func isOrigin(_ text: String) -> Bool {
        guard text.utf8.count <= 300 else { return false }
        if text.hasPrefix("android:apk-key-hash:") {
            return text.utf8.count > 21 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
        }
        let rest: Substring
        if text.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://localhost") {
            rest = text.dropFirst(7)
        } else {
            return false
        }
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard isDomain(String(parts[0])) else { return false }
        if text.hasPrefix("http://") && parts[0] != "localhost" { return false }
        guard parts.count == 2 else { return true }
        guard let port = Int(parts[1]), port >= 1, port <= 65535, parts[1].first != "0" else { return false }
        return true
    }
}
