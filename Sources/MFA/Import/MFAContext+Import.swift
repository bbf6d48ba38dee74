import CSodium

/// Importers: factors users already have in another system, read from the
/// files of the tools people migrate from. Administrative calls (no
/// session, no code asked); the host decides who may run them.
///
/// Every importer reports per line and goes on after a bad line; nothing
/// secret goes into a report. Re-running an import is harmless: a user
/// who already has a TOTP factor with the same secret is reported as
/// already imported, and nothing is stored twice. Lines are stored in
/// batches, each one transaction; imported factors are audited (`ENROLL`,
/// detail `IMPORTED`, with the actor) and do not revoke the user's tokens.
/// The configuration's factor limit applies.
extension MFAContext {
    /// The batch sizes an import accepts (lines per transaction).
    public static let importBatchSizes: ClosedRange<Int> = 1...1000

    /// Imports a file of one factor per line.
    ///
    /// A line ends at LF, CR LF or a lone CR, and a leading byte order mark is
    /// skipped. Every line that is not blank, a comment or a CSV header gets
    /// exactly one outcome, so a line not imported is always reported; a
    /// text in which no line names a factor is one `failed` line 1. A
    /// report's uid is nil when it may be a secret (16 base32 characters of
    /// one case or 16 hexadecimal digits in a row, spaces aside).
    /// - Parameters:
    ///   - text: the file's text.
    ///   - format: otpauth URIs, a pam_oath users file, or CSV.
    ///   - options: the actor, the tenant, the batch size.
    ///   - report: called for each line that has something to report (every
    ///     line but blank lines, comments and a CSV header), in line order.
    ///   - progress: called after each batch with the lines done and the
    ///     lines in all; return false to stop between batches.
    /// - Returns: the totals.
    /// - Throws: `invalidArgument` (options), `storageError` (the batches
    ///   before are stored; run it again to go on).
    public func importFactors(_ text: String, format: ImportFormat, options: ImportOptions,
                              report: (ImportLineReport) -> Void = { _ in },
                              progress: (_ done: Int, _ total: Int) -> Bool = { _, _ in true })
        throws(MFAError) -> ImportSummary {
        try Self.check(options)
        let config = try config(tenant: options.tenant)
        let body = ImportText.body(text)
        var reader: any ImportReader = switch format {
        case .otpauth: LineImportReader(body, OtpauthLineParser.parse(_:line:))
        case .oathUsersFile: LineImportReader(body, OathUsersFileParser.parse(_:line:))
        case .csv: CSVImportReader(body)
        case .yubikeyCSV: YubiKeyCSVReader(body)
        }
        var summary = ImportSummary()
        summary.lines = ImportText.lineCount(body)
        var factorLines = 0
        while !reader.atEnd {
            var reports: [ImportLineReport] = []
            var candidates: [ImportCandidate] = []
            var done = 0
            for _ in 0..<options.batchSize {
                guard let record = reader.next() else { break }
                done = record.lastLine
                switch record.parsed {
                case .factor(let candidate): candidates.append(candidate)
                case .factors(let list): candidates += list
                case .report(let line): reports.append(line)
                case .skip: continue
                }
                factorLines += 1
            }
            reports += try storeImports(candidates, options: options, config: config)
            for line in reports.sorted(by: { $0.line < $1.line }) {
                summary.count(line)
                report(ImportChecks.shown(line))
            }
            if !reader.atEnd && !progress(done, summary.lines) {
                summary.stopped = true
                return summary
            }
        }
        if factorLines == 0 {
            // Nothing to import is never a silent success: a file read wrong (or the wrong file) says so.
            let line = ImportLineReport(line: 1, uid: nil, outcome: .failed, reason: summary.lines == 0
                ? "the file is empty" : "no line names a factor: the file holds only blank lines, comments or a header")
            summary.lines = max(summary.lines, 1)
            summary.count(line)
            report(line)
        }
        _ = progress(summary.lines, summary.lines)
        return summary
    }

