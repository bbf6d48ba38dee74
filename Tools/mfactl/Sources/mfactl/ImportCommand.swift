import ArgumentParser
import MFA

/// `mfactl import otpauth|users-file|csv|google-authenticator|yubikey-csv|pskc`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import factors users already have, from the files of other tools.",
        discussion: """
            Each line is reported by number with what became of it; a bad line does not stop the \
            import, and nothing secret is printed (a uid that may be a secret, such as a swapped \
            column, is left out: the line number says which line it is). Lines may end in LF, CR LF \
            or CR, and a leading byte order mark is skipped. Running an import again stores nothing \
            twice: a user who already has a factor with the same secret is reported as already \
            imported. Lines are stored in batches; Ctrl-C stops after the current batch (exit 130) \
            and a new run goes on where it stopped. Exit 1 if any line was not imported, or if no \
            line of the file names a factor (an empty file, a header alone).
            """,
        subcommands: [Otpauth.self, UsersFile.self, CSV.self, GoogleAuthenticator.self, YubiKeyCSV.self, PSKC.self])

    struct Common: ParsableArguments {
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @OptionGroup var tenant: TenantOption
        @Option(help: "Lines per transaction, 1 to 1000.") var batchSize = 500
        @Flag(help: "Report imported lines too (by default only the others).") var verbose = false
    }

    struct Otpauth: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "otpauth:// URIs, one per line; the account name is the uid, the issuer the factor's name.",
            discussion: "otpauth://hotp URIs become HOTP factors whose next code is the one of their counter.")
        @OptionGroup var common: Common
        @Argument(help: "The file, or - for standard input.") var file: String
        func run() throws { try runImport(common, file, .otpauth) }
    }

    struct UsersFile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "users-file",
            abstract: "A pam_oath / liboath users file: HOTP/T30/6 user - <hex secret> ...",
            discussion: """
                HOTP/T<seconds>[/<digits>] lines are TOTP; HOTP and HOTP/E[/<digits>] lines are HOTP \
                factors at their counter (the fifth field). PINs are not imported. The last code \
                pam_oath accepted (the sixth field, with its time) stays used: it cannot be used again \
                after the migration.
                """)
        @OptionGroup var common: Common
        @Argument(help: "The file, or - for standard input.") var file: String
        func run() throws { try runImport(common, file, .oathUsersFile) }
    }

    struct CSV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "csv", abstract: "CSV lines uid,secret,issuer,digits,period,algorithm (base32 secret).",
            discussion: """
                RFC 4180 CSV, as spreadsheets save it: fields in double quotes may hold commas, line \
                breaks and doubled quotes. A first line that names the columns (uid and secret among \
                them, in any order) is a header and sets their order; blank fields take the defaults \
                (6 digits, 30 s, SHA1).
                """)
        @OptionGroup var common: Common
        @Argument(help: "The file, or - for standard input.") var file: String
        func run() throws { try runImport(common, file, .csv) }
    }

    struct GoogleAuthenticator: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "google-authenticator",
            abstract: "A google-authenticator-libpam file (~/.google_authenticator) of one user.",
            discussion: """
                The secret becomes a TOTP factor (an HOTP factor at its HOTP_COUNTER in a file without \
                TOTP_AUTH) and the scratch codes the user's recovery codes. Options are reported as they \
                map onto libmfa: WINDOW_SIZE against the configuration's totp.adjacentIntervals (or \
                hotp.lookAhead), DISALLOW_REUSE (always on), RATE_LIMIT (libmfa's backoff). A \
                counter-based file without HOTP_COUNTER is refused.
                """)
        @OptionGroup var common: Common
        @Option(help: "The user whose file it is.") var uid: String
        @Argument(help: "The file, or - for standard input.") var file: String

        func run() throws {
            try running {
                let context = try common.store.open()
                let text = try Terminal.readText(file)
                let printer = LinePrinter(json: common.output.json, verbose: common.verbose, progress: nil)
                let summary = try context.importGoogleAuthenticator(
                    text, uid: uid, options: ImportOptions(actor: common.actor.name, tenant: common.tenant.tenant),
                    report: printer.print)
                try finish(summary, json: common.output.json)
            }
        }
    }
}

