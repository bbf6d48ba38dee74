import CP11
import CSodium
import Glibc

/// A key provider whose key-encryption key is an AES key in an HSM token,
/// reached through the HSM's PKCS#11 module (SoftHSM2's in the tests).
///
/// Data keys are wrapped with AES-256-GCM inside the token (`CKM_AES_GCM`
/// with `C_Encrypt`/`C_Decrypt`: the key never leaves it), under a fresh
/// 96-bit nonce from libmfa and bound to the data key's id. A wrapped key
/// is a version byte, the nonce, then the ciphertext and its 128-bit tag.
/// The token's key is found by its label among its AES secret keys
/// (`CKO_SECRET_KEY`, `CKK_AES`); it needs `CKA_ENCRYPT` and `CKA_DECRYPT`.
public struct PKCS11KeyProvider: KeyProvider {
    /// Which token of the module holds the key.
    public enum Token: Sendable, Equatable, CustomStringConvertible {
        /// The token with this label (as `softhsm2-util --init-token --label` set it).
        case label(String)
        /// The token in the slot with this id.
        case slot(UInt)

        /// How messages name it.
        public var description: String {
            switch self {
            case .label(let label): "token \"\(label)\""
            case .slot(let id): "the token in slot \(id)"
            }
        }
    }

    /// The path of the PKCS#11 module.
    public let module: String
    /// The token.
    public let token: Token
    /// The label of the key new data keys are wrapped with.
    public let keyLabel: String
    /// The user PIN, in guarded memory.
    let pin: SecureBytes

    /// `"pkcs11"`.
    public var kind: String { "pkcs11" }

    /// The wrapped form's version byte.
    static let version: UInt8 = 1
    /// The nonce length.
    static let nonceBytes = 12

    /// Creates a provider; nothing is loaded until a context opens with it.
    /// - Parameters:
    ///   - module: the module's path (such as `/usr/lib/softhsm/libsofthsm2.so`).
    ///   - token: the token, by label or slot id.
    ///   - keyLabel: the AES key's label (`CKA_LABEL`).
    ///   - pin: the user PIN (see `PKCS11PIN` to read one from a file or the environment).
    /// - Throws: `invalidArgument` for an empty path, label or PIN.
    public init(module: String, token: Token, keyLabel: String, pin: String) throws(MFAError) {
        guard !module.isEmpty, module.utf8.count <= 4096 else {
            throw MFAError(.invalidArgument, "the PKCS#11 module path must be 1 to 4096 bytes")
        }
        if case .label(let label) = token {
            guard !label.isEmpty, label.utf8.count <= 32 else {
                throw MFAError(.invalidArgument, "the token label must be 1 to 32 bytes")
            }
        }
        try KeyProviderLimits.checkLabel(keyLabel)
        guard !pin.isEmpty, pin.utf8.count <= 256 else {
            throw MFAError(.invalidArgument, "the PIN must be 1 to 256 bytes")
        }
        self.module = module
        self.token = token
        self.keyLabel = keyLabel
        var bytes = Array(pin.utf8)
        defer { wipe(&bytes) }
        self.pin = try withBytes(of: bytes) { (buffer) throws(MFAError) in try SecureBytes(copying: buffer) }
    }

    /// Wraps `key` under the token's key `label` (AES-GCM in the token).
    public func wrap(_ key: UnsafeRawBufferPointer, label: String, context: [UInt8]) throws(MFAError) -> [UInt8] {
        let nonce = try SystemRandom().bytes(Self.nonceBytes)
        let loaded = try PKCS11Module.shared(path: module)
        let sealed: [UInt8] = try PKCS11Session.run(loaded, token: token, pin: pin) { (session) throws(MFAError) in
            let handle = try session.secretKey(label: label)
            var output = [UInt8](repeating: 0, count: key.count + 16)
            let (status, written) = output.withUnsafeMutableBytes {
                session.gcm(decrypt: false, key: handle, iv: nonce, aad: Self.aad(context), input: key, output: $0)
            }
            guard status == PKCS11.ok, written == key.count + 16 else {
                throw MFAError(.keyProviderUnavailable, "pkcs11: \(session.tokenName) cannot encrypt with the key "
                    + "\"\(label)\" (\(PKCS11.describe(status))); it needs CKA_ENCRYPT and CKM_AES_GCM")
            }
            return output
        }
        return [Self.version] + nonce + sealed
    }

