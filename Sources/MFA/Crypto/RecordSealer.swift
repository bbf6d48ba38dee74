/// What a sealed value belongs to: the associated data of its encryption.
///
/// A sealed value opens only for the exact record it was sealed for: the
/// same table, factor kind, tenant, user and id. A row moved to another user
/// (`UPDATE mfa_factors SET uid = ...`), another tenant or another record
/// does not decrypt.
package struct SealBinding: Sendable, Equatable {
    /// The kind of record: `factor`, `pending` (a TOTP secret being enrolled) or `sms` (a verification).
    package var record: String
    /// The factor id the value belongs to ("totp", "phone", "recovery").
    package var kind: String
    package var tenant: String
    package var uid: String
    /// The record's id (enrollment id, pending id, verification id).
    package var id: String

    package init(record: String, kind: String, tenant: String, uid: String, id: String) {
        self.record = record
        self.kind = kind
        self.tenant = tenant
        self.uid = uid
        self.id = id
    }

    /// The binding of an enrolled factor.
    package static func factor(_ kind: String, tenant: String, uid: String, id: String) -> SealBinding {
        SealBinding(record: "factor", kind: kind, tenant: tenant, uid: uid, id: id)
    }

    /// The associated data: a version, then each field NUL-terminated.
    package var associated: [UInt8] {
        let version: StaticString = "libmfa seal v2"
        let size = version.utf8CodeUnitCount + 5 + record.utf8.count + kind.utf8.count + tenant.utf8.count
            + uid.utf8.count + id.utf8.count
        return [UInt8](unsafeUninitializedCapacity: size) { out, count in
            let start = out.baseAddress!
            start.initialize(from: version.utf8Start, count: version.utf8CodeUnitCount)
            count = version.utf8CodeUnitCount
            func field(_ text: String) {
                start[count] = 0
                count += 1
                var text = text
                text.withUTF8 { utf8 in
                    if let source = utf8.baseAddress { (start + count).initialize(from: source, count: utf8.count) }
                    count += utf8.count
                }
            }
            field(record)
            field(kind)
            field(tenant)
            field(uid)
            field(id)
        }
    }

    /// The associated data that schema versions 1 and 2 used (id and tenant
    /// only); read once, when a store is upgraded, never accepted after.
    var legacyAssociated: [UInt8] {
        Array("libmfa secret v1".utf8) + [0] + Array(tenant.utf8) + [0] + Array(id.utf8)
    }
}

/// Encrypts factor payloads (TOTP secrets, phone numbers, recovery-code
/// keys) at rest under the keyring's current key, bound to their record.
enum RecordSealer {
    /// Seals `plain` for `binding` under the current key.
    static func seal(_ plain: UnsafeRawBufferPointer, _ binding: SealBinding,
                     keyring: MasterKeyring) throws(MFAError) -> (keyID: String, sealed: [UInt8]) {
        (keyring.current.id, try SecretBox.seal(plain, key: keyring.current.secretsKey, associated: binding.associated))
    }

    /// `seal` of an array.
    static func seal(_ plain: [UInt8], _ binding: SealBinding,
                     keyring: MasterKeyring) throws(MFAError) -> (keyID: String, sealed: [UInt8]) {
        try withBytes(of: plain) { (buffer) throws(MFAError) in try seal(buffer, binding, keyring: keyring) }
    }

    /// `seal` of guarded bytes.
    static func seal(_ plain: SecureBytes, _ binding: SealBinding,
                     keyring: MasterKeyring) throws(MFAError) -> (keyID: String, sealed: [UInt8]) {
        try plain.withBytes { (buffer) throws(MFAError) in try seal(buffer, binding, keyring: keyring) }
    }

    /// Opens a sealed value into guarded memory.
    /// - Throws: `crypto` if its key is not in the keyring, or if it does not
    ///   authenticate for `binding` (tampered, or moved from another record).
    static func open(_ sealed: [UInt8], keyID: String, _ binding: SealBinding,
                     keyring: MasterKeyring) throws(MFAError) -> SecureBytes {
        guard let key = keyring.key(id: keyID) else {
            throw MFAError(.crypto, "a stored secret is under master key \"\(keyID)\", which was not given")
        }
        guard let plain = try SecretBox.open(sealed, key: key.secretsKey, associated: binding.associated) else {
            throw MFAError(.crypto, "a stored secret does not decrypt for its record: it was altered or moved")
        }
        return plain
    }

    /// Opens a value sealed by schema versions 1 and 2 (bound to id and
    /// tenant only), for the one-time upgrade; nil if it does not open.
    static func openLegacy(_ sealed: [UInt8], keyID: String, _ binding: SealBinding,
                           keyring: MasterKeyring) throws(MFAError) -> SecureBytes? {
        guard let key = keyring.key(id: keyID) else { return nil }
        return try SecretBox.open(sealed, key: key.secretsKey, associated: binding.legacyAssociated)
    }
}
