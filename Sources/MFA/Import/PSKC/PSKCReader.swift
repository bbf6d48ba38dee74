/// What opens a PSKC file's encrypted values (RFC 6030 §6).
public enum PSKCKey: Sendable {
    /// A pre-shared key (§6.1): 16, 24 or 32 bytes, as the cipher needs.
    case preShared([UInt8])
    /// A password, from which the file's PBKDF2 parameters derive the key (§6.2).
    case password(String)
}

/// Reads a PSKC 1.0 key container (RFC 6030) into import candidates: one
/// per `KeyPackage`, reported on the line of its `Key` element.
///
/// Keys: HOTP (`urn:ietf:params:xml:ns:keyprov:pskc:hotp`), TOTP (`...:totp`)
/// and Yubico OTP (`http://www.yubico.com/#yubikey-aes`, the public and
/// private ids in `UserId` as `CN=<public id>, UID=<private id>`); others are
/// reported unsupported. `ResponseFormat Length` gives the digits (DECIMAL
/// only), `Suite` an HMAC other than SHA-1, `Counter` an HOTP token's next
/// counter, `TimeInterval` a TOTP period (`Time` must be 0: T0 is 0 in
/// libmfa), `TimeDrift` widens a TOTP token's window (its drift is then
/// learned at its first sign-in). `SerialNo` names the token (else the
/// `Key` id); a `UserId` (of an HOTP or TOTP key) assigns it to that user,
/// else it is stored unassigned.
///
/// Values may be plain (`PlainValue`) or encrypted (`EncryptedValue`:
/// AES-128/192/256-CBC) under a pre-shared key or a PBKDF2 key, each with
/// its `ValueMAC` (HMAC-SHA1/256/384/512 of the ciphertext, or of the
/// plaintext as older drafts wrote it), checked in constant time. A file
/// whose encrypted values none open is refused as a whole
/// (`pskcKeyMismatch`): the key is wrong, not each value.
struct PSKCReader {
    /// The file's parts that apply to every key.
    private var root: XMLElement
    /// The key of the encrypted values, once derived.
    private var encryptionKey: [UInt8]?
    private var macHash: PSKCCrypto.Hash?
    private var macKey: [UInt8]?
    /// Whether any encrypted value opened, and whether any failed.
    private(set) var opened = 0
    private(set) var failedToOpen = 0

    /// Parses the file and derives its keys.
    /// - Throws: `invalidPSKC` (not a PSKC 1.0 container, unsafe or bad XML,
    ///   unsupported key derivation), `pskcKeyMismatch` (encrypted and no key
    ///   or password given, or the MAC key does not open), `invalidArgument`.
    init(_ bytes: [UInt8], key: PSKCKey?) throws(MFAError) {
        root = try SafeXML.parse(bytes)
        guard root.name == "KeyContainer" else {
            throw MFAError(.invalidPSKC, "pskc: the file's root element is not a KeyContainer")
        }
        guard let version = root.attribute("Version"), version == "1.0" || version == "1" else {
            throw MFAError(.invalidPSKC, "pskc: the KeyContainer is not of PSKC version 1.0")
        }
        let encrypted = root.containsEncryptedValue
        if let source = root.child("EncryptionKey"), encrypted {
            encryptionKey = try Self.deriveKey(source, key)
        } else if encrypted {
            guard case .preShared(let bytes)? = key else {
                throw MFAError(.pskcKeyMismatch, "pskc: the file's values are encrypted: give its pre-shared key")
            }
            encryptionKey = bytes
        }
        if let method = root.child("MACMethod") {
            guard let hash = PSKCCrypto.Hash(uri: method.attribute("Algorithm") ?? "") else {
                throw MFAError(.invalidPSKC, "pskc: the MACMethod's algorithm is not HMAC-SHA1, -SHA256, -SHA384 or -SHA512")
            }
            macHash = hash
            if let macKeyElement = method.child("MACKey") {
                guard let key = encryptionKey else {
                    throw MFAError(.pskcKeyMismatch, "pskc: the file's MAC key is encrypted: give the file's key or password")
                }
                guard let (cipher, value) = Self.cipherValue(macKeyElement),
                      let plain = PSKCCrypto.decrypt(cipher: cipher, key: key, value: value), !plain.isEmpty else {
                    throw MFAError(.pskcKeyMismatch, "pskc: the key or password given does not open the file's MAC key")
                }
                macKey = plain
            } else {
                macKey = encryptionKey
            }
        } else if let legacy = root.child("MACAlgorithm").map(\.trimmedText), let hash = PSKCCrypto.Hash(uri: legacy) {
            macHash = hash
            macKey = encryptionKey
        }
    }

