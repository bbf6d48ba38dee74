import CGnuTLS
import Glibc

/// What WebAuthn needs to know of an attestation certificate, read by GnuTLS.
struct X509Certificate: Sendable {
    /// The longest certificate accepted, in DER bytes.
    static let maxBytes = 8192
    /// The OID of FIDO's AAGUID extension (id-fido-gen-ce-aaguid).
    static let aaguidOID = "1.3.6.1.4.1.45724.1.1.4"

    /// The DER bytes.
    let der: [UInt8]
    /// The X.509 version (3 for attestation certificates).
    let version: Int
    /// The subject public key, as a COSE key of the algorithm it signs with.
    let publicKey: COSEKey?
    /// The subject's fields by OID (2.5.4.6 C, 2.5.4.10 O, 2.5.4.11 OU, 2.5.4.3 CN).
    let subject: [String: String]
    /// Basic constraints' CA flag, when the extension is there.
    let isCA: Bool?
    /// The AAGUID extension's value (the 16 bytes inside its OCTET STRING) and criticality.
    let aaguid: (value: [UInt8]?, critical: Bool)?
    /// The validity period (Unix seconds).
    let notBefore: Int64
    let notAfter: Int64
    /// Whether the subject is an empty name (TPM attestation identity keys' certificates).
    let subjectIsEmpty: Bool
    /// The extensions by OID: criticality and the value (the contents of their OCTET STRING).
    let extensions: [String: X509Extension]

    /// Reads a DER certificate.
    /// - Throws: `invalidArgument` for one GnuTLS cannot read; `crypto` if GnuTLS cannot be loaded.
    init(der: [UInt8]) throws(MFAError) {
        guard !der.isEmpty, der.count <= Self.maxBytes else {
            throw MFAError(.invalidArgument, "attestation certificate: empty or longer than \(Self.maxBytes) bytes")
        }
        let tls = try GnuTLS.shared()
        var handle: gnutls_x509_crt_t?
        guard tls.crtInit(&handle) == 0, let crt = handle else { throw MFAError(.outOfMemory) }
        defer { tls.crtDeinit(crt) }
        let imported = der.withUnsafeBufferPointer { buffer -> Int32 in
            var datum = gnutls_datum_t(data: UnsafeMutablePointer(mutating: buffer.baseAddress),
                                       size: UInt32(buffer.count))
            return tls.crtImport(crt, &datum, GNUTLS_X509_FMT_DER)
        }
        guard imported == 0 else { throw MFAError(.invalidArgument, "attestation certificate: not an X.509 certificate") }
        self.der = der
        version = Int(tls.crtVersion(crt))
        publicKey = Self.publicKey(tls, crt)
        var subject: [String: String] = [:]
        for oid in ["2.5.4.6", "2.5.4.10", "2.5.4.11", "2.5.4.3"] {
            if let value = Self.dnField(tls, crt, oid) { subject[oid] = value }
        }
        self.subject = subject
        var critical: UInt32 = 0, ca: UInt32 = 0
        var pathLength: Int32 = 0
        isCA = tls.crtBasicConstraints(crt, &critical, &ca, &pathLength) >= 0 ? ca != 0 : nil
        aaguid = Self.extensionValue(tls, crt, Self.aaguidOID).map { (Self.octetString($0.value), $0.critical) }
        notBefore = Int64(tls.crtActivation(crt))
        notAfter = Int64(tls.crtExpiration(crt))
        (subjectIsEmpty, extensions) = try X509Extension.read(der)
    }

    private static func publicKey(_ tls: GnuTLS, _ crt: gnutls_x509_crt_t) -> COSEKey? {
        var bits: UInt32 = 0
        switch Int(tls.crtPKAlgorithm(crt, &bits)) {
        case Int(GNUTLS_PK_ECDSA.rawValue), Int(GNUTLS_PK_EDDSA_ED25519.rawValue):
            var curve = gnutls_ecc_curve_t(0)
            var x = gnutls_datum_t(), y = gnutls_datum_t()
            guard tls.crtECCRaw(crt, &curve, &x, &y) == 0 else { return nil }
            defer { release(tls, &x); release(tls, &y) }
            if curve == GNUTLS_ECC_CURVE_SECP256R1, let px = fixed(x, 32), let py = fixed(y, 32) {
                return COSEKey(algorithm: .es256, material: .ec2(x: px, y: py))
            }
            if curve == GNUTLS_ECC_CURVE_SECP384R1, let px = fixed(x, 48), let py = fixed(y, 48) {
                return COSEKey(algorithm: .es384, material: .ec(curve: .p384, x: px, y: py))
            }
            if curve == GNUTLS_ECC_CURVE_SECP521R1, let px = fixed(x, 66), let py = fixed(y, 66) {
                return COSEKey(algorithm: .es512, material: .ec(curve: .p521, x: px, y: py))
            }
            if curve == GNUTLS_ECC_CURVE_ED25519, x.size == 32, let px = fixed(x, 32) {
                return COSEKey(algorithm: .edDSA, material: .okp(x: px))
            }
            return nil
        case Int(GNUTLS_PK_RSA.rawValue):
            var n = gnutls_datum_t(), e = gnutls_datum_t()
            guard tls.crtRSARaw(crt, &n, &e) == 0 else { return nil }
            defer { release(tls, &n); release(tls, &e) }
            return COSEKey(algorithm: .rs256, material: .rsa(n: bytes(n), e: Array(bytes(e).drop { $0 == 0 })))
        default:
            return nil
        }
    }