    /// Imports one google-authenticator-libpam file (`~/.google_authenticator`)
    /// for `uid`: its secret as a factor (TOTP with `TOTP_AUTH`, else HOTP
    /// at its `HOTP_COUNTER`), its scratch codes as the user's recovery codes
    /// (replacing an earlier set), its options reported as they map onto
    /// libmfa. A counter-based file without `HOTP_COUNTER` is refused.
    /// - Parameters:
    ///   - text: the file's text.
    ///   - uid: the user whose file it is.
    ///   - options: the actor and the tenant.
    ///   - report: called for each line that has something to report, in line order.
    /// - Returns: the totals.
    /// - Throws: `invalidArgument` (uid, options), `storageError`.
    public func importGoogleAuthenticator(_ text: String, uid: String, options: ImportOptions,
                                          report: (ImportLineReport) -> Void = { _ in }) throws(MFAError)
        -> ImportSummary {
        try Self.check(options)
        try MFAUser.checkIdentifier(uid, "uid")
        let config = try config(tenant: options.tenant)
        let body = ImportText.body(text)
        let parsed = GoogleAuthenticatorParser.parse(body, uid: uid, adjacentIntervals: config.adjacentIntervals,
                                                     lookAhead: config.hotpSettings.lookAhead)
        var reports = parsed.reports
        if let candidate = parsed.candidate {
            reports += try storeImports([candidate], options: options, config: config)
        }
        var summary = ImportSummary()
        // Counted as importFactors counts them: a final line break ends the last line, it starts none.
        summary.lines = ImportText.lineCount(body)
        // An empty file is one line, the secret's, which is missing: it is reported.
        summary.lines = max(summary.lines, reports.map(\.line).max() ?? 0)
        for line in reports.sorted(by: { $0.line < $1.line }) {
            summary.count(line)
            if line.outcome == .imported && line.line != parsed.candidate?.line { summary.recoveryCodes += 1 }
            report(ImportChecks.shown(line))
        }
        if summary.recoveryCodes > 0 { summary.imported -= summary.recoveryCodes }
        return summary
    }

    /// Throws `invalidArgument` for bad options.
    static func check(_ options: ImportOptions) throws(MFAError) {
        try checkActor(options.actor)
        if let tenant = options.tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        guard importBatchSizes.contains(options.batchSize) else {
            throw MFAError(.invalidArgument, "batch size must be 1 to 1000")
        }
    }

