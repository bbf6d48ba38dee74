import CSodium
import Foundation
import MFA

/// A small CBOR encoder for the test authenticator (definite lengths, shortest heads).
enum TestCBOR {
    indirect enum Item {
        case int(Int64)
        case bytes([UInt8])
        case text(String)
        case array([Item])
        case map([(Item, Item)])
        case bool(Bool)
        /// Bytes written as they are (a pre-encoded item, or deliberately broken CBOR).
        case raw([UInt8])
    }

    static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        switch value {
        case 0..<24: [major << 5 | UInt8(value)]
        case 24..<256: [major << 5 | 24, UInt8(value)]
        case 256..<65536: [major << 5 | 25, UInt8(value >> 8), UInt8(value & 0xff)]
        case 65536..<(1 << 32): [major << 5 | 26] + (0..<4).reversed().map { UInt8((value >> (8 * $0)) & 0xff) }
        default: [major << 5 | 27] + (0..<8).reversed().map { UInt8((value >> (8 * UInt64($0))) & 0xff) }
        }
    }

    static func encode(_ item: Item) -> [UInt8] {
        switch item {
        case .int(let n): n >= 0 ? head(0, UInt64(n)) : head(1, UInt64(-1 - n))
        case .bytes(let b): head(2, UInt64(b.count)) + b
        case .text(let t): head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let items): head(4, UInt64(items.count)) + items.flatMap(encode)
        case .map(let pairs): head(5, UInt64(pairs.count)) + pairs.flatMap { encode($0.0) + encode($0.1) }
        case .bool(let b): [b ? 0xf5 : 0xf4]
        case .raw(let bytes): bytes
        }
    }
}

func sha256(_ bytes: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    _ = crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
    return out
}

func base64url(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

func unbase64url(_ text: String) -> [UInt8] {
    var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while s.count % 4 != 0 { s += "=" }
    return Array(Data(base64Encoded: s) ?? Data())
}

func jsonObject(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

func jsonText(_ object: Any) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

/// A software WebAuthn authenticator with an Ed25519 key (libsodium), for
/// the Swift tests: it answers the options libmfa makes as a browser and an
/// authenticator together would, and can be told to misbehave.
final class TestAuthenticator: @unchecked Sendable {
    var publicKey = [UInt8](repeating: 0, count: 32)
    var secretKey = [UInt8](repeating: 0, count: 64)
    let credentialID: [UInt8]
    var signCount: UInt32 = 0
    /// Added to every signature count (0: counts from 1 up).
    var counterStep: UInt32 = 1
    var userVerified = true
    var backupEligible = false
    var format = "none"
    var origin = "https://example.com"
    /// The rp id the authenticator scopes its responses to (nil: the options').
    var rpIDOverride: String?
    var aaguid = [UInt8](repeating: 0x42, count: 16)
    var userHandle: [UInt8]?
    /// Whether it can store a discoverable credential (a passkey).
    var residentKeys = true
    /// Whether the browser reports credProps when asked (rk: whether the credential is discoverable).
    var reportsCredProps = true
    /// The user handle its assertions name instead of the registered one.
    var userHandleOverride: [UInt8]?
    /// The statement of an attestation format the test chooses (format and raw CBOR).
    var statementOverride: [UInt8]?
    /// The COSE key registered instead of the Ed25519 one (a weak or malformed key).
    var coseKeyOverride: [UInt8]?
    /// What stands in for the signature of a message (nil: the Ed25519 key signs).
    var signatureOverride: (([UInt8]) -> [UInt8])?

    init() {
        _ = sodium_init()
        crypto_sign_keypair(&publicKey, &secretKey)
        credentialID = (0..<16).map { _ in UInt8.random(in: 0...255) }
    }

    var coseKey: [UInt8] {
        if let coseKeyOverride { return coseKeyOverride }
        return TestCBOR.encode(.map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(publicKey))]))
    }

    func sign(_ message: [UInt8]) -> [UInt8] {
        if let signatureOverride { return signatureOverride(message) }
        var signature = [UInt8](repeating: 0, count: 64)
        crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }

    func clientData(_ type: String, _ challenge: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    func authData(rpID: String, attested: Bool) -> [UInt8] {
        var flags: UInt8 = 0x01
        if userVerified { flags |= 0x04 }
        if backupEligible { flags |= 0x08 }
        if attested { flags |= 0x40 }
        var data = sha256(Array((rpIDOverride ?? rpID).utf8)) + [flags]
        data += withUnsafeBytes(of: signCount.bigEndian) { Array($0) }
        if attested {
            data += aaguid + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)] + credentialID + coseKey
        }
        return data
    }

    /// The credential JSON answering registration `options` (JSON).
    func register(_ options: String) -> String {
        let object = jsonObject(options)
        let rp = object["rp"] as? [String: Any] ?? [:]
        let user = object["user"] as? [String: Any] ?? [:]
        userHandle = unbase64url(user["id"] as? String ?? "")
        let client = clientData("webauthn.create", object["challenge"] as? String ?? "")
        let data = authData(rpID: rp["id"] as? String ?? "", attested: true)
        var statement: TestCBOR.Item = format == "packed"
            ? .map([(.text("alg"), .int(-8)), (.text("sig"), .bytes(sign(data + sha256(client))))]) : .map([])
        if let statementOverride { statement = .raw(statementOverride) }
        let object2 = TestCBOR.encode(.map([(.text("fmt"), .text(format)), (.text("attStmt"), statement),
                                           (.text("authData"), .bytes(data))]))
        // As a browser does: a resident key when asked for (required, or preferred) and able to.
        let selection = object["authenticatorSelection"] as? [String: Any] ?? [:]
        let asked = ["required", "preferred"].contains(selection["residentKey"] as? String ?? "")
        let credProps = (object["extensions"] as? [String: Any])?["credProps"] as? Bool == true && reportsCredProps
        return registrationJSON(clientDataJSON: client, attestationObject: object2,
                                residentKey: credProps ? asked && residentKeys : nil)
    }

    func registrationJSON(clientDataJSON: [UInt8], attestationObject: [UInt8], residentKey: Bool? = nil) -> String {
        var extensions: [String: Any] = [:]
        if let residentKey { extensions["credProps"] = ["rk": residentKey] }
        return jsonText(["id": base64url(credentialID), "rawId": base64url(credentialID), "type": "public-key",
                         "authenticatorAttachment": "cross-platform", "clientExtensionResults": extensions,
                         "response": ["clientDataJSON": base64url(clientDataJSON),
                                      "attestationObject": base64url(attestationObject), "transports": ["usb"]]])
    }

    /// The credential JSON answering authentication `options` (JSON).
    func assert(_ options: String) -> String {
        let object = jsonObject(options)
        signCount &+= counterStep
        let client = clientData("webauthn.get", object["challenge"] as? String ?? "")
        let data = authData(rpID: object["rpId"] as? String ?? "", attested: false)
        return assertionJSON(clientDataJSON: client, authenticatorData: data, signature: sign(data + sha256(client)))
    }

    func assertionJSON(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8]) -> String {
        var response: [String: Any] = ["clientDataJSON": base64url(clientDataJSON),
                                       "authenticatorData": base64url(authenticatorData),
                                       "signature": base64url(signature)]
        response["userHandle"] = (userHandleOverride ?? userHandle).map(base64url) ?? NSNull()
        return jsonText(["id": base64url(credentialID), "rawId": base64url(credentialID), "type": "public-key",
                         "clientExtensionResults": [String: Any](), "response": response])
    }

    /// A response's fields, to change one and put it back together.
    static func fields(_ json: String) -> [String: Any] { jsonObject(json) }
}
