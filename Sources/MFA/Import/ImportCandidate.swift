/// One factor an importer read from a line, ready to store.
struct ImportCandidate {
    /// The line it came from.
    var line: Int
    var uid: String
    var secret: [UInt8]
    var parameters: TOTPParameters
    var displayName: String?
    /// The last time step used before the import (-1: none), so a code used
    /// just before cannot be replayed after.
    var lastStep: Int64 = -1
    /// Recovery codes to store with it (google-authenticator scratch codes),
    /// each with its line.
    var recoveryCodes: [(line: Int, code: String)] = []
    /// What the report of its line says beside "imported".
    var note: String?
}

/// What a parser made of one line.
enum ParsedLine {
    /// A factor to import.
    case factor(ImportCandidate)
    /// A report with no factor (a blank line or comment is `skip`).
    case report(ImportLineReport)
    /// Nothing to say (blank line, comment, header).
    case skip

    static func failed(_ line: Int, _ uid: String?, _ reason: String) -> ParsedLine {
        .report(ImportLineReport(line: line, uid: uid, outcome: .failed, reason: reason))
    }

    static func unsupported(_ line: Int, _ uid: String?, _ reason: String) -> ParsedLine {
        .report(ImportLineReport(line: line, uid: uid, outcome: .unsupported, reason: reason))
    }
}

/// Checks shared by every importer.
enum ImportChecks {
    /// The uid, checked, or the reason it is refused.
    static func uid(_ text: some StringProtocol) -> String? {
        let uid = String(text)
        return uid.isEmpty || uid.utf8.count > MFAUser.maxIdentifierBytes ? nil : uid
    }

    /// A display name from an issuer: nil if none or longer than 256 bytes.
    static func displayName(_ issuer: String?) -> String? {
        guard let issuer, !issuer.isEmpty, issuer.utf8.count <= 256 else { return nil }
        return issuer
    }

    /// A reason to refuse `secret`, or nil.
    static func secretProblem(_ secret: [UInt8]) -> String? {
        MFAContext.importSecretBytes.contains(secret.count) ? nil
            : "the secret is \(secret.count) bytes; an imported secret must be 10 to 128 bytes"
    }
}