    /// The key packages, each as a candidate or a report.
    mutating func packages(ignoringUsers: Bool) -> [ParsedLine] {
        root.children("KeyPackage").map { package(of: $0, ignoringUsers: ignoringUsers) }
    }

    /// Wipes the keys held.
    mutating func wipeKeys() {
        if var key = encryptionKey { wipe(&key) }
        if var key = macKey { wipe(&key) }
        encryptionKey = nil
        macKey = nil
    }

    /// The key of the encrypted values: a pre-shared key of the size the file's
    /// cipher needs, or one PBKDF2 derives from the password.
    private static func deriveKey(_ source: XMLElement, _ key: PSKCKey?) throws(MFAError) -> [UInt8] {
        guard let derived = source.child("DerivedKey") else {
            guard case .preShared(let bytes)? = key else {
                throw MFAError(.pskcKeyMismatch, "pskc: the file is encrypted with a pre-shared key: give that key")
            }
            return bytes
        }
        guard let method = derived.child("KeyDerivationMethod"),
              (method.attribute("Algorithm") ?? "").lowercased().hasSuffix("#pbkdf2"),
              let parameters = method.child("PBKDF2-params") else {
            throw MFAError(.invalidPSKC, "pskc: the file's key is derived by a method other than PBKDF2")
        }
        guard let saltText = parameters.child("Salt")?.child("Specified")?.trimmedText,
              let salt = Base64.decode(saltText), !salt.isEmpty,
              let iterations = Int(parameters.child("IterationCount")?.trimmedText ?? ""),
              let length = Int(parameters.child("KeyLength")?.trimmedText ?? ""), [16, 24, 32].contains(length) else {
            throw MFAError(.invalidPSKC, "pskc: the PBKDF2 parameters need a salt, an iteration count and a key length of 16, 24 or 32")
        }
        guard iterations >= 1, iterations <= PSKCCrypto.maxIterations else {
            throw MFAError(.invalidPSKC, "pskc: the PBKDF2 iteration count must be 1 to \(PSKCCrypto.maxIterations)")
        }
        var hash = PSKCCrypto.Hash.sha1
        // The pseudorandom function as PKCS #5's schema writes it (an attribute), or as text.
        if let element = parameters.child("PRF"), let prf = element.attribute("Algorithm") ?? Optional(element.trimmedText) {
            guard let named = PSKCCrypto.Hash(uri: prf) else {
                throw MFAError(.invalidPSKC, "pskc: the PBKDF2 pseudorandom function is not HMAC-SHA1, -SHA256, -SHA384 or -SHA512")
            }
            hash = named
        }
        guard case .password(let password)? = key else {
            throw MFAError(.pskcKeyMismatch, "pskc: the file's key is derived from a password: give that password")
        }
        return PSKCCrypto.pbkdf2(hash, password: Array(password.utf8), salt: salt, iterations: iterations,
                                 length: length)
    }

    /// An `EncryptedValue` or `MACKey`'s cipher and CipherValue.
    private static func cipherValue(_ element: XMLElement) -> (String, [UInt8])? {
        guard let cipher = element.child("EncryptionMethod")?.attribute("Algorithm"),
              let text = element.child("CipherData")?.child("CipherValue")?.trimmedText,
              let value = Base64.decode(text) else { return nil }
        return (cipher, value)
    }

    /// Why a value could not be read.
    private enum ValueProblem: Error {
        case unreadable(String)
    }

