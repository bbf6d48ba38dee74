import CP11
import Glibc

/// One logged-in session on a PKCS#11 token, for the length of one key
/// provider call (`PKCS11Session.run`), with the module's lock held.
struct PKCS11Session {
    let module: PKCS11Module
    let handle: CK_SESSION_HANDLE
    /// Names the token in messages.
    let tokenName: String

    private var functions: CK_FUNCTION_LIST { module.functions.pointee }

    /// Finds the token, opens a session, logs in with `pin` and runs `body`;
    /// the session is closed after.
    /// - Throws: `keyProviderUnavailable` (no such token, a failed call),
    ///   `keyProviderLogin` (the PIN refused), or what `body` throws.
    static func run<R>(_ module: PKCS11Module, token: PKCS11KeyProvider.Token, pin: SecureBytes,
                       _ body: (PKCS11Session) throws(MFAError) -> R) throws(MFAError) -> R {
        try module.lock.withLock { () throws(MFAError) -> R in
            let list = module.functions.pointee
            let slot = try findSlotRetrying(module, token)
            let name = token.description
            var handle: CK_SESSION_HANDLE = 0
            let opened = list.C_OpenSession?(slot, PKCS11.serialSession, nil, nil, &handle) ?? PKCS11.functionMissing
            guard opened == PKCS11.ok else {
                throw MFAError(.keyProviderUnavailable, "pkcs11: cannot open a session on \(name) (\(PKCS11.describe(opened)))")
            }
            defer { _ = list.C_CloseSession?(handle) }
            let login = pin.withBytes { bytes in
                list.C_Login?(handle, PKCS11.userType, UnsafeMutablePointer(mutating: pin.pointer),
                              CK_ULONG(bytes.count)) ?? PKCS11.functionMissing
            }
            switch login {
            case PKCS11.ok, PKCS11.userAlreadyLoggedIn:
                break
            case PKCS11.pinIncorrect, PKCS11.pinInvalid, PKCS11.pinLenRange, PKCS11.pinExpired, PKCS11.pinLocked,
                 PKCS11.userPINNotInitialized:
                throw MFAError(.keyProviderLogin, "pkcs11: \(name) refused the PIN (\(PKCS11.describe(login)))")
            default:
                throw MFAError(.keyProviderUnavailable, "pkcs11: cannot log in to \(name) (\(PKCS11.describe(login)))")
            }
            return try body(PKCS11Session(module: module, handle: handle, tokenName: name))
        }
    }

    /// The slot holding the token, looked for again after the module is
    /// initialized afresh if it is not found (four times at most, within
    /// 750 ms): a module lists the tokens it found when it was initialized,
    /// and SoftHSM2 skips a token whose files another process is writing.
    private static func findSlotRetrying(_ module: PKCS11Module,
                                         _ token: PKCS11KeyProvider.Token) throws(MFAError) -> CK_SLOT_ID {
        var lastError = MFAError(.keyProviderUnavailable)
        for delay: UInt32 in [0, 50_000, 100_000, 200_000, 400_000] {
            if delay > 0 {
                usleep(delay)
                try module.reinitialize()
            }
            do {
                return try findSlot(module, token)
            } catch where error.code == .keyProviderUnavailable {
                lastError = error
            }
        }
        throw lastError
    }

    /// The slot holding the token.
    private static func findSlot(_ module: PKCS11Module, _ token: PKCS11KeyProvider.Token) throws(MFAError) -> CK_SLOT_ID {
        let list = module.functions.pointee
        var count: CK_ULONG = 0
        var status = list.C_GetSlotList?(CK_BBOOL(1), nil, &count) ?? PKCS11.functionMissing
        guard status == PKCS11.ok else {
            throw MFAError(.keyProviderUnavailable, "pkcs11: \(module.path): C_GetSlotList failed (\(PKCS11.describe(status)))")
        }
        var slots = [CK_SLOT_ID](repeating: 0, count: Int(min(count, 1024)))
        count = CK_ULONG(slots.count)
        status = slots.withUnsafeMutableBufferPointer { list.C_GetSlotList?(CK_BBOOL(1), $0.baseAddress, &count) }
            ?? PKCS11.functionMissing
        guard status == PKCS11.ok else {
            throw MFAError(.keyProviderUnavailable, "pkcs11: \(module.path): C_GetSlotList failed (\(PKCS11.describe(status)))")
        }
        for slot in slots.prefix(Int(min(count, CK_ULONG(slots.count)))) {
            switch token {
            case .slot(let id) where id == UInt(slot):
                return slot
            case .label(let label):
                var info = CK_TOKEN_INFO()
                guard list.C_GetTokenInfo?(slot, &info) == PKCS11.ok else { continue }
                if tokenLabel(info) == label { return slot }
            default:
                continue
            }
        }
        throw MFAError(.keyProviderUnavailable, "pkcs11: no \(token) in \(module.path)")
    }

