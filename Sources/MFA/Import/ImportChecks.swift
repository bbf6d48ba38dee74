/// Checks shared by every importer.
enum ImportChecks {
    /// Why a field was refused.
    struct Problem: Error {
        let reason: String
    }

    /// The uid, checked as every uid entering libmfa is (1 to 128 bytes, no
    /// control character), or why it is refused. The reason never quotes it.
    static func uid(_ text: some StringProtocol, named name: String = "the uid") -> Result<String, Problem> {
        let uid = String(text)
        guard !uid.isEmpty, uid.utf8.count <= MFAUser.maxIdentifierBytes else {
            return .failure(Problem(reason: "\(name) must be 1 to 128 bytes"))
        }
        guard !IdentifierText.hasControlCharacter(uid) else {
            return .failure(Problem(
                reason: "\(name) holds a control character (\(IdentifierText.refused))"))
        }
        return .success(uid)
    }

    /// A display name from an issuer: nil if none or longer than 256 bytes;
    /// refused if it holds a control character.
    static func displayName(_ issuer: String?) -> Result<String?, Problem> {
        guard let issuer, !issuer.isEmpty, issuer.utf8.count <= 256 else { return .success(nil) }
        guard !IdentifierText.hasControlCharacter(issuer) else {
            return .failure(Problem(reason: "the issuer (the factor's name) holds a control character"))
        }
        return .success(issuer)
    }

    /// A reason to refuse `secret`, or nil.
    static func secretProblem(_ secret: [UInt8]) -> String? {
        MFAContext.importSecretBytes.contains(secret.count) ? nil
            : "the secret is \(secret.count) bytes; an imported secret must be 10 to 128 bytes"
    }

    /// The shortest run of base32 or hexadecimal characters taken for a secret.
    static let secretRun = 16

    /// Whether `text` may hold a secret: spaces aside (a secret is often
    /// written in groups), 16 or more characters in a row are base32 in one
    /// case (A-Z and 2-7, or a-z and 2-7, with `=`) or hexadecimal. Such a
    /// text is never put in a report: a swapped column, a line holding only
    /// its secret or a missing separator would print the secret. (A long
    /// name of letters alone is held back too; the line number still says
    /// which line it is. Mixed-case ids, such as Firebase's, are shown.)
    static func mayHoldSecret(_ text: some StringProtocol) -> Bool {
        var upperRun = 0
        var lowerRun = 0
        var hexRun = 0
        for byte in text.utf8 where byte != 0x20 {
            let isBase32Digit = (byte >= 0x32 && byte <= 0x37) || byte == UInt8(ascii: "=")
            let isUpper = byte >= 0x41 && byte <= 0x5A
            let isLower = byte >= 0x61 && byte <= 0x7A
            let isHex = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
            upperRun = isUpper || isBase32Digit ? upperRun + 1 : 0
            lowerRun = isLower || isBase32Digit ? lowerRun + 1 : 0
            hexRun = isHex ? hexRun + 1 : 0
            if upperRun >= secretRun || lowerRun >= secretRun || hexRun >= secretRun { return true }
        }
        return false
    }

    /// `report` as it may be shown: its uid and serial left out unless they
    /// cannot be a secret. Every report of every importer passes here.
    static func shown(_ report: ImportLineReport) -> ImportLineReport {
        let hideUID = report.uid.map { mayHoldSecret($0) || IdentifierText.hasControlCharacter($0) } ?? false
        let hideSerial = report.serial.map { mayHoldSecret($0) || IdentifierText.hasControlCharacter($0) } ?? false
        guard hideUID || hideSerial else { return report }
        return ImportLineReport(line: report.line, uid: hideUID ? nil : report.uid, outcome: report.outcome,
                                reason: report.reason, enrollmentID: report.enrollmentID,
                                serial: hideSerial ? nil : report.serial)
    }
}
