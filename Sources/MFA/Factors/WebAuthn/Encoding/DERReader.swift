/// A reader of DER (X.690) for the structures inside attestation
/// certificates that GnuTLS does not interpret: extensions' values (the
/// Android key description, Apple's nonce, a TPM's subject alternative
/// name) and the fields of a certificate's `TBSCertificate`.
///
/// Each call reads one element in time linear in its header; nothing is
/// copied until a caller asks for a value's bytes, and nesting is followed
/// only as deep as the caller goes (each structure read here is at most five
/// levels deep), so reading is linear in the input. Definite lengths only
/// (DER has no others), in their shortest form; tag numbers up to 2^21.
struct DERReader {
    /// One element: its tag and its contents.
    struct Element {
        /// The class: 0 universal, 1 application, 2 context-specific, 3 private.
        var tagClass: UInt8
        /// Whether it is constructed (its contents are elements).
        var constructed: Bool
        /// The tag number.
        var number: Int
        /// The contents.
        var contents: ArraySlice<UInt8>

        /// A reader of the contents (for a constructed element).
        var reader: DERReader { DERReader(contents) }

        /// Whether this is the universal tag `number`.
        func isUniversal(_ number: Int) -> Bool { tagClass == 0 && self.number == number }

        /// Whether this is the context-specific tag `[number]`.
        func isContext(_ number: Int) -> Bool { tagClass == 2 && self.number == number }
    }

    /// Universal tag numbers used here.
    enum Tag {
        static let boolean = 1
        static let integer = 2
        static let bitString = 3
        static let octetString = 4
        static let null = 5
        static let oid = 6
        static let enumerated = 10
        static let utf8String = 12
        static let sequence = 16
        static let set = 17
        static let printableString = 19
    }

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    /// Whether every element was read.
    var isAtEnd: Bool { bytes.isEmpty }

    /// The next element, or nil when none is left.
    /// - Throws: `invalidArgument` for a malformed header or a length past the end.
    mutating func next() throws(MFAError) -> Element? {
        guard let first = bytes.first else { return nil }
        var index = bytes.startIndex + 1
        let end = bytes.endIndex
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "attestation DER: \(why)") }
        var number = Int(first & 0x1f)
        if number == 0x1f {
            number = 0
            var digits = 0
            while true {
                guard index < end, digits < 3 else { throw fail("a tag number is cut short or too large") }
                let byte = bytes[index]
                guard digits > 0 || byte != 0x80 else { throw fail("a tag number is not in its shortest form") }
                number = number << 7 | Int(byte & 0x7f)
                index += 1
                digits += 1
                if byte & 0x80 == 0 { break }
            }
        }
        guard index < end else { throw fail("an element has no length") }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count >= 1, count <= 4, end - index >= count else {
                throw fail("an element's length is indefinite, cut short or too large")
            }
            length = 0
            for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
            guard length >= 0x80, count == 1 || bytes[index] != 0 else {
                throw fail("an element's length is not in its shortest form")
            }
            index += count
        }
        guard end - index >= length else { throw fail("an element is longer than what holds it") }
        let element = Element(tagClass: first >> 6, constructed: first & 0x20 != 0, number: number,
                              contents: bytes[index..<index + length])
        bytes = bytes[(index + length)...]
        return element
    }

    /// The next element, which must be there.
    mutating func expect(_ what: String) throws(MFAError) -> Element {
        guard let element = try next() else {
            throw MFAError(.invalidArgument, "attestation DER: \(what) is missing")
        }
        return element
    }

    /// The dotted text of an OBJECT IDENTIFIER's contents ("1.2.840.113635.100.8.2"), or nil if malformed.
    static func oid(_ contents: ArraySlice<UInt8>) -> String? {
        guard !contents.isEmpty, contents.count <= 64, let last = contents.last, last & 0x80 == 0 else { return nil }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var started = false
        for byte in contents {
            guard started || byte != 0x80 else { return nil }
            guard value >> 56 == 0 else { return nil }
            value = value << 7 | UInt64(byte & 0x7f)
            started = byte & 0x80 != 0
            if !started {
                arcs.append(value)
                value = 0
            }
        }
        let first = arcs[0]
        let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }

    /// The value of a non-negative INTEGER's contents that fits in an Int, or nil.
    static func integer(_ contents: ArraySlice<UInt8>) -> Int? {
        guard let first = contents.first, first & 0x80 == 0, contents.count <= 8 else { return nil }
        return contents.reduce(0) { $0 << 8 | Int($1) }
    }
}