    /// Stores a batch of candidates in one transaction and says what became of each line.
    /// The batch's users are locked and their factors read a slice of users per
    /// statement, and its new factors written a slice of rows per statement: a
    /// batch costs PostgreSQL a few round trips, not four a line. Candidates
    /// without a user are hardware tokens, stored unassigned in the inventory.
    func storeImports(_ candidates: [ImportCandidate], options: ImportOptions,
                      config: MFAConfig) throws(MFAError) -> [ImportLineReport] {
        guard !candidates.isEmpty else { return [] }
        let tenant = options.tenant ?? ""
        let now = clock.now()
        var ids: [String] = []
        for _ in candidates { ids.append(try newEnrollmentID()) }
        var recoveryIDs: [String] = []
        for candidate in candidates where !candidate.recoveryCodes.isEmpty { recoveryIDs.append(try newEnrollmentID()) }
        let limited = FactorRegistry.limitedIDs
        let note = auditNote(config) { (stored: [FactorRecord]) in
            stored.map {
                AuditEvent(kind: .enroll, tenant: tenant, uid: $0.uid, factorID: $0.factorID,
                           enrollmentID: $0.enrollmentID, time: now, detail: "IMPORTED", actor: options.actor)
            }
        }
        let (reports, stored, tokens) = try store.database.transaction { (db) throws(MFAError) in
            var reports: [ImportLineReport] = []
            var stored: [FactorRecord] = []
            var tokens: [TokenStore.Row] = []
            var nextRecoveryID = recoveryIDs.makeIterator()
            let uids = candidates.compactMap(\.uid)
            try MFAStore.lockUsers(db, tenant, uids, store.dialect)
            // Each user's factors as the store has them, kept up to date with the
            // batch's earlier lines below: what a read before each line would find.
            var owned = try MFAStore.factors(db, tenant, uids)
            // The batch's new factors, written after its last line.
            var newFactors: [FactorRecord] = []
            // The serials and public ids the batch's earlier lines stored.
            var serials: Set<String> = []
            var publicIDs: Set<String> = []
            for (candidate, randomID) in zip(candidates, ids) {
                let seed = candidate.seed
                func report(_ outcome: ImportLineReport.Outcome, _ reason: String, _ id: String? = nil,
                            status: MFAErrorCode? = nil) {
                    // A serial that cannot be one (control characters, too long) is not echoed.
                    let serial = seed.serial.flatMap { TokenStore.serialProblem($0) == nil ? $0 : nil }
                    var line = ImportLineReport(line: candidate.line, uid: candidate.uid, outcome: outcome,
                                                reason: reason, enrollmentID: id, serial: serial)
                    line.status = status ?? (outcome == .imported ? nil
                        : outcome == .alreadyImported ? .secondFactorExists : .invalidArgument)
                    reports.append(line)
                }
                if let address = candidate.email, let uid = candidate.uid {
                    // An email address (a CSV line's email column): no seed to check or store.
                    let existing = owned[uid] ?? []
                    let enrollmentID = EnrollmentOrder.id(randomID, after: existing, at: now)
                    let (line, record) = try importedEmail(address, candidate, uid: uid, existing: existing,
                                                           tenant: tenant, enrollmentID: enrollmentID,
                                                           config: config, now: now)
                    reports.append(line)
                    if let record {
                        newFactors.append(record)
                        owned[uid, default: []].append(record)
                        stored.append(record)
                    }
                    continue
                }
                if let problem = seed.problem {
                    report(.failed, problem)
                    continue
                }
                guard let uid = candidate.uid else {
                    // A token for the inventory: known by its serial.
                    guard let serial = seed.serial else {
                        report(.failed, "a token with no user needs a serial number to be stored unassigned")
                        continue
                    }
                    if try serials.contains(serial) ? true : TokenStore.known(db, tenant: tenant, serial: serial) {
                        report(.alreadyImported, "a token with this serial number is in the store already")
                        continue
                    }
                    if let publicID = seed.publicID,
                       try publicIDs.contains(publicID) ? true : Self.publicIDKnown(db, publicID, tenant: tenant) {
                        report(.failed, "a YubiKey with this public id is in the store already",
                               status: .secondFactorExists)
                        continue
                    }
                    var row = TokenStore.Row(tokenID: randomID, tenant: tenant, serial: serial, keyID: "", sealed: [],
                                             importedAt: now, seed: seed)
                    (row.keyID, row.sealed) = try RecordSealer.seal(seed.payload, row.binding, keyring: keyring)
                    try TokenStore.insert(db, row)
                    serials.insert(serial)
                    if let publicID = seed.publicID { publicIDs.insert(publicID) }
                    tokens.append(row)
                    report(.imported, candidate.note.map { "stored unassigned; " + $0 } ?? "stored unassigned")
                    continue
                }
                let existing = owned[uid] ?? []
                // After the user's factors of this second, this batch's earlier lines included.
                let enrollmentID = EnrollmentOrder.id(randomID, after: existing, at: now)
                var unreadable = false
                var match: FactorRecord?
                let payload = seed.payload
                for factor in existing where factor.factorID == seed.kind.factorID {
                    guard let secret = try? openPayload(of: factor) else {
                        unreadable = true
                        continue
                    }
                    if Self.same(secret, payload) {
                        match = factor
                        break
                    }
                }
                if let match {
                    report(.alreadyImported, "the user already has a factor with this secret", match.enrollmentID)
                    for code in candidate.recoveryCodes {
                        reports.append(ImportLineReport(line: code.line, uid: uid, outcome: .alreadyImported,
                                                        reason: "the file's factor was imported before"))
                    }
                    continue
                }
                var refusal: String?
                var status = MFAErrorCode.secondFactorExists
                if unreadable {
                    refusal = "a factor the user has does not open with the keys given, so a duplicate cannot be ruled out"
                    status = .crypto
                } else if existing.filter({ limited.contains($0.factorID) }).count >= config.limits.maxFactors {
                    refusal = "the user already has \(config.limits.maxFactors) second factors, the most the configuration allows"
                    status = .secondFactorLimitExceeded
                } else if let serial = seed.serial,
                          try serials.contains(serial) ? true : TokenStore.known(db, tenant: tenant, serial: serial) {
                    refusal = "a token with this serial number is in the store already"
                } else if let publicID = seed.publicID,
                          try publicIDs.contains(publicID) ? true : Self.publicIDKnown(db, publicID, tenant: tenant) {
                    refusal = "a YubiKey with this public id is in the store already"
                }
                if let refusal {
                    report(.failed, refusal, status: status)
                    for code in candidate.recoveryCodes {
                        reports.append(ImportLineReport(line: code.line, uid: uid, outcome: .failed,
                                                        reason: "the file's factor was not imported"))
                    }
                    continue
                }
                let sealed = try RecordSealer.seal(payload, .factor(seed.kind.factorID, tenant: tenant, uid: uid,
                                                                     id: enrollmentID), keyring: keyring)
                var record = FactorRecord(enrollmentID: enrollmentID, tenant: tenant, uid: uid,
                                          factorID: seed.kind.factorID, displayName: candidate.displayName,
                                          enrolledAt: now, keyID: sealed.keyID, sealed: sealed.sealed)
                var columns = seed
                if seed.kind == .totp,
                   let used = candidate.lastUse?.usedStep(seed.secret, candidate.parameters, now: now) {
                    columns.counter = max(seed.counter, used)
                }
                record.kindValues = columns.factorValues
                newFactors.append(record)
                owned[uid, default: []].append(record)
                stored.append(record)
                if let serial = seed.serial { serials.insert(serial) }
                if let publicID = seed.publicID { publicIDs.insert(publicID) }
                report(.imported, candidate.note ?? "imported", enrollmentID)
                if !candidate.recoveryCodes.isEmpty, let randomSetID = nextRecoveryID.next() {
                    let setID = EnrollmentOrder.id(randomSetID, after: existing + [record], at: now)
                    let codes = candidate.recoveryCodes.compactMap { RecoveryCodeFormat.normalize($0.code) }
                    let set = try RecoveryCodesFactor.importSet(db, codes: codes, tenant: tenant, uid: uid,
                                                                enrollmentID: setID, now: now, keyring: keyring)
                    // The user's earlier set is gone (importSet replaced it); the new one is written.
                    owned[uid, default: []].removeAll { $0.factorID == RecoveryCodesFactor.id }
                    owned[uid, default: []].append(set)
                    stored.append(set)
                    for code in candidate.recoveryCodes {
                        reports.append(ImportLineReport(line: code.line, uid: uid, outcome: .imported,
                                                        reason: "scratch code stored as a recovery code",
                                                        enrollmentID: setID))
                    }
                }
            }
            try MFAStore.insert(db, newFactors)
            try note.record(db, stored, store.dialect)
            return (reports, stored, tokens)
        }
        report(note, stored)
        for token in tokens {
            audit(AuditEvent(kind: .tokenImported, tenant: tenant, factorID: token.seed.kind.factorID, time: now,
                             detail: "serial \(token.serial)", actor: options.actor), config: config)
        }
        return reports
    }