    /// Unwraps a key wrapped by `wrap` under the token's key `label`.
    public func unwrap(_ wrapped: [UInt8], label: String, context: [UInt8],
                       into key: UnsafeMutableRawBufferPointer) throws(MFAError) {
        let header = 1 + Self.nonceBytes
        guard wrapped.count == header + key.count + 16, wrapped[0] == Self.version else {
            throw MFAError(.keyMismatch, "pkcs11: a wrapped data key is not in the form this libmfa writes")
        }
        let loaded = try PKCS11Module.shared(path: module)
        try PKCS11Session.run(loaded, token: token, pin: pin) { (session) throws(MFAError) in
            let handle = try session.secretKey(label: label)
            let plain = try SecureBytes(count: wrapped.count)
            let (status, written) = wrapped[header...].withUnsafeBytes { input in
                plain.withMutableBytes {
                    session.gcm(decrypt: true, key: handle, iv: Array(wrapped[1..<header]), aad: Self.aad(context),
                                input: input, output: $0)
                }
            }
            guard status == PKCS11.ok, written == key.count else {
                throw MFAError(.keyMismatch, "pkcs11: the key \"\(label)\" in \(session.tokenName) does not unwrap "
                    + "the store's data key (\(PKCS11.describe(status))): it was replaced since the store was "
                    + "wrapped, or the wrapped key was altered")
            }
            plain.withBytes { key.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<key.count])) }
        }
    }

    /// The associated data a wrap is bound to.
    static func aad(_ context: [UInt8]) -> [UInt8] {
        Array("libmfa data key v1".utf8) + [0] + context
    }
}

/// Reads a PIN (a PKCS#11 user PIN, or any provider's secret) from where an
/// operator keeps it: a file, or an environment variable. Never from a
/// command line, where other users see it.
public enum PKCS11PIN {
    /// The PIN in the file at `path`: its first line, without the line end
    /// (a file holding only the PIN, readable by the service alone).
    /// - Throws: `invalidArgument` naming the path if it cannot be read or
    ///   holds no PIN (the PIN is never named).
    public static func fromFile(_ path: String) throws(MFAError) -> String {
        guard let file = fopen(path, "r") else {
            throw MFAError(.invalidArgument, "cannot read the PIN file \(path)")
        }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        defer { buffer.withUnsafeMutableBytes { if let base = $0.baseAddress { sodium_memzero(base, $0.count) } } }
        guard fgets(&buffer, Int32(buffer.count), file) != nil else {
            throw MFAError(.invalidArgument, "the PIN file \(path) is empty")
        }
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        var pin = String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while pin.hasSuffix("\n") || pin.hasSuffix("\r") { pin.removeLast() }
        guard !pin.isEmpty else { throw MFAError(.invalidArgument, "the PIN file \(path) holds no PIN") }
        return pin
    }

    /// The PIN in the environment variable `name` (read with `secure_getenv`:
    /// unset in a secure-execution process such as a setuid program).
    /// - Throws: `invalidArgument` naming the variable if it is unset or empty.
    public static func fromEnvironment(_ name: String) throws(MFAError) -> String {
        guard let pin = ProcessEnvironment.value(name) else {
            throw MFAError(.invalidArgument, "the environment variable \(name) holding the PIN is unset or empty"
                + (ProcessEnvironment.isSecureExecution ? " (ignored in a secure-execution process)" : ""))
        }
        return pin
    }
}
