/// Reads a line of otpauth URIs: `otpauth://totp/Issuer:uid?secret=...`.
/// The account name is the uid; the issuer becomes the display name. An
/// `otpauth://hotp/...` URI is an HOTP factor whose next code is the one of
/// its `counter` (the key URI format's initial counter).
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
        if let problem = ImportChecks.secretProblem(key.secret) { return .failed(line, uid, problem) }
        let displayName: String?
        switch ImportChecks.displayName(key.issuer) {
        case .failure(let problem): return .failed(line, uid, problem.reason)
        case .success(let name): displayName = name
        }
        guard key.kind == .totp else {
            guard let counter = Int64(exactly: key.counter), counter < Int64.max - 1 else {
                return .failed(line, uid, "the counter is out of range")
            }
            var seed = HardwareTokenSeed(kind: .hotp, secret: key.secret, counter: counter)
            seed.algorithm = key.algorithm
            seed.digits = key.digits
            var candidate = ImportCandidate(line: line, uid: uid, seed: seed, displayName: displayName)
            candidate.note = "an event-based (HOTP) factor, next counter \(counter)"
            return .factor(candidate)
        }
        return .factor(ImportCandidate(line: line, uid: uid, secret: key.secret, parameters: TOTPParameters(
            algorithm: key.algorithm, digits: key.digits, period: key.period), displayName: displayName))
    }
}
