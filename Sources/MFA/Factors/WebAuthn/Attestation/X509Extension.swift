/// One extension of an attestation certificate, and the reading of a
/// certificate's extensions and subject from its DER (after GnuTLS has
/// accepted the certificate as a whole).
struct X509Extension: Sendable {
    /// Whether the extension is marked critical.
    var critical: Bool
    /// Its value: the contents of its `extnValue` OCTET STRING.
    var value: ArraySlice<UInt8>

    /// The most extensions read from one certificate.
    static let maxExtensions = 64

    /// Whether `der`'s subject is an empty name, and its extensions by OID.
    /// - Throws: `invalidArgument` for a certificate whose structure is not
    ///   as RFC 5280 lays it out, or that repeats an extension.
    static func read(_ der: [UInt8]) throws(MFAError) -> (subjectIsEmpty: Bool, extensions: [String: X509Extension]) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "attestation certificate: \(why)") }
        var outer = DERReader(der)
        let certificate = try outer.expect("the certificate")
        guard certificate.isUniversal(DERReader.Tag.sequence) else { throw fail("not a SEQUENCE") }
        var fields = certificate.reader
        let tbs = try fields.expect("tbsCertificate")
        guard tbs.isUniversal(DERReader.Tag.sequence) else { throw fail("tbsCertificate is not a SEQUENCE") }
        var reader = tbs.reader
        // [0] version (optional), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        if try reader.expect("the serial number").isContext(0) { _ = try reader.expect("the serial number") }
        _ = try reader.expect("the signature algorithm")
        _ = try reader.expect("the issuer")
        _ = try reader.expect("the validity")
        let subject = try reader.expect("the subject")
        guard subject.isUniversal(DERReader.Tag.sequence) else { throw fail("the subject is not a Name") }
        _ = try reader.expect("the subject public key")
        var extensions: [String: X509Extension] = [:]
        while let item = try reader.next() {
            guard item.isContext(3) else { continue } // issuerUniqueID, subjectUniqueID
            var wrapper = item.reader
            let list = try wrapper.expect("the extensions")
            guard list.isUniversal(DERReader.Tag.sequence), wrapper.isAtEnd else {
                throw fail("the extensions are not a SEQUENCE")
            }
            var entries = list.reader
            while let entry = try entries.next() {
                guard extensions.count < maxExtensions else { throw fail("more than \(maxExtensions) extensions") }
                guard entry.isUniversal(DERReader.Tag.sequence) else { throw fail("an extension is not a SEQUENCE") }
                var parts = entry.reader
                let id = try parts.expect("an extension's OID")
                guard id.isUniversal(DERReader.Tag.oid), let oid = DERReader.oid(id.contents) else {
                    throw fail("an extension's id is not an OID")
                }
                var next = try parts.expect("an extension's value")
                var critical = false
                if next.isUniversal(DERReader.Tag.boolean) {
                    critical = next.contents.first.map { $0 != 0 } ?? false
                    next = try parts.expect("an extension's value")
                }
                guard next.isUniversal(DERReader.Tag.octetString), parts.isAtEnd else {
                    throw fail("an extension's value is not an OCTET STRING")
                }
                guard extensions[oid] == nil else { throw fail("an extension is repeated") }
                extensions[oid] = X509Extension(critical: critical, value: next.contents)
            }
        }
        return (subject.contents.isEmpty, extensions)
    }

    /// The OIDs of the attribute types in the directory names of a
    /// subject alternative name extension's value (`GeneralNames`).
    static func directoryNameAttributes(_ value: ArraySlice<UInt8>) throws(MFAError) -> [String: [UInt8]] {
        func fail() -> MFAError {
            MFAError(.invalidArgument, "attestation certificate: the subject alternative name is malformed")
        }
        var outer = DERReader(value)
        let names = try outer.expect("the subject alternative names")
        guard names.isUniversal(DERReader.Tag.sequence), outer.isAtEnd else { throw fail() }
        var attributes: [String: [UInt8]] = [:]
        var list = names.reader
        while let name = try list.next() {
            guard name.isContext(4), name.constructed else { continue } // directoryName [4] EXPLICIT Name
            var wrapper = name.reader
            let rdnSequence = try wrapper.expect("a directory name")
            guard rdnSequence.isUniversal(DERReader.Tag.sequence) else { throw fail() }
            var rdns = rdnSequence.reader
            while let rdn = try rdns.next() {
                guard rdn.isUniversal(DERReader.Tag.set) else { throw fail() }
                var pairs = rdn.reader
                while let pair = try pairs.next() {
                    guard pair.isUniversal(DERReader.Tag.sequence) else { throw fail() }
                    var fields = pair.reader
                    let type = try fields.expect("an attribute's type")
                    let value = try fields.expect("an attribute's value")
                    guard type.isUniversal(DERReader.Tag.oid), let oid = DERReader.oid(type.contents) else {
                        throw fail()
                    }
                    attributes[oid] = Array(value.contents)
                }
            }
        }
        return attributes
    }

    /// The OIDs of an extended key usage extension's value.
    static func keyPurposes(_ value: ArraySlice<UInt8>) throws(MFAError) -> [String] {
        var outer = DERReader(value)
        let list = try outer.expect("the extended key usage")
        guard list.isUniversal(DERReader.Tag.sequence), outer.isAtEnd else {
            throw MFAError(.invalidArgument, "attestation certificate: the extended key usage is malformed")
        }
        var reader = list.reader
        var purposes: [String] = []
        while let item = try reader.next() {
            guard item.isUniversal(DERReader.Tag.oid), let oid = DERReader.oid(item.contents) else {
                throw MFAError(.invalidArgument, "attestation certificate: the extended key usage is malformed")
            }
            purposes.append(oid)
        }
        return purposes
    }
}