    /// A `Data` child's bytes: plain (base64 for the secret, the text for
    /// numbers) or decrypted and checked against its MAC.
    private mutating func value(_ element: XMLElement, binary: Bool) -> Result<[UInt8], ValueProblem> {
        if let plain = element.child("PlainValue") {
            if binary {
                guard let bytes = Base64.decode(plain.trimmedText) else { return .failure(.unreadable("is not base64")) }
                return .success(bytes)
            }
            return .success(Array(plain.trimmedText.utf8))
        }
        guard let encrypted = element.child("EncryptedValue") else {
            return .failure(.unreadable("has neither a PlainValue nor an EncryptedValue"))
        }
        guard let (cipher, value) = Self.cipherValue(encrypted) else {
            return .failure(.unreadable("has an EncryptedValue without its method or cipher data"))
        }
        guard PSKCCrypto.cbcKeyBytes(cipher) != nil else {
            return .failure(.unreadable("is encrypted with a cipher other than AES-128/192/256-CBC"))
        }
        guard let key = encryptionKey, var plain = PSKCCrypto.decrypt(cipher: cipher, key: key, value: value) else {
            failedToOpen += 1
            return .failure(.unreadable("does not decrypt with the key given"))
        }
        if let macText = element.child("ValueMAC")?.trimmedText {
            guard let mac = Base64.decode(macText), let hash = macHash, let macKey else {
                failedToOpen += 1
                wipe(&plain)
                return .failure(.unreadable("has a ValueMAC the file gives no MAC method or key for"))
            }
            guard KeyedHash.equal(PSKCCrypto.hmac(hash, key: macKey, message: value), mac)
                    || KeyedHash.equal(PSKCCrypto.hmac(hash, key: macKey, message: plain), mac) else {
                failedToOpen += 1
                wipe(&plain)
                return .failure(.unreadable("does not match its ValueMAC (a wrong key, or an altered value)"))
            }
        }
        opened += 1
        return .success(plain)
    }

