/// Reads CSV records `uid,secret,issuer,digits,period,algorithm,email`: the
/// secret in base32; issuer, digits, period and algorithm may be left blank
/// (no display name, 6, 30, SHA1) or left off. An `email` field imports the
/// address as an email factor of the user (as verified by the system the
/// file comes from: no code is sent), beside the line's authenticator app
/// if it has a secret too; a line whose secret is blank imports the address
/// alone. Records are read by `CSVReader` (RFC 4180 quoting, any line break).
///
/// The first record that is not blank or a comment may be a header: when
/// every field names a column (case and surrounding blanks aside), each at
/// most once, uid among them and secret or email, it is skipped and gives
/// the order of the columns (`secret,uid` is read as such). A first record that starts
/// with `uid` but is not such a header is reported as failed. Without a
/// header, a uid that is itself a base32 secret (a digit among 16 or more
/// base32 characters of one case, decoding to 10 to 128 bytes) is refused:
/// the columns are swapped, and the line would make a user named by its
/// secret. A header `uid,secret` says the order is meant, and lifts it.
enum CSVLineParser {
    /// The columns, in the order a file without a header gives them.
    enum Column: String, CaseIterable {
        case uid, secret, issuer, digits, period, algorithm, email
    }

    /// The default order.
    static let columns = Column.allCases

    /// The columns a header names, or nil if `fields` is not a header.
    static func header(_ fields: [String]) -> [Column]? {
        var named: [Column] = []
        for field in fields {
            guard let column = Column(rawValue: field.lowercased()), !named.contains(column) else { return nil }
            named.append(column)
        }
        return named.contains(.uid) && (named.contains(.secret) || named.contains(.email)) ? named : nil
    }

    /// What a record gives, its columns in `columns` order.
    static func parse(_ fields: [String], line: Int, columns: [Column], headed: Bool = false) -> ParsedLine {
        guard fields.count >= 2, fields.count <= columns.count else {
            let names = columns.map(\.rawValue).joined(separator: ",")
            return .failed(line, nil, "a line has 2 to \(columns.count) fields separated by commas: \(names)")
        }
        var value: [Column: String] = [:]
        for (column, field) in zip(columns, fields) { value[column] = field }
        let uidField = value[.uid] ?? ""
        let uid: String
        switch ImportChecks.uid(uidField) {
        case .failure(let problem): return .failed(line, nil, problem.reason)
        case .success(let checked): uid = checked
        }
        if !headed && isBase32Secret(uid) {
            return .failed(line, nil, "the uid is a base32 secret: are the columns swapped? (a first line uid,secret names them)")
        }
        let displayName: String?
        switch ImportChecks.displayName(value[.issuer]) {
        case .failure(let problem): return .failed(line, uid, problem.reason)
        case .success(let name): displayName = name
        }
        var email: ImportCandidate?
        if let address = value[.email], !address.isEmpty {
            guard EmailAddress.isValid(address) else {
                return .failed(line, uid, "the email field is not an address (local@domain in ASCII, at most 254 bytes)")
            }
            var candidate = ImportCandidate(line: line, uid: uid, secret: [], parameters: .standard,
                                            displayName: displayName)
            candidate.email = EmailAddress.normalized(address)
            email = candidate
        }
        guard let secretField = value[.secret], !(secretField.isEmpty && email != nil) else {
            if let email { return .factor(email) }
            return .failed(line, uid, "the line has no secret field")
        }
        let secret: [UInt8]
        do {
            secret = try Base32.decode(secretField.filter { $0 != " " })
        } catch {
            return .failed(line, uid, "the secret is not base32")
        }
        if let problem = ImportChecks.secretProblem(secret) { return .failed(line, uid, problem) }
        var parameters = TOTPParameters.standard
        if let text = value[.digits], !text.isEmpty {
            guard let digits = Int(text), OTPLimits.digits.contains(digits) else {
                return .failed(line, uid, "digits must be 6 to 8")
            }
            parameters.digits = digits
        }
        if let text = value[.period], !text.isEmpty {
            guard let period = Int64(text), OTPLimits.period.contains(period) else {
                return .failed(line, uid, "period must be 1 to 31536000 seconds")
            }
            parameters.period = period
        }
        if let text = value[.algorithm], !text.isEmpty {
            guard let algorithm = OTPAlgorithm(name: text) else {
                return .failed(line, uid, "algorithm must be SHA1, SHA256 or SHA512")
            }
            parameters.algorithm = algorithm
        }
        let app = ImportCandidate(line: line, uid: uid, secret: secret, parameters: parameters,
                                  displayName: displayName)
        guard let email else { return .factor(app) }
        return .factors([app, email])
    }

    /// Whether `text`, spaces aside, is a base32 secret as apps and exports
    /// write one: 16 or more characters of one case with a digit (2-7)
    /// among them, decoding to 10 to 128 bytes.
    static func isBase32Secret(_ text: String) -> Bool {
        let compact = text.utf8.filter { $0 != 0x20 }
        guard compact.count >= ImportChecks.secretRun else { return false }
        let upper = compact.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x32 && $0 <= 0x37) || $0 == 0x3D }
        let lower = compact.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x32 && $0 <= 0x37) || $0 == 0x3D }
        guard upper || lower, compact.contains(where: { $0 >= 0x32 && $0 <= 0x37 }),
              let bytes = try? Base32.decode(String(decoding: compact, as: UTF8.self)) else { return false }
        return MFAContext.importSecretBytes.contains(bytes.count)
    }
}

/// The records of a CSV file as an importer reads them: the header found
/// and skipped, each record parsed in its columns' order.
struct CSVImportReader: ImportReader {
    private var reader: CSVReader
    private var columns = CSVLineParser.columns
    private var headed = false
    private var sawData = false

    init(_ text: Substring) {
        reader = CSVReader(text)
    }

    var atEnd: Bool { reader.atEnd }

    mutating func next() -> ImportRecord? {
        guard let record = reader.next() else { return nil }
        let parsed: ParsedLine
        switch record.kind {
        case .skip:
            parsed = .skip
        case .unclosedQuote:
            sawData = true
            parsed = .failed(record.line, nil, record.lastLine > record.line
                ? "a quoted field is not closed (it runs to the end of the file: lines \(record.line) to \(record.lastLine) were read as one)"
                : "a quoted field is not closed")
        case .fields(let fields):
            if !sawData {
                sawData = true
                if let named = CSVLineParser.header(fields) {
                    columns = named
                    headed = true
                    return ImportRecord(line: record.line, lastLine: record.lastLine, parsed: .skip)
                }
                if fields[0].lowercased() == CSVLineParser.Column.uid.rawValue {
                    return ImportRecord(line: record.line, lastLine: record.lastLine, parsed: .failed(
                        record.line, nil, "a header names each column once, uid and secret (or email) among them, from: "
                            + CSVLineParser.columns.map(\.rawValue).joined(separator: ",")))
                }
            }
            parsed = CSVLineParser.parse(fields, line: record.line, columns: columns, headed: headed)
        }
        return ImportRecord(line: record.line, lastLine: record.lastLine, parsed: parsed)
    }
}
