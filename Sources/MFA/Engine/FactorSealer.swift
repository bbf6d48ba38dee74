/// Encrypts factor secrets (and phone numbers) at rest, bound to the record
/// they belong to: a sealed value copied to another record or tenant does
/// not open.
enum FactorSealer {
    /// Seals `plain` for the record `id` of `tenant` under the current key.
    static func seal(_ plain: [UInt8], id: String, tenant: String,
                     keyring: MasterKeyring) throws(MFAError) -> (keyID: String, sealed: [UInt8]) {
        let sealed = try SecretBox.seal(plain, key: keyring.current.secretsKey,
                                        associated: associated(id: id, tenant: tenant))
        return (keyring.current.id, sealed)
    }

    /// Opens a sealed value.
    /// - Throws: `crypto` if its key is not in the keyring or it does not authenticate.
    static func open(_ sealed: [UInt8], keyID: String, id: String, tenant: String,
                     keyring: MasterKeyring) throws(MFAError) -> [UInt8] {
        guard let key = keyring.key(id: keyID) else {
            throw MFAError(.crypto, "a stored secret is under master key \"\(keyID)\", which was not given")
        }
        guard let plain = SecretBox.open(sealed, key: key.secretsKey, associated: associated(id: id, tenant: tenant))
        else { throw MFAError(.crypto, "a stored secret does not decrypt under master key \"\(keyID)\"") }
        return plain
    }

    private static func associated(id: String, tenant: String) -> [UInt8] {
        Array("libmfa secret v1".utf8) + [0] + Array(tenant.utf8) + [0] + Array(id.utf8)
    }
}