    /// What becomes of an email address a file gives `candidate`'s user: the
    /// line's report, and the factor to store (nil when the user has the
    /// address already, in any case, or is at the factor limit).
    private func importedEmail(_ address: String, _ candidate: ImportCandidate, uid: String,
                               existing: [FactorRecord], tenant: String, enrollmentID: String, config: MFAConfig,
                               now: Int64) throws(MFAError) -> (ImportLineReport, FactorRecord?) {
        func line(_ outcome: ImportLineReport.Outcome, _ reason: String, _ id: String? = nil,
                  status: MFAErrorCode? = nil) -> ImportLineReport {
            var line = ImportLineReport(line: candidate.line, uid: uid, outcome: outcome, reason: reason,
                                        enrollmentID: id)
            line.status = status
            return line
        }
        let wanted = EmailAddress.comparable(address)
        for factor in existing where factor.factorID == EmailMultiFactorID {
            guard let held = try? emailAddress(of: factor) else {
                return (line(.failed, "an email factor the user has does not open with the keys given",
                             status: .crypto), nil)
            }
            if EmailAddress.comparable(held) == wanted {
                return (line(.alreadyImported, "the user already has this email address as a factor",
                             factor.enrollmentID, status: .secondFactorExists), nil)
            }
        }
        let limited = FactorRegistry.limitedIDs
        guard existing.filter({ limited.contains($0.factorID) }).count < config.limits.maxFactors else {
            return (line(.failed, "the user already has \(config.limits.maxFactors) second factors, the most the configuration allows",
                         status: .secondFactorLimitExceeded), nil)
        }
        let sealed = try RecordSealer.seal(Array(address.utf8), EmailFactor.binding(
            tenant: tenant, uid: uid, enrollmentID: enrollmentID), keyring: keyring)
        let record = FactorRecord(enrollmentID: enrollmentID, tenant: tenant, uid: uid,
                                  factorID: EmailMultiFactorID, displayName: candidate.displayName, enrolledAt: now,
                                  keyID: sealed.keyID, sealed: sealed.sealed)
        return (line(.imported, "email address imported", enrollmentID), record)
    }

    /// Whether a factor or an unassigned token of `tenant` holds this YubiKey public id.
    static func publicIDKnown(_ db: SQLConnection, _ publicID: String, tenant: String) throws(MFAError) -> Bool {
        if try YubicoOTPStore.enrolled(db, publicID: publicID, tenant: tenant) { return true }
        return try TokenStore.find(db, tenant: tenant, publicID: publicID) != nil
    }

    /// Whether a stored secret equals `secret`, compared in constant time.
    static func same(_ stored: SecureBytes, _ secret: [UInt8]) -> Bool {
        stored.withBytes { held in
            held.count == secret.count && secret.withUnsafeBytes { given in
                sodium_memcmp(held.baseAddress, given.baseAddress, held.count) == 0
            }
        }
    }
}