    /// A number value: decimal text, or (encrypted) big-endian bytes.
    private mutating func number(_ element: XMLElement?, _ name: String) -> Result<Int64?, ValueProblem> {
        guard let element else { return .success(nil) }
        switch value(element, binary: false) {
        case .failure(let problem): return .failure(problem)
        case .success(let bytes):
            if !bytes.isEmpty, bytes.count <= 19, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                return .success(Int64(String(decoding: bytes, as: UTF8.self)))
            }
            if bytes.first == UInt8(ascii: "-"), bytes.count >= 2, bytes.count <= 19,
               bytes.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                return .success(Int64(String(decoding: bytes, as: UTF8.self)))
            }
            guard element.child("EncryptedValue") != nil, bytes.count <= 8, !bytes.isEmpty, bytes[0] < 0x80 else {
                return .failure(.unreadable("\(name) is not a number in range"))
            }
            return .success(bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) })
        }
    }

    /// One key package as a candidate, or why it is not one.
    private mutating func package(of package: XMLElement, ignoringUsers: Bool) -> ParsedLine {
        guard let key = package.child("Key") else {
            return .failed(package.line, nil, "the KeyPackage has no Key")
        }
        let line = key.line
        let device = package.child("DeviceInfo")
        let serial = device?.child("SerialNo")?.trimmedText ?? key.attribute("Id") ?? ""
        let algorithm = (key.attribute("Algorithm") ?? key.attribute("KeyAlgorithm") ?? "").lowercased()
        let kind: HardwareTokenSeed.Kind
        if algorithm.hasSuffix("hotp") {
            kind = .hotp
        } else if algorithm.hasSuffix("totp") {
            kind = .totp
        } else if algorithm.hasSuffix("#yubikey-aes") {
            kind = .yubicoOTP
        } else {
            return .unsupported(line, nil, "the key's algorithm is not HOTP, TOTP or Yubico OTP")
        }
        func failed(_ reason: String) -> ParsedLine { .failed(line, nil, "the \(kind.name)'s \(reason)") }
        guard let data = key.child("Data"), let secretElement = data.child("Secret") else {
            return failed("Data has no Secret")
        }
        let secret: [UInt8]
        switch value(secretElement, binary: true) {
        case .failure(.unreadable(let reason)): return failed("secret \(reason)")
        case .success(let bytes): secret = bytes
        }
        var seed = HardwareTokenSeed(kind: kind, secret: secret)
        seed.hardware = true
        seed.serial = serial.isEmpty ? nil : serial
        let issuer = key.child("Issuer")?.trimmedText ?? device?.child("Manufacturer")?.trimmedText
        seed.issuer = issuer.flatMap { $0.isEmpty ? nil : $0 }
        let userID = key.child("UserId")?.trimmedText ?? device?.child("UserId")?.trimmedText
        var notes: [String] = []
        let parameters = key.child("AlgorithmParameters")
        let format = parameters?.child("ResponseFormat")
        if kind == .yubicoOTP {
            guard let (publicID, privateID) = Self.yubicoIDs(userID) else {
                return failed("UserId does not name its public and private ids (CN=<modhex>, UID=<hex>)")
            }
            seed.publicID = publicID
            seed.privateID = privateID
            if seed.serial == nil { seed.serial = publicID }
        } else {
            if let format {
                if let encoding = format.attribute("Encoding"), encoding.uppercased() != "DECIMAL" {
                    return .unsupported(line, nil, "the \(kind.name)'s codes are not decimal (\(encoding.prefix(16)))")
                }
                guard let digits = Int(format.attribute("Length") ?? ""), OTPLimits.digits.contains(digits) else {
                    return failed("code length (ResponseFormat Length) must be 6 to 8")
                }
                seed.digits = digits
            }
            if let suite = parameters?.child("Suite")?.trimmedText.uppercased() {
                if suite.contains("SHA512") {
                    seed.algorithm = .sha512
                } else if suite.contains("SHA256") {
                    seed.algorithm = .sha256
                } else if !suite.isEmpty && !suite.contains("SHA1") {
                    return .unsupported(line, nil, "the \(kind.name)'s HMAC suite is not SHA1, SHA256 or SHA512")
                }
            }
        }
        switch kind {
        case .hotp:
            switch number(data.child("Counter"), "counter") {
            case .failure(.unreadable(let reason)): return failed(reason)
            case .success(let counter):
                let start = counter ?? 0
                guard start >= 0, start < Int64.max - 1 else {
                    return failed("counter is out of range")
                }
                seed.counter = start
            }
        case .totp:
            switch number(data.child("TimeInterval"), "time interval") {
            case .failure(.unreadable(let reason)): return failed(reason)
            case .success(let interval):
                if let interval {
                    guard OTPLimits.period.contains(interval) else { return failed("time interval is out of range") }
                    seed.period = interval
                }
            }
            switch number(data.child("Time"), "time") {
            case .failure(.unreadable(let reason)): return failed(reason)
            case .success(let time):
                if let time, time != 0 {
                    return .unsupported(line, nil, "the TOTP token counts from a Time other than 0 (libmfa's T0 is 0)")
                }
            }
            switch number(data.child("TimeDrift"), "time drift") {
            case .failure(.unreadable(let reason)): return failed(reason)
            case .success(let drift):
                if let drift, drift != 0 {
                    let steps = Int(clamping: drift.magnitude)
                    seed.window = min(max(steps + 2, HardwareTokenSeed.hardwareTOTPWindow), OTPLimits.window.upperBound)
                    notes.append("its drift of \(drift) steps is learned at its first sign-in, within ±\(seed.window ?? 0)")
                }
            }
        case .yubicoOTP:
            break
        }
        var uid: String?
        if kind != .yubicoOTP, let userID, !userID.isEmpty {
            if ignoringUsers {
                notes.append("its UserId is left out: stored unassigned")
            } else {
                switch ImportChecks.uid(userID, named: "the UserId (the uid)") {
                case .failure(let problem): return .failed(line, nil, problem.reason)
                case .success(let checked): uid = checked
                }
            }
        }
        var displayName: String?
        if uid != nil, let issuer = seed.issuer {
            switch ImportChecks.displayName(issuer) {
            case .failure(let problem): return .failed(line, uid, problem.reason)
            case .success(let name): displayName = name
            }
        }
        var candidate = ImportCandidate(line: line, uid: uid, seed: seed, displayName: displayName)
        candidate.note = ([kind.name] + notes).joined(separator: "; ")
        return .factor(candidate)
    }

    /// A YubiKey's public id (`CN=`, modhex) and private id (`UID=`, 12 hex
    /// digits) from its `UserId`.
    private static func yubicoIDs(_ userID: String?) -> (String, [UInt8])? {
        guard let userID else { return nil }
        var publicID: String?
        var privateID: [UInt8]?
        for part in userID.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).filter { $0 != " " } }
            guard pair.count == 2 else { continue }
            switch pair[0].uppercased() {
            case "CN": publicID = pair[1].lowercased()
            case "UID": privateID = ImportText.hex(Substring(pair[1]))
            default: break
            }
        }
        guard let publicID, YubicoOTP.isPublicID(publicID), let privateID,
              privateID.count == YubicoOTP.privateIDBytes else { return nil }
        return (publicID, privateID)
    }
}

private extension XMLElement {
    /// Whether any element below holds an `EncryptedValue`.
    var containsEncryptedValue: Bool {
        children.contains { $0.name == "EncryptedValue" || $0.containsEncryptedValue }
    }
}
