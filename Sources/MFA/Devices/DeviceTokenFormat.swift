/// Device tokens: `rd1.` then unpadded URL-safe base64 of the device's id
/// (16 random bytes) and its secret (32 random bytes). The id finds the
/// device's row; the secret is only ever stored as a keyed hash bound to
/// the device, its tenant and its user, so a row moved to another user (or a
/// token of another user) does not match.
enum DeviceTokenFormat {
    private static let prefix: StaticString = "rd1."
    /// The bytes of a device id.
    static let idBytes = 16
    /// The bytes of a token's secret.
    static let secretBytes = 32

    /// The token of a device.
    static func encode(id: [UInt8], secret: [UInt8]) -> String {
        Base64URL.encode(id + secret, prefix: prefix)
    }

    /// The device id and the secret of a token, or nil for anything that is not one.
    static func decode(_ text: String) -> (deviceID: String, secret: [UInt8])? {
        guard text.utf8.count <= 128, var bytes = Base64URL.decode(text, prefix: prefix),
              bytes.count == idBytes + secretBytes else { return nil }
        defer { wipe(&bytes) }
        return (Base64URL.encode(Array(bytes.prefix(idBytes))), Array(bytes.suffix(secretBytes)))
    }

    /// The stored form of a token's secret.
    static func hash(_ secret: [UInt8], deviceID: String, tenant: String, uid: String, key: SecureBytes) -> [UInt8] {
        KeyedHash.hash(Array("libmfa device token v1".utf8) + [0] + Array(deviceID.utf8) + [0] + Array(tenant.utf8)
                           + [0] + Array(uid.utf8) + [0] + secret, key: key)
    }

    /// The marker a pending credential leaves when it remembers a device
    /// (recorded as used, so that one sign-in remembers one device).
    static func marker(of tokenID: [UInt8], key: SecureBytes) -> [UInt8] {
        Array(KeyedHash.hash(Array("libmfa device marker v1".utf8) + [0] + tokenID, key: key).prefix(16))
    }
}
