/// Reads the CSV lines YubiKeys are programmed with, as unassigned Yubico
/// OTP tokens (no line names a user: an operator assigns each by serial).
///
/// Two shapes, told apart by their first field:
/// - the "Yubico format" of the YubiKey Manager (`ykman otp yubiotp
///   --config-output FILE`) and of the YubiKey Personalization Tool:
///   `serial,public id,private id,AES key,access code,time,`. A key whose
///   serial is not readable (an empty or `None` serial) is known by its
///   public id.
/// - the Personalization Tool's "traditional format" log: `Yubico
///   OTP,time,slot,public id,private id,AES key,...`; its keys are known by
///   their public id. Its lines for other slot types (OATH-HOTP,
///   challenge-response, static passwords) are reported as unsupported, and
///   its `LOGGING START` lines are skipped.
///
/// The public id is modhex, the private id (6 bytes) and the key (16 bytes)
/// hexadecimal, spaces between bytes allowed. Nothing of a line is quoted
/// in a report: the serial (or public id) names the token.
enum YubiKeyCSVParser {
    static func parse(_ fields: [String], line: Int) -> ParsedLine {
        let first = fields[0].trimmingSpaces
        if first.uppercased().hasPrefix("LOGGING START") { return .skip }
        let serial: String?
        let ids: ArraySlice<String>
        if first.caseInsensitiveEquals("Yubico OTP") {
            guard fields.count >= 6 else {
                return .failed(line, nil, "a Yubico OTP line of the Personalization Tool's log has at least 6 fields")
            }
            serial = nil
            ids = fields[3..<6]
        } else if ["OATH-HOTP", "CHALLENGE-RESPONSE", "STATIC PASSWORD", "STATIC"].contains(first.uppercased()) {
            return .unsupported(line, nil, "only Yubico OTP slots are imported from this file (this line programs another kind of slot)")
        } else {
            guard fields.count >= 4 else {
                return .failed(line, nil, "a line has at least 4 fields: serial, public id, private id, AES key")
            }
            guard first.isEmpty || first == "None" || (first.utf8.count <= 20 && first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })) else {
                return .failed(line, nil, "the first field must be a YubiKey's serial number or \"Yubico OTP\"")
            }
            serial = first.isEmpty || first == "None" ? nil : first
            ids = fields[1..<4]
        }
        let publicID = ids[ids.startIndex].compacted.lowercased()
        guard YubicoOTP.isPublicID(publicID) else {
            return .failed(line, nil, "the public id must be 2 to 32 modhex characters (cbdefghijklnrtuv)")
        }
        guard let privateID = ImportText.hex(Substring(ids[ids.startIndex + 1].compacted)),
              privateID.count == YubicoOTP.privateIDBytes else {
            return .failed(line, nil, "the private id must be 12 hexadecimal digits")
        }
        guard let key = ImportText.hex(Substring(ids[ids.startIndex + 2].compacted)), key.count == YubicoOTP.keyBytes else {
            return .failed(line, nil, "the AES key must be 32 hexadecimal digits")
        }
        var seed = HardwareTokenSeed(kind: .yubicoOTP, secret: key)
        seed.privateID = privateID
        seed.publicID = publicID
        seed.serial = serial ?? publicID
        seed.hardware = true
        var candidate = ImportCandidate(line: line, uid: nil, seed: seed, displayName: nil)
        if serial == nil { candidate.note = "known by its public id (the line gives no serial number)" }
        return .factor(candidate)
    }
}

/// The records of a YubiKey CSV file as an importer reads them.
struct YubiKeyCSVReader: ImportReader {
    private var reader: CSVReader

    init(_ text: Substring) {
        reader = CSVReader(text)
    }

    var atEnd: Bool { reader.atEnd }

    mutating func next() -> ImportRecord? {
        guard let record = reader.next() else { return nil }
        let parsed: ParsedLine
        switch record.kind {
        case .skip: parsed = .skip
        case .unclosedQuote: parsed = .failed(record.line, nil, "a quoted field is not closed")
        case .fields(let fields): parsed = YubiKeyCSVParser.parse(fields, line: record.line)
        }
        return ImportRecord(line: record.line, lastLine: record.lastLine, parsed: parsed)
    }
}

private extension String {
    /// Without spaces and tabs around it.
    var trimmingSpaces: String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Without any space (the Personalization Tool writes bytes apart).
    var compacted: String { String(decoding: utf8.filter { $0 != 0x20 }, as: UTF8.self) }

    /// Whether it equals `other`, ASCII case aside.
    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