    private static func bytes(_ datum: gnutls_datum_t) -> [UInt8] {
        guard let data = datum.data, datum.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(datum.size)))
    }

    /// An unsigned integer as exactly `count` big-endian bytes.
    private static func fixed(_ datum: gnutls_datum_t, _ count: Int) -> [UInt8]? {
        let value = Array(bytes(datum).drop { $0 == 0 })
        guard value.count <= count else { return nil }
        return [UInt8](repeating: 0, count: count - value.count) + value
    }

    private static func release(_ tls: GnuTLS, _ datum: inout gnutls_datum_t) {
        if let data = datum.data { tls.free(data) }
        datum.data = nil
    }

    private static func dnField(_ tls: GnuTLS, _ crt: gnutls_x509_crt_t, _ oid: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        var size = buffer.count
        guard tls.crtDNByOID(crt, oid, 0, 0, &buffer, &size) == 0, size <= buffer.count else { return nil }
        return String(decoding: buffer.prefix(size).prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func extensionValue(_ tls: GnuTLS, _ crt: gnutls_x509_crt_t,
                                       _ oid: String) -> (value: [UInt8], critical: Bool)? {
        var buffer = [UInt8](repeating: 0, count: 256)
        var size = buffer.count
        var critical: UInt32 = 0
        guard tls.crtExtensionByOID(crt, oid, 0, &buffer, &size, &critical) == 0, size <= buffer.count else {
            return nil
        }
        return (Array(buffer.prefix(size)), critical != 0)
    }

    /// The 16 bytes of a DER `OCTET STRING` of length 16 (`04 10 ...`), the
    /// AAGUID extension's value; nil for anything else.
    private static func octetString(_ value: [UInt8]) -> [UInt8]? {
        guard value.count == 18, value[0] == 0x04, value[1] == 0x10 else { return nil }
        return Array(value[2...])
    }

    /// Whether `chain` (leaf first, each certificate DER) leads to one of the
    /// PEM `roots` at time `now`: GnuTLS checks the signatures, the CA flags
    /// and the path; the validity periods are checked here, against libmfa's
    /// clock (so that tests can pin it).
    /// - Throws: `crypto` if GnuTLS cannot be loaded; `invalidArgument` for a certificate it cannot read.
    static func chainIsTrusted(_ chain: [X509Certificate], roots: [String], now: Int64) throws(MFAError) -> Bool {
        guard !chain.isEmpty, !roots.isEmpty else { return false }
        guard chain.allSatisfy({ $0.notBefore <= now && now <= $0.notAfter }) else { return false }
        let tls = try GnuTLS.shared()
        var list: gnutls_x509_trust_list_t?
        guard tls.trustListInit(&list, 0) == 0, let trust = list else { throw MFAError(.outOfMemory) }
        defer { tls.trustListDeinit(trust, 1) }
        for root in roots {
            var pem = Array(root.utf8)
            let added = pem.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
                return tls.trustListAddMem(trust, &datum, nil, GNUTLS_X509_FMT_PEM, 0, 0)
            }
            guard added >= 1 else { return false }
        }
        var handles: [gnutls_x509_crt_t?] = []
        defer { for handle in handles { if let handle { tls.crtDeinit(handle) } } }
        for certificate in chain {
            var handle: gnutls_x509_crt_t?
            guard tls.crtInit(&handle) == 0, let crt = handle else { throw MFAError(.outOfMemory) }
            handles.append(crt)
            let imported = certificate.der.withUnsafeBufferPointer { buffer -> Int32 in
                var datum = gnutls_datum_t(data: UnsafeMutablePointer(mutating: buffer.baseAddress),
                                           size: UInt32(buffer.count))
                return tls.crtImport(crt, &datum, GNUTLS_X509_FMT_DER)
            }
            guard imported == 0 else { return false }
        }
        var output: UInt32 = 0
        let flags = GNUTLS_VERIFY_DISABLE_TIME_CHECKS.rawValue | GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS.rawValue
        let status = handles.withUnsafeMutableBufferPointer { buffer in
            tls.trustListVerify(trust, buffer.baseAddress, UInt32(buffer.count), nil, 0, flags, &output, nil)
        }
        return status == 0 && output == 0
    }
}

/// Whether an attestation chain (leaf first, DER) leads to one of the PEM
/// `roots` at `now`: `X509Certificate.chainIsTrusted` on certificates not yet read.
package enum AttestationChain {
    /// - Throws: `invalidArgument` for a certificate GnuTLS cannot read; `crypto` if GnuTLS cannot be loaded.
    package static func isTrusted(_ chain: [[UInt8]], roots: [String], now: Int64) throws(MFAError) -> Bool {
        var certificates: [X509Certificate] = []
        for der in chain { certificates.append(try X509Certificate(der: der)) }
        return try X509Certificate.chainIsTrusted(certificates, roots: roots, now: now)
    }
}
