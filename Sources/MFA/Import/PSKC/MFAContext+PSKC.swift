extension MFAContext {
    /// The longest password `importPSKC` takes, in bytes.
    public static let maxPSKCPasswordBytes = 1024

    /// Imports the keys of a PSKC 1.0 file (RFC 6030), as token vendors
    /// deliver their seeds: HOTP, TOTP and Yubico OTP keys, each stored as
    /// its `UserId`'s factor, or, without one (or with `ignoringUsers`),
    /// unassigned in the inventory under its serial number, to be assigned
    /// later (`assignToken`) or claimed by its user with a code.
    ///
    /// The XML is read as hostile: no DTD, entity or external reference is
    /// read (a file that holds one is refused as `invalidPSKC`, unread; see
    /// `SafeXML`). Encrypted values need the file's pre-shared key or
    /// password (`PSKCKey`); each is checked against its MAC. Each key
    /// package gets one report, on the line of its `Key` element; a bad
    /// package does not stop the import. Re-running it stores nothing twice
    /// (a serial or public id in the store already is `alreadyImported`).
    /// Factors are audited `ENROLL` (detail `IMPORTED`), unassigned tokens
    /// `TOKEN_IMPORTED`, with the actor; users' tokens are not revoked.
    /// - Parameters:
    ///   - file: the file's bytes (UTF-8 XML, at most 64 MiB).
    ///   - key: the pre-shared key or password, or nil for a file in plain.
    ///   - ignoringUsers: store every key unassigned, whatever its `UserId`.
    ///   - options: the actor, the tenant, the batch size (key packages per transaction).
    ///   - report: called for each key package, in file order.
    ///   - progress: called after each batch with the packages done and in all; return false to stop.
    /// - Returns: the totals (`lines` counts the key packages).
    /// - Throws: `invalidPSKC` (not a PSKC 1.0 container, XML that is not
    ///   well-formed or that holds a DTD or entity, an unsupported key
    ///   derivation), `pskcKeyMismatch` (encrypted and no key or password
    ///   given, or the one given opens none of its values), `invalidArgument`
    ///   (options, a key that is not 16, 24 or 32 bytes, a password over 1024
    ///   bytes or empty), `storageError`.
    public func importPSKC(_ file: [UInt8], key: PSKCKey?, ignoringUsers: Bool = false, options: ImportOptions,
                           report: (ImportLineReport) -> Void = { _ in },
                           progress: (_ done: Int, _ total: Int) -> Bool = { _, _ in true }) throws(MFAError)
        -> ImportSummary {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.check(options)
        switch key {
        case .preShared(let bytes)?:
            guard [16, 24, 32].contains(bytes.count) else {
                throw MFAError(.invalidArgument, "a PSKC pre-shared key must be 16, 24 or 32 bytes")
            }
        case .password(let password)?:
            guard !password.isEmpty, password.utf8.count <= Self.maxPSKCPasswordBytes else {
                throw MFAError(.invalidArgument, "a PSKC password must be 1 to \(Self.maxPSKCPasswordBytes) bytes")
            }
        case nil:
            break
        }
        let config = try config(tenant: options.tenant)
        var reader = try PSKCReader(file, key: key)
        let parsed = reader.packages(ignoringUsers: ignoringUsers)
        reader.wipeKeys()
        if reader.opened == 0 && reader.failedToOpen > 0 {
            throw MFAError(.pskcKeyMismatch, "pskc: the key or password given opens none of the file's values")
        }
        var summary = ImportSummary()
        summary.lines = parsed.count
        guard !parsed.isEmpty else {
            let line = ImportLineReport(line: 1, uid: nil, outcome: .failed, reason: "the file holds no KeyPackage")
            summary.lines = 1
            summary.count(line)
            report(line)
            return summary
        }
        var done = 0
        for start in stride(from: 0, to: parsed.count, by: options.batchSize) {
            let batch = parsed[start..<min(start + options.batchSize, parsed.count)]
            var reports: [ImportLineReport] = []
            var candidates: [ImportCandidate] = []
            for entry in batch {
                switch entry {
                case .factor(let candidate): candidates.append(candidate)
                case .factors(let list): candidates += list
                case .report(let line): reports.append(line)
                case .skip: continue
                }
            }
            reports += try storeImports(candidates, options: options, config: config)
            for line in reports.sorted(by: { $0.line < $1.line }) {
                summary.count(line)
                report(ImportChecks.shown(line))
            }
            done += batch.count
            if done < parsed.count && !progress(done, parsed.count) {
                summary.stopped = true
                return summary
            }
        }
        _ = progress(parsed.count, parsed.count)
        return summary
    }
}
