/// The two TPM 2.0 structures of a `tpm` attestation statement (TPM 2.0
/// Library, Part 2): `pubArea`, the credential key as the TPM holds it
/// (`TPMT_PUBLIC`), and `certInfo`, what the TPM signed about it
/// (`TPMS_ATTEST` of a `TPM2_Certify`). Both are read field by field, in
/// time linear in their size, and must end where their last field does.
enum TPMStructures {
    /// TPM algorithm ids (`TPM_ALG_ID`) used here.
    enum Alg {
        static let rsa: UInt16 = 0x0001
        static let sha1: UInt16 = 0x0004
        static let xor: UInt16 = 0x000A
        static let sha256: UInt16 = 0x000B
        static let sha384: UInt16 = 0x000C
        static let sha512: UInt16 = 0x000D
        static let null: UInt16 = 0x0010
        static let rsaes: UInt16 = 0x0015
        static let ecdaa: UInt16 = 0x001A
        static let ecc: UInt16 = 0x0023
    }

    /// The digest of a TPM hash algorithm id, or nil.
    static func digest(_ alg: UInt16) -> Digest? {
        switch alg {
        case Alg.sha1: .sha1
        case Alg.sha256: .sha256
        case Alg.sha384: .sha384
        case Alg.sha512: .sha512
        default: nil
        }
    }

    /// A `TPMT_PUBLIC`: its name algorithm and its key.
    struct Public {
        var nameAlg: UInt16
        /// An RSA key (modulus, exponent; 0 means 65537) or an ECC point on `curve`.
        var key: Key

        enum Key {
            case rsa(modulus: [UInt8], exponent: UInt32)
            case ecc(curve: UInt16, x: [UInt8], y: [UInt8])
        }
    }

    /// A `TPMS_ATTEST` of type `TPM_ST_ATTEST_CERTIFY`: what the checks need.
    struct Attest {
        var extraData: [UInt8]
        /// The certified object's name: its name algorithm, then its digest.
        var name: [UInt8]
    }

    /// A big-endian reader of TPM structures.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0

        mutating func u8() throws(MFAError) -> UInt8 {
            guard index < bytes.count else { throw TPMStructures.short }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func u16() throws(MFAError) -> UInt16 {
            UInt16(try u8()) << 8 | UInt16(try u8())
        }

        mutating func u32() throws(MFAError) -> UInt32 {
            UInt32(try u16()) << 16 | UInt32(try u16())
        }

        mutating func skip(_ count: Int) throws(MFAError) {
            guard bytes.count - index >= count else { throw TPMStructures.short }
            index += count
        }

        /// A `TPM2B_*`: a 16-bit size, then that many bytes.
        mutating func sized() throws(MFAError) -> [UInt8] {
            let count = Int(try u16())
            guard bytes.count - index >= count else { throw TPMStructures.short }
            defer { index += count }
            return Array(bytes[index..<index + count])
        }

        var atEnd: Bool { index == bytes.count }
    }

    private static let short = MFAError(.invalidArgument, "attStmt: a TPM structure is cut short")

    /// Reads `pubArea`.
    static func readPublic(_ bytes: [UInt8]) throws(MFAError) -> Public {
        var cursor = Cursor(bytes: bytes)
        let type = try cursor.u16()
        let nameAlg = try cursor.u16()
        try cursor.skip(4) // objectAttributes
        _ = try cursor.sized() // authPolicy
        // parameters: the symmetric definition, the scheme, then the type's own.
        let symmetric = try cursor.u16()
        if symmetric == Alg.xor {
            try cursor.skip(2)
        } else if symmetric != Alg.null {
            try cursor.skip(4)
        }
        let scheme = try cursor.u16()
        if scheme == Alg.ecdaa {
            try cursor.skip(4)
        } else if scheme != Alg.null && scheme != Alg.rsaes {
            try cursor.skip(2)
        }
        let key: Public.Key
        switch type {
        case Alg.rsa:
            try cursor.skip(2) // keyBits
            let exponent = try cursor.u32()
            key = .rsa(modulus: try cursor.sized(), exponent: exponent)
        case Alg.ecc:
            let curve = try cursor.u16()
            let kdf = try cursor.u16()
            if kdf != Alg.null { try cursor.skip(2) }
            let x = try cursor.sized()
            key = .ecc(curve: curve, x: x, y: try cursor.sized())
        default:
            throw MFAError(.invalidArgument, "attStmt: pubArea holds neither an RSA nor an ECC key")
        }
        guard cursor.atEnd else { throw MFAError(.invalidArgument, "attStmt: bytes after pubArea's key") }
        return Public(nameAlg: nameAlg, key: key)
    }

    /// `TPM_GENERATED_VALUE`.
    static let generated: UInt32 = 0xff54_4347
    /// `TPM_ST_ATTEST_CERTIFY`.
    static let certify: UInt16 = 0x8017

    /// Reads `certInfo`: its magic and type must be a TPM's certification.
    static func readAttest(_ bytes: [UInt8]) throws(MFAError) -> Attest {
        var cursor = Cursor(bytes: bytes)
        guard try cursor.u32() == generated else {
            throw MFAError(.invalidVerificationCode, "attStmt: certInfo was not made by a TPM (magic)")
        }
        guard try cursor.u16() == certify else {
            throw MFAError(.invalidVerificationCode, "attStmt: certInfo is not a certification (type)")
        }
        _ = try cursor.sized() // qualifiedSigner
        let extraData = try cursor.sized()
        try cursor.skip(17) // clockInfo: clock, resetCount, restartCount, safe
        try cursor.skip(8) // firmwareVersion
        let name = try cursor.sized()
        _ = try cursor.sized() // qualifiedName
        guard cursor.atEnd else { throw MFAError(.invalidArgument, "attStmt: bytes after certInfo's fields") }
        return Attest(extraData: extraData, name: name)
    }
}