extension ImportCommand {
    struct YubiKeyCSV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "yubikey-csv",
            abstract: "The CSV YubiKeys are programmed with: stored unassigned, by serial.",
            discussion: """
                The YubiKey Manager's (ykman otp yubiotp --config-output FILE): serial, public id, \
                private id, AES key, access code, time; and the YubiKey Personalization Tool's log \
                ("Yubico OTP,time,slot,public id,private id,AES key,..."), whose keys are known by \
                their public id. Assign each key with `mfactl tokens assign SERIAL UID`, or let its \
                user claim it with a touch.
                """)
        @OptionGroup var common: Common
        @Argument(help: "The file, or - for standard input.") var file: String
        func run() throws { try runImport(common, file, .yubikeyCSV) }
    }

    struct PSKC: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pskc",
            abstract: "A PSKC 1.0 file (RFC 6030) of token seeds, as vendors deliver them.",
            discussion: """
                HOTP, TOTP and Yubico OTP keys. A key with a UserId becomes that user's factor (unless \
                --unassigned); the others are stored unassigned under their serial number. A file whose \
                values are encrypted needs its pre-shared key (hex, 32, 48 or 64 digits) or its \
                password (for PBKDF2), read from a file (--pskc-key-file, --pskc-password-file) or from the \
                environment (--pskc-key-env VAR, --pskc-password-env VAR), never from the command line \
                (--key-file remains the store's master key). The XML \
                is read as hostile: a file that declares a DTD or uses an entity is refused unread. \
                Each key is reported on the line of its Key element.
                """)
        @OptionGroup var common: Common
        @Option(help: "A file holding the file's pre-shared key, in hex.") var pskcKeyFile: String?
        @Option(help: "An environment variable holding the file's pre-shared key, in hex.") var pskcKeyEnv: String?
        @Option(help: "A file holding the file's password (its last line break is not part of it).")
        var pskcPasswordFile: String?
        @Option(help: "An environment variable holding the file's password.") var pskcPasswordEnv: String?
        @Flag(help: "Store every key unassigned, whatever its UserId.") var unassigned = false
        @Argument(help: "The file, or - for standard input.") var file: String

        func run() throws {
            try running {
                let key = try fileKey()
                let context = try common.store.open()
                let data = try Terminal.read(file)
                Interrupt.install()
                let progress = Progress("keys", json: common.output.json)
                let printer = LinePrinter(json: common.output.json, verbose: common.verbose, progress: progress)
                let summary = try context.importPSKC(
                    data, key: key, ignoringUsers: unassigned,
                    options: ImportOptions(actor: common.actor.name, tenant: common.tenant.tenant,
                                           batchSize: common.batchSize),
                    report: printer.print,
                    progress: { done, total in
                        progress.update(done, total)
                        return !Interrupt.isRequested
                    })
                progress.finish()
                try finish(summary, json: common.output.json)
            }
        }

        /// The key or password, from one file or variable.
        private func fileKey() throws -> PSKCKey? {
            let given = [pskcKeyFile, pskcKeyEnv, pskcPasswordFile, pskcPasswordEnv].compactMap { $0 }
            guard given.count <= 1 else {
                throw Failure("give one of --pskc-key-file, --pskc-key-env, --pskc-password-file, --pskc-password-env",
                              status: ExitStatus.usage)
            }
            if let keyFile = pskcKeyFile { return try Self.key(try Terminal.readText(keyFile), from: keyFile) }
            if let keyEnv = pskcKeyEnv {
                guard let text = Terminal.environment(keyEnv) else {
                    throw Failure("\(keyEnv) is not set", status: ExitStatus.usage)
                }
                return try Self.key(text, from: keyEnv)
            }
            if let passwordFile = pskcPasswordFile {
                var text = try Terminal.readText(passwordFile)
                if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
                return .password(text)
            }
            if let passwordEnv = pskcPasswordEnv {
                guard let text = Terminal.environment(passwordEnv) else {
                    throw Failure("\(passwordEnv) is not set", status: ExitStatus.usage)
                }
                return .password(text)
            }
            return nil
        }

        /// A pre-shared key written in hex (white space around it ignored).
        static func key(_ text: String, from source: String) throws -> PSKCKey {
            let digits = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).joined()
            guard let bytes = KeyFile.bytes(ofHex: ArraySlice(digits.utf8)), [16, 24, 32].contains(bytes.count) else {
                throw Failure("\(source) must hold the key as 32, 48 or 64 hexadecimal digits",
                              status: ExitStatus.invalidData)
            }
            return .preShared(bytes)
        }
    }
}