    /// A token's label without its padding.
    private static func tokenLabel(_ info: CK_TOKEN_INFO) -> String {
        var label = info.label
        let bytes = withUnsafeBytes(of: &label) { Array($0) }
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The token's AES secret key labelled `label`.
    /// - Throws: `keyProviderKeyNotFound` if there is none, `keyProviderUnavailable`
    ///   if there are several or the search fails.
    func secretKey(label: String) throws(MFAError) -> CK_OBJECT_HANDLE {
        var keyClass = PKCS11.secretKeyClass
        var keyType = PKCS11.aesKeyType
        var labelBytes = Array(label.utf8)
        var found = [CK_OBJECT_HANDLE](repeating: 0, count: 2)
        var count: CK_ULONG = 0
        let status: CK_RV = withUnsafeMutableBytes(of: &keyClass) { classBytes in
            withUnsafeMutableBytes(of: &keyType) { typeBytes in
                labelBytes.withUnsafeMutableBytes { labelBuffer in
                    var template = [
                        CK_ATTRIBUTE(type: PKCS11.classAttribute, pValue: classBytes.baseAddress,
                                     ulValueLen: CK_ULONG(classBytes.count)),
                        CK_ATTRIBUTE(type: PKCS11.keyTypeAttribute, pValue: typeBytes.baseAddress,
                                     ulValueLen: CK_ULONG(typeBytes.count)),
                        CK_ATTRIBUTE(type: PKCS11.labelAttribute, pValue: labelBuffer.baseAddress,
                                     ulValueLen: CK_ULONG(labelBuffer.count)),
                    ]
                    let begun = template.withUnsafeMutableBufferPointer {
                        functions.C_FindObjectsInit?(handle, $0.baseAddress, CK_ULONG($0.count))
                    } ?? PKCS11.functionMissing
                    guard begun == PKCS11.ok else { return begun }
                    let searched = found.withUnsafeMutableBufferPointer {
                        functions.C_FindObjects?(handle, $0.baseAddress, 2, &count)
                    } ?? PKCS11.functionMissing
                    _ = functions.C_FindObjectsFinal?(handle)
                    return searched
                }
            }
        }
        guard status == PKCS11.ok else {
            throw MFAError(.keyProviderUnavailable,
                           "pkcs11: searching \(tokenName) for the key \"\(label)\" failed (\(PKCS11.describe(status)))")
        }
        switch count {
        case 0:
            throw MFAError(.keyProviderKeyNotFound, "pkcs11: \(tokenName) holds no AES secret key labelled \"\(label)\"")
        case 1:
            return found[0]
        default:
            throw MFAError(.keyProviderUnavailable,
                           "pkcs11: \(tokenName) holds several AES secret keys labelled \"\(label)\"; labels must be unique")
        }
    }

    /// Runs one AES-GCM encryption (`decrypt` false) or decryption in the
    /// token, with a 96-bit `iv` and a 128-bit tag.
    /// - Returns: the token's return value and the length written to `output`.
    func gcm(decrypt: Bool, key: CK_OBJECT_HANDLE, iv: [UInt8], aad: [UInt8], input: UnsafeRawBufferPointer,
             output: UnsafeMutableRawBufferPointer) -> (CK_RV, Int) {
        var iv = iv
        var aad = aad
        var written = CK_ULONG(output.count)
        let status: CK_RV = iv.withUnsafeMutableBufferPointer { ivBuffer in
            aad.withUnsafeMutableBufferPointer { aadBuffer in
                var parameters = CK_GCM_PARAMS()
                parameters.pIv = ivBuffer.baseAddress
                parameters.ulIvLen = CK_ULONG(ivBuffer.count)
                parameters.ulIvBits = CK_ULONG(ivBuffer.count * 8)
                parameters.pAAD = aadBuffer.baseAddress
                parameters.ulAADLen = CK_ULONG(aadBuffer.count)
                parameters.ulTagBits = 128
                return withUnsafeMutableBytes(of: &parameters) { parameterBytes in
                    var mechanism = CK_MECHANISM(mechanism: PKCS11.aesGCM, pParameter: parameterBytes.baseAddress,
                                                 ulParameterLen: CK_ULONG(parameterBytes.count))
                    let source = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
                    let target = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    let count = CK_ULONG(input.count)
                    if decrypt {
                        let begun = functions.C_DecryptInit?(handle, &mechanism, key) ?? PKCS11.functionMissing
                        guard begun == PKCS11.ok else { return begun }
                        return functions.C_Decrypt?(handle, source, count, target, &written) ?? PKCS11.functionMissing
                    }
                    let begun = functions.C_EncryptInit?(handle, &mechanism, key) ?? PKCS11.functionMissing
                    guard begun == PKCS11.ok else { return begun }
                    return functions.C_Encrypt?(handle, source, count, target, &written) ?? PKCS11.functionMissing
                }
            }
        }
        return (status, Int(written))
    }
}
