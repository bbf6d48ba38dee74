/// One factor (or unassigned hardware token) an importer read, ready to store.
struct ImportCandidate {
    /// The line it came from.
    var line: Int
    /// The user, or nil for a hardware token stored unassigned (it needs a serial).
    var uid: String?
    /// The kind, key and settings.
    var seed: HardwareTokenSeed
    var displayName: String?
    /// Recovery codes to store with it (google-authenticator scratch codes),
    /// each with its line.
    var recoveryCodes: [(line: Int, code: String)] = []
    /// What the report of its line says beside "imported".
    var note: String?
    /// The last code the other system accepted, and when (pam_oath's users
    /// file, TOTP): the step it belongs to is looked for at the import's
    /// time and counted as used (`OathLastUse`).
    var lastUse: OathLastUse?
    /// An email address to import as an email factor (then `secret` is empty), normalised.
    var email: String?

    /// A candidate of any kind.
    init(line: Int, uid: String?, seed: HardwareTokenSeed, displayName: String?) {
        self.line = line
        self.uid = uid
        self.seed = seed
        self.displayName = displayName
    }

    /// A TOTP factor for an authenticator app; `lastStep` is the last time
    /// step used before the import (-1: none), so a code used just before
    /// cannot be replayed after.
    init(line: Int, uid: String, secret: [UInt8], parameters: TOTPParameters, displayName: String?,
         lastStep: Int64 = -1, recoveryCodes: [(line: Int, code: String)] = []) {
        var seed = HardwareTokenSeed(kind: .totp, secret: secret, counter: lastStep)
        seed.algorithm = parameters.algorithm
        seed.digits = parameters.digits
        seed.period = parameters.period
        self.init(line: line, uid: uid, seed: seed, displayName: displayName)
        self.recoveryCodes = recoveryCodes
    }

    /// A TOTP candidate's code parameters.
    var parameters: TOTPParameters {
        TOTPParameters(algorithm: seed.algorithm, digits: seed.digits, period: seed.period)
    }
}

/// One record of a file (a line, or a CSV record that spans lines) and what
/// its parser made of it.
struct ImportRecord {
    /// The line it starts on, from 1.
    var line: Int
    /// The line it ends on.
    var lastLine: Int
    var parsed: ParsedLine
}

/// Reads a file record by record, for `MFAContext.importFactors`.
protocol ImportReader {
    /// Whether every record has been read.
    var atEnd: Bool { get }
    /// The next record, or nil after the last.
    mutating func next() -> ImportRecord?
}

/// The lines of a file, each parsed on its own (otpauth URIs, users files).
struct LineImportReader: ImportReader {
    private var cursor: LineCursor
    private var line = 0
    private let parse: (Substring, Int) -> ParsedLine

    init(_ text: Substring, _ parse: @escaping (Substring, Int) -> ParsedLine) {
        cursor = LineCursor(text)
        self.parse = parse
    }

    var atEnd: Bool { cursor.atEnd }

    mutating func next() -> ImportRecord? {
        guard let text = cursor.next() else { return nil }
        line += 1
        return ImportRecord(line: line, lastLine: line, parsed: parse(text, line))
    }
}

/// What a parser made of one line.
enum ParsedLine {
    /// A factor to import.
    case factor(ImportCandidate)
    /// Factors to import from one line (a CSV line's app and email address), each reported.
    case factors([ImportCandidate])
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
