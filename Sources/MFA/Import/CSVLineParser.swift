/// Reads a CSV line `uid,secret,issuer,digits,period,algorithm`: the secret
/// in base32; issuer, digits, period and algorithm may be left blank (no
/// display name, 6, 30, SHA1) or left off. Fields may be quoted with `"`
/// (a quote inside doubled); a header line starting with `uid` is skipped.
enum CSVLineParser {
    static let columns = ["uid", "secret", "issuer", "digits", "period", "algorithm"]

    static func parse(_ text: Substring, line: Int) -> ParsedLine {
        let trimmed = ImportText.trimmed(text)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .skip }
        guard let fields = split(trimmed) else { return .failed(line, nil, "a quoted field is not closed") }
        if fields[0].lowercased() == "uid" { return .skip }
        guard let uid = ImportChecks.uid(fields[0]) else { return .failed(line, nil, "uid must be 1 to 128 bytes") }
        guard fields.count >= 2, fields.count <= columns.count else {
            return .failed(line, uid, "a line has 2 to 6 fields: \(columns.joined(separator: ","))")
        }
        let secret: [UInt8]
        do {
            secret = try Base32.decode(fields[1].filter { $0 != " " })
        } catch {
            return .failed(line, uid, "the secret is not base32")
        }
        if let problem = ImportChecks.secretProblem(secret) { return .failed(line, uid, problem) }
        var parameters = TOTPParameters.standard
        if fields.count > 3, !fields[3].isEmpty {
            guard let digits = Int(fields[3]), OTPLimits.digits.contains(digits) else {
                return .failed(line, uid, "digits must be 6 to 8")
            }
            parameters.digits = digits
        }
        if fields.count > 4, !fields[4].isEmpty {
            guard let period = Int64(fields[4]), OTPLimits.period.contains(period) else {
                return .failed(line, uid, "period must be 1 to 31536000 seconds")
            }
            parameters.period = period
        }
        if fields.count > 5, !fields[5].isEmpty {
            guard let algorithm = OTPAlgorithm(name: fields[5]) else {
                return .failed(line, uid, "algorithm must be SHA1, SHA256 or SHA512")
            }
            parameters.algorithm = algorithm
        }
        return .factor(ImportCandidate(line: line, uid: uid, secret: secret, parameters: parameters,
                                       displayName: ImportChecks.displayName(fields.count > 2 ? fields[2] : nil)))
    }

    /// The fields of one line, or nil if a quote is not closed.
    static func split(_ text: Substring) -> [String]? {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            index = text.index(after: index)
            if quoted {
                if c == "\"" {
                    if index < text.endIndex, text[index] == "\"" {
                        field.append("\"")
                        index = text.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == "," {
                fields.append(field)
                field = ""
            } else if c == "\"" && field.isEmpty {
                quoted = true
            } else {
                field.append(c)
            }
        }
        guard !quoted else { return nil }
        fields.append(field)
        return fields.map { String(ImportText.trimmed(Substring($0))) }
    }
}
