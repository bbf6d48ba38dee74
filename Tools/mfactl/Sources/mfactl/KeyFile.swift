import MFA

/// The master key file, as every libmfa tool reads it: mfactl here, and
/// `pam_mfa.so` and `mfa-enroll` in `pam/key_file.c`, with the same rules.
///
/// A file of exactly 32 bytes is one raw key (`head -c 32 /dev/urandom`).
/// Any other file is text: one key per line, as 64 hexadecimal characters,
/// optionally preceded by its id and a colon (`2026-11:00ff…`) or by its id
/// and spaces or tabs (`2026-11 00ff…`, the PAM module's form). Lines may end
/// in LF or CRLF; blank lines and lines starting with `#` are skipped. The
/// first key is the current one; the others are earlier keys, still read
/// (rotation). A key without an id takes the default id (`--key-id`,
/// `MFA_MASTER_KEY_ID`; the PAM module's `key_id=`, `pam` unless set).
enum KeyFile {
    /// Largest key file read (the PAM module's limit too).
    static let maxBytes = 8192
    /// Most keys one file holds (the PAM module's limit too).
    static let maxKeys = 16

    /// One key of a file: its id if the file gives one, and its 32 bytes.
    struct Entry {
        var id: String?
        var key: [UInt8]
    }

    /// The keys of a file's bytes (or of an environment variable's text).
    /// - Throws: `Failure` (usage) naming `source` ("key file <path>") and
    ///   the line, never a key.
    static func parse(_ bytes: [UInt8], from source: String) throws -> [Entry] {
        if bytes.count == MasterKey.byteCount { return [Entry(id: nil, key: bytes)] }
        guard bytes.count <= maxBytes else { throw bad(source, "is larger than \(maxBytes) bytes") }
        var entries: [Entry] = []
        var number = 0
        for rawLine in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let fields = rawLine.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
            guard let first = fields.first, first.first != UInt8(ascii: "#") else { continue }
            let id: ArraySlice<UInt8>?
            let hex: ArraySlice<UInt8>
            switch fields.count {
            case 1:
                if let colon = first.lastIndex(of: UInt8(ascii: ":")) {
                    (id, hex) = (first[first.startIndex..<colon], first[(colon + 1)...])
                } else {
                    (id, hex) = (nil, first)
                }
            case 2:
                (id, hex) = (fields[0], fields[1])
            default:
                throw bad(source, "line \(number): a key line is <hex>, <id>:<hex> or <id> <hex>")
            }
            guard let key = decode(hex) else {
                throw bad(source, "line \(number): a key is 64 hexadecimal characters")
            }
            guard entries.count < maxKeys else { throw bad(source, "holds more than \(maxKeys) keys") }
            if let id {
                guard !id.isEmpty, id.count <= 64, id.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw bad(source, "line \(number): a key id is 1 to 64 printable ASCII characters")
                }
            }
            entries.append(Entry(id: id.map { String(decoding: $0, as: UTF8.self) }, key: key))
        }
        guard !entries.isEmpty else { throw bad(source, "holds no key") }
        return entries
    }

    private static func bad(_ source: String, _ what: String) -> Failure {
        Failure("\(source) \(what)", status: ExitStatus.usage)
    }

    /// 64 hexadecimal characters as 32 bytes.
    private static func decode(_ hex: ArraySlice<UInt8>) -> [UInt8]? {
        guard hex.count == 2 * MasterKey.byteCount else { return nil }
        return bytes(ofHex: hex)
    }

    /// Hexadecimal digits (an even number, either case) as bytes; nil for anything else.
    static func bytes(ofHex hex: ArraySlice<UInt8>) -> [UInt8]? {
        guard hex.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            guard let high = nibble(hex[index]), let low = nibble(hex[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
}
