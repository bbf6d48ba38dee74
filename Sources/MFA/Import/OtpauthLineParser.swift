/// Reads a line of otpauth URIs: `otpauth://totp/Issuer:uid?secret=...`.
/// The account name is the uid; the issuer becomes the display name.
enum OtpauthLineParser {
    static func parse(_ text: Substring, line: Int) -> ParsedLine {
        let trimmed = ImportText.trimmed(text)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .skip }
        let key: KeyURI
        do {
            key = try KeyURI(parsing: String(trimmed))
        } catch {
            return .failed(line, nil, error.message)
        }
        let uid: String
        switch ImportChecks.uid(key.account, named: "the account name (the uid)") {
        case .failure(let problem): return .failed(line, nil, problem.reason)
        case .success(let checked): uid = checked
        }
        guard key.kind == .totp else {
            return .unsupported(line, uid, "HOTP (counter-based) factors are not supported: libmfa's authenticator factors are TOTP")
        }
        if let problem = ImportChecks.secretProblem(key.secret) { return .failed(line, uid, problem) }
        let displayName: String?
        switch ImportChecks.displayName(key.issuer) {
        case .failure(let problem): return .failed(line, uid, problem.reason)
        case .success(let name): displayName = name
        }
        return .factor(ImportCandidate(line: line, uid: uid, secret: key.secret, parameters: TOTPParameters(
            algorithm: key.algorithm, digits: key.digits, period: key.period), displayName: displayName))
    }
}
