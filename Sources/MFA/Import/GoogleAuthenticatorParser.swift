/// Reads a google-authenticator-libpam file (`~/.google_authenticator`):
/// the base32 secret on the first line, option lines starting with `"`,
/// then the 8-digit scratch codes, one per line.
///
/// How the options map onto libmfa: `TOTP_AUTH` makes the file TOTP;
/// without it the file is HOTP, and `HOTP_COUNTER` is the counter of its
/// next code (google-authenticator moves it past each code it accepts); a
/// counter-based file without it is refused rather than guessed (a guess
/// too low would let used codes in again). `STEP_SIZE` is the factor's period; `WINDOW_SIZE` has no per-factor
/// counterpart (every factor accepts the configuration's
/// `totp.adjacentIntervals`), so a difference is reported; `DISALLOW_REUSE`
/// is always on in libmfa (the steps it lists are carried over, so a code
/// used just before the import stays used); `RATE_LIMIT` is replaced by
/// libmfa's backoff. The scratch codes become the user's recovery codes.
enum GoogleAuthenticatorParser {
    /// What the file holds.
    struct Parsed {
        /// The factor to import, if the file is a valid TOTP file.
        var candidate: ImportCandidate?
        /// Reports of the lines that are not the factor's own (options,
        /// malformed lines, and, when the factor is not imported, why).
        var reports: [ImportLineReport] = []
    }

    static func parse(_ text: Substring, uid: String, adjacentIntervals: Int, lookAhead: Int = 10) -> Parsed {
        var parsed = Parsed()
        var secret: [UInt8]?
        var totp = false
        var hotpCounter: Int64?
        var windowSize: (line: Int, size: Int)?
        var period = OTPLimits.defaultPeriod
        var lastStep: Int64 = -1
        var codes: [(line: Int, code: String)] = []
        var sawSecret = false
        var secretLine = 1
        func report(_ line: Int, _ outcome: ImportLineReport.Outcome, _ reason: String) {
            parsed.reports.append(ImportLineReport(line: line, uid: uid, outcome: outcome, reason: reason))
        }
        var lines = LineCursor(text)
        var line = 0
        while let raw = lines.next() {
            line += 1
            let trimmed = ImportText.trimmed(raw)
            if trimmed.isEmpty { continue }
            if !sawSecret {
                sawSecret = true
                secretLine = line
                do {
                    secret = try Base32.decode(String(trimmed))
                } catch {
                    report(line, .failed, "the first line is not a base32 secret")
                    continue
                }
                if let secret, let problem = ImportChecks.secretProblem(secret) { report(line, .failed, problem) }
                continue
            }
            if trimmed.hasPrefix("\"") {
                let fields = ImportText.fields(trimmed.dropFirst())
                let option = fields.first.map(String.init) ?? ""
                let values = fields.dropFirst()
                switch option {
                case "TOTP_AUTH":
                    totp = true
                    report(line, .note, "TOTP_AUTH: the factor is time-based (TOTP)")
                case "HOTP_COUNTER":
                    guard values.count == 1, let value = Int64(values[values.startIndex]), value >= 0,
                          value < Int64.max - 1 else {
                        report(line, .failed, "HOTP_COUNTER must be one counter, 0 or more")
                        continue
                    }
                    hotpCounter = value
                    report(line, .note, "HOTP_COUNTER \(value): the file is counter-based (HOTP); its next code is counter \(value)")
                case "STEP_SIZE":
                    guard values.count == 1, let value = Int64(values[values.startIndex]),
                          OTPLimits.period.contains(value) else {
                        report(line, .failed, "STEP_SIZE must be one number of seconds, 1 to 31536000")
                        continue
                    }
                    period = value
                    report(line, .note, "STEP_SIZE \(value): the factor's period")
                case "WINDOW_SIZE":
                    guard values.count == 1, let size = Int(values[values.startIndex]), size >= 1, size <= 21 else {
                        report(line, .failed, "WINDOW_SIZE must be one number, 1 to 21")
                        continue
                    }
                    windowSize = (line, size)
                case "DISALLOW_REUSE":
                    for value in values { if let step = Int64(value), step > lastStep { lastStep = step } }
                    report(line, .note, "DISALLOW_REUSE: libmfa always refuses a code used before; the steps used are carried over")
                case "RATE_LIMIT":
                    report(line, .note, "RATE_LIMIT: replaced by libmfa's backoff (free attempts, then exponential delays; see limits)")
                default:
                    // The option's name, if it looks like one: a report never quotes other text of the file.
                    report(line, .note, Self.isOptionName(option) && !ImportChecks.mayHoldSecret(option)
                        ? "option \(option) is not known to libmfa and was ignored"
                        : "an option line that libmfa does not know was ignored")
                }
                continue
            }
            let digits = trimmed.utf8
            if digits.count == RecoveryCodeFormat.importedLength,
               digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                codes.append((line, String(trimmed)))
            } else {
                report(line, .failed, "a scratch code must be 8 digits")
            }
        }
        if let (line, size) = windowSize {
            if totp || hotpCounter == nil {
                let either = (size - 1) / 2
                if either == adjacentIntervals {
                    report(line, .note, "WINDOW_SIZE \(size): accepts ±\(either) steps, as libmfa's totp.adjacentIntervals does")
                } else {
                    report(line, .note, "WINDOW_SIZE \(size) accepted ±\(either) steps; libmfa accepts ±\(adjacentIntervals) for every factor (the configuration's totp.adjacentIntervals)")
                }
            } else {
                report(line, .note, "WINDOW_SIZE \(size) accepted a code up to \(size - 1) counters ahead; libmfa accepts \(lookAhead) (the configuration's hotp.lookAhead)")
            }
        }
        guard sawSecret else {
            report(1, .failed, "the file is empty")
            return parsed
        }
        guard let secret, ImportChecks.secretProblem(secret) == nil else { return parsed }
        guard totp else {
            guard let hotpCounter else {
                report(secretLine, .failed, "the file has no TOTP_AUTH line, so it is counter-based (HOTP), and no HOTP_COUNTER line says its counter")
                for code in codes { report(code.line, .failed, "a scratch code of a factor that was not imported") }
                return parsed
            }
            var candidate = ImportCandidate(line: secretLine, uid: uid,
                                            seed: HardwareTokenSeed(kind: .hotp, secret: secret, counter: hotpCounter),
                                            displayName: nil)
            candidate.recoveryCodes = codes
            candidate.note = "an event-based (HOTP) factor, next counter \(hotpCounter)"
            parsed.candidate = candidate
            return parsed
        }
        parsed.candidate = ImportCandidate(
            line: secretLine, uid: uid, secret: secret,
            parameters: TOTPParameters(algorithm: .sha1, digits: OTPLimits.defaultDigits, period: period),
            displayName: nil, lastStep: lastStep, recoveryCodes: codes)
        return parsed
    }

    /// Whether `text` looks like a google-authenticator option name: 1 to 32
    /// upper-case letters and underscores (`RATE_LIMIT`).
    private static func isOptionName(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 == UInt8(ascii: "_") }
    }
}
