/// The position a page of `MFAContext.listUsers` ended at, as an opaque
/// string: the last user's tenant and uid, URL-safe base64. It carries no
/// secret and grants nothing; a tampered cursor only moves the position.
enum AdminCursor {
    /// The cursor after `tenant`, `uid`.
    static func encode(tenant: String, uid: String) -> String {
        Base64URL.encode([UInt8(1), UInt8(truncatingIfNeeded: tenant.utf8.count)] + Array(tenant.utf8) + Array(uid.utf8))
    }

    /// The tenant and uid of a cursor.
    /// - Throws: `invalidArgument` for anything `encode` did not make.
    static func decode(_ cursor: String) throws(MFAError) -> (tenant: String, uid: String) {
        guard cursor.utf8.count <= 400, let bytes = Base64URL.decode(cursor), bytes.count >= 3, bytes[0] == 1,
              Int(bytes[1]) <= MFAUser.maxIdentifierBytes, bytes.count >= 2 + Int(bytes[1]) + 1 else {
            throw MFAError(.invalidArgument, "the cursor is not one listUsers returned")
        }
        let tenantBytes = bytes[2..<(2 + Int(bytes[1]))]
        let uidBytes = bytes[(2 + Int(bytes[1]))...]
        guard uidBytes.count <= MFAUser.maxIdentifierBytes,
              let tenant = String(validating: tenantBytes, as: UTF8.self),
              let uid = String(validating: uidBytes, as: UTF8.self) else {
            throw MFAError(.invalidArgument, "the cursor is not one listUsers returned")
        }
        return (tenant, uid)
    }
}
