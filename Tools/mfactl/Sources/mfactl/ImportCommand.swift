import ArgumentParser
import MFA

/// `mfactl import otpauth|users-file|csv|google-authenticator`.
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
        subcommands: [Otpauth.self, UsersFile.self, CSV.self, GoogleAuthenticator.self])

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
            abstract: "otpauth://totp URIs, one per line; the account name is the uid, the issuer the factor's name.",
            discussion: "otpauth://hotp lines are reported as unsupported: libmfa's authenticator factors are TOTP.")
        @OptionGroup var common: Common
        @Argument(help: "The file, or - for standard input.") var file: String
        func run() throws { try runImport(common, file, .otpauth) }
    }

    struct UsersFile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "users-file",
            abstract: "A pam_oath / liboath users file: HOTP/T30/6 user - <hex secret> ...",
            discussion: """
                HOTP/T<seconds>[/<digits>] lines are TOTP; HOTP and HOTP/E lines (counter-based) are \
                unsupported. PINs are not imported. The last code pam_oath accepted (the sixth field, \
                with its time) stays used: it cannot be used again after the migration.
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
                The secret becomes a TOTP factor and the scratch codes the user's recovery codes. \
                Options are reported as they map onto libmfa: WINDOW_SIZE against the configuration's \
                totp.adjacentIntervals, DISALLOW_REUSE (always on), RATE_LIMIT (libmfa's backoff). A \
                file without TOTP_AUTH is counter-based (HOTP) and is not imported.
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
            Output.json(.object(fields))
        } else {
            let text = "line \(report.line): \(report.outcome.rawValue)\(report.uid.map { " \($0)" } ?? ""): \(report.reason)"
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