/// Imports a line format with a progress display.
private func runImport(_ common: ImportCommand.Common, _ file: String, _ format: ImportFormat) throws {
    try running {
        let context = try common.store.open()
        let text = try Terminal.readText(file)
        Interrupt.install()
        let progress = Progress("lines", json: common.output.json)
        let printer = LinePrinter(json: common.output.json, verbose: common.verbose, progress: progress)
        let summary = try context.importFactors(
            text, format: format,
            options: ImportOptions(actor: common.actor.name, tenant: common.tenant.tenant, batchSize: common.batchSize),
            report: printer.print,
            progress: { done, total in
                progress.update(done, total)
                return !Interrupt.isRequested
            })
        progress.finish()
        try finish(summary, json: common.output.json)
    }
}

/// Prints line reports as they come.
private struct LinePrinter {
    let json: Bool
    let verbose: Bool
    let progress: Progress?

    func print(_ report: ImportLineReport) {
        guard verbose || json || report.outcome != .imported else { return }
        if json {
            var fields: [(String, JSONValue)] = [("line", .int(Int64(report.line))), ("uid", Output.string(report.uid)),
                                                 ("outcome", .string(report.outcome.rawValue)),
                                                 ("reason", .string(report.reason))]
            if let id = report.enrollmentID { fields.append(("enrollmentId", .string(id))) }
            if let serial = report.serial { fields.append(("serial", .string(serial))) }
            Output.json(.object(fields))
        } else {
            let who = report.uid.map { " \($0)" } ?? report.serial.map { " serial \($0)" } ?? ""
            let text = "line \(report.line): \(report.outcome.rawValue)\(who): \(report.reason)"
            if let progress { progress.line(text) } else { Terminal.out(text) }
        }
    }
}

/// Prints the totals and picks the exit status.
private func finish(_ summary: ImportSummary, json: Bool) throws {
    if json {
        Output.json(.object([("summary", .object([
            ("lines", .int(Int64(summary.lines))), ("imported", .int(Int64(summary.imported))),
            ("alreadyImported", .int(Int64(summary.alreadyImported))),
            ("unsupported", .int(Int64(summary.unsupported))), ("failed", .int(Int64(summary.failed))),
            ("recoveryCodes", .int(Int64(summary.recoveryCodes))), ("stopped", .bool(summary.stopped)),
        ]))]))
    } else {
        var text = "imported \(Output.count(summary.imported)), already imported \(Output.count(summary.alreadyImported)), "
            + "unsupported \(Output.count(summary.unsupported)), failed \(Output.count(summary.failed))"
        if summary.recoveryCodes > 0 { text += ", recovery codes \(summary.recoveryCodes)" }
        Terminal.out(text)
    }
    if summary.stopped {
        throw Failure("interrupted: the batches before are stored; run the same import again to go on",
                      status: ExitStatus.interrupted)
    }
    if summary.failed > 0 || summary.unsupported > 0 {
        throw Failure("some lines were not imported (see above)", status: ExitStatus.partial)
    }
}
