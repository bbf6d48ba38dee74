import CHogweed

/// The DER `ECDSA-Sig-Value` (`SEQUENCE { r INTEGER, s INTEGER }`, RFC 3279)
/// that WebAuthn's ECDSA signatures are, read with nettle's DER iterator.
///
/// Strict DER, as the other verifiers in use read it: one sequence with
/// nothing after it, two positive integers in their shortest form.
enum DERSignature {
    /// The big-endian magnitudes of r and s, each at most `maxBytes` long
    /// (32 for P-256, 48 for P-384, 66 for P-521), or nil if `der` is not a
    /// strict `ECDSA-Sig-Value`.
    static func integers(_ der: [UInt8], maxBytes: Int = 32) -> (r: [UInt8], s: [UInt8])? {
        guard !der.isEmpty, der.count <= 2 * maxBytes + 16 else { return nil }
        return der.withUnsafeBufferPointer { buffer -> (r: [UInt8], s: [UInt8])? in
            var outer = asn1_der_iterator()
            guard nettle_asn1_der_iterator_first(&outer, buffer.count, buffer.baseAddress) == ASN1_ITERATOR_CONSTRUCTED,
                  outer.type == ASN1_SEQUENCE, outer.pos == buffer.count else { return nil }
            var inner = asn1_der_iterator()
            guard nettle_asn1_der_decode_constructed(&outer, &inner) == ASN1_ITERATOR_PRIMITIVE,
                  inner.type == ASN1_INTEGER, let r = magnitude(inner, maxBytes),
                  nettle_asn1_der_iterator_next(&inner) == ASN1_ITERATOR_PRIMITIVE,
                  inner.type == ASN1_INTEGER, let s = magnitude(inner, maxBytes),
                  nettle_asn1_der_iterator_next(&inner) == ASN1_ITERATOR_END else { return nil }
            return (r, s)
        }
    }

    /// The value of a positive INTEGER in its shortest encoding, without the sign byte.
    private static func magnitude(_ item: asn1_der_iterator, _ maxBytes: Int) -> [UInt8]? {
        guard item.length >= 1, item.length <= maxBytes + 1, let data = item.data else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: data, count: item.length))
        guard bytes[0] & 0x80 == 0 else { return nil } // negative
        if bytes[0] == 0 {
            guard bytes.count > 1, bytes[1] & 0x80 != 0 else { return nil } // a needless leading zero
            return Array(bytes.dropFirst())
        }
        return bytes
    }
}
