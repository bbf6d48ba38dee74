/// The key check value: what the store keeps per key id so that opening it
/// with another key under a known id is a named error (`keyMismatch`) at
/// open, not a `crypto` failure at some later sign-in.
///
/// The value is a 32-byte keyed BLAKE2b hash (libsodium's
/// `crypto_generichash`) of a fixed label and the key id, under a subkey of
/// the master key of its own (`crypto_kdf`, subkey 4): it proves the key
/// without revealing it, and serves no other use.
///
/// It is computed from the 32 key bytes the context holds, whatever gave
/// them: a key file, the host's memory, or a key provider that unwraps a
/// data key (an HSM) at open. Each stored value names its `method`, so that
/// a provider whose key never leaves its device can keep a value computed
/// its own way under the same key id beside this one.
package enum KeyCheck {
    /// The name of this way of computing the value, stored beside it.
    package static let method = "blake2b-kdf4-v1"
    /// The `crypto_kdf` subkey number the check key is derived with.
    static let subkey: UInt64 = 4
    /// The label hashed.
    private static let label = "libmfa key check v1"

    /// The check value of the key under `id`, from its check subkey.
    static func value(id: String, checkKey: SecureBytes) -> [UInt8] {
        KeyedHash.hash(Array(label.utf8) + [0] + Array(id.utf8), key: checkKey)
    }
}
