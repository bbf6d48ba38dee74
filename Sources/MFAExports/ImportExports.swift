import CMFATypes
import Glibc
import MFA

extension CStructs {
    /// `mfa_import_options`.
    static let importOptions = CVersioned<mfa_import_options>(
        name: "options", macro: "MFA_IMPORT_OPTIONS_VERSION", sizes: [MemoryLayout<mfa_import_options>.size]
    ) { version in
        mfa_import_options(version: version, actor: nil, tenant: nil, batch_size: MFA_IMPORT_BATCH_DEFAULT,
                           report: nil, report_context: nil, progress: nil, progress_context: nil)
    }
}

/// The C numbers of the import outcomes (`MFA_IMPORT_IMPORTED`, ...).
private let outcomes: [ImportLineReport.Outcome: Int32] = [
    .imported: MFA_IMPORT_IMPORTED, .alreadyImported: MFA_IMPORT_ALREADY_IMPORTED,
    .unsupported: MFA_IMPORT_UNSUPPORTED, .failed: MFA_IMPORT_FAILED, .note: MFA_IMPORT_NOTE,
]

/// Calls `body` with a C copy of `text`, or NULL for nil.
private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// A C import's options and callbacks, read from the caller's struct.
private struct CImport {
    let options: ImportOptions
    let report: (ImportLineReport) -> Void
    let progress: (Int, Int) -> Bool

    init(_ pointer: UnsafePointer<mfa_import_options>?) throws(MFAError) {
        let fields = try CStructs.importOptions.read(pointer)
        options = ImportOptions(actor: try CArguments.string(fields.actor, "options->actor"),
                                tenant: try CArguments.optionalString(fields.tenant, "options->tenant"),
                                batchSize: Int(fields.batch_size))
        if let function = fields.report {
            let context = fields.report_context
            report = { line in
                withOptionalCString(line.uid) { uid in
                    withOptionalCString(line.enrollmentID) { enrollment in
                        withOptionalCString(line.serial) { serial in
                            line.outcome.rawValue.withCString { name in
                                line.reason.withCString { reason in
                                    var record = mfa_import_line(line: Int64(line.line), uid: uid,
                                                                 outcome: outcomes[line.outcome] ?? 0,
                                                                 outcome_name: name, reason: reason,
                                                                 enrollment_id: enrollment, serial: serial)
                                    function(context, &record)
                                }
                            }
                        }
                    }
                }
            }
        } else {
            report = { _ in }
        }
        progress = cProgress(fields.progress, fields.progress_context)
    }
}

/// A C progress callback as the core's `(done, total) -> go on`; always on for NULL.
func cProgress(_ function: mfa_progress_fn?, _ context: UnsafeMutableRawPointer?) -> (Int, Int) -> Bool {
    guard let function else { return { _, _ in true } }
    return { done, total in function(context, Int64(done), Int64(total)) == 0 }
}

/// The text of an import: `text_len` bytes of UTF-8 (NUL bytes included), up to MFA_IMPORT_MAX_BYTES.
private func importText(_ text: UnsafePointer<UInt8>?, _ length: UInt) throws(MFAError) -> String {
    let bytes = try CArguments.bytes(text, length, allowed: 0...Int(MFA_IMPORT_MAX_BYTES), "text")
    guard let string = String(validating: bytes, as: UTF8.self) else {
        throw MFAError(.invalidArgument, "text is not valid UTF-8")
    }
    return string
}

/// Copies a summary into the caller's struct.
private func write(_ summary: ImportSummary, to out: UnsafeMutablePointer<mfa_import_summary>) {
    out.pointee = mfa_import_summary(lines: Int64(summary.lines), imported: Int64(summary.imported),
                                     already_imported: Int64(summary.alreadyImported),
                                     unsupported: Int64(summary.unsupported), failed: Int64(summary.failed),
                                     recovery_codes: Int64(summary.recoveryCodes), stopped: summary.stopped)
}

/// Fills `options` with the defaults of struct version `version` (pass
/// MFA_IMPORT_OPTIONS_VERSION): no actor, the project, MFA_IMPORT_BATCH_DEFAULT
/// lines per transaction, no callbacks, and `version` itself. Only the
/// fields that version has are written; MFA_IMPORT_OPTIONS_INIT is the same
/// as a static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `options`, a version 0 or
/// newer than the library's).
@c(mfa_import_options_init)
public func mfa_import_options_init(_ options: UnsafeMutablePointer<mfa_import_options>?,
                                    _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.importOptions.initialize(options, version: version) }
}

/// Imports factors users already have in another system, one per line of
/// `text` (`text_len` bytes of UTF-8, not NUL-terminated, at most
/// MFA_IMPORT_MAX_BYTES): `format` is MFA_IMPORT_OTPAUTH (TOTP and HOTP
/// URIs), MFA_IMPORT_USERS_FILE (TOTP, HOTP and HOTP/E lines with their
/// counters), MFA_IMPORT_CSV or MFA_IMPORT_YUBIKEY_CSV (YubiKeys, stored
/// unassigned under their serial). An administrative call: no session, no code.
///
/// Lines end at LF, CR LF or a lone CR, and a leading UTF-8 byte order mark
/// is skipped; CSV follows RFC 4180 (quoted fields hold commas, line breaks
/// and doubled quotes; a header naming the columns sets their order). Every
/// line with something to say goes to `options->report`, in line order, and
/// every line that names a factor gets exactly one outcome; a text that
/// names none is one MFA_IMPORT_FAILED line 1. A bad line does not stop the
/// import, and no report holds a secret, a code or the line's text: a uid
/// that may be a secret (a swapped column) or holds a control character is
/// reported as NULL. Lines are stored `options->batch_size` at a time, each
/// batch one transaction; `options->progress` runs after each batch and may
/// stop the import there (`out->stopped`). Re-running an import stores
/// nothing twice: a line whose secret the user already has is
/// MFA_IMPORT_ALREADY_IMPORTED. The configuration's factor limit applies per
/// line; imports do not revoke the users' tokens. Each factor stored is
/// audited (MFA_AUDIT_ENROLL, detail "IMPORTED", with `options->actor`).
///
/// On MFA_OK, `*out` holds the totals (zeroed on failure). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (an unknown format, NULL or invalid options, text
/// that is not UTF-8 or too long) or MFA_ERR_STORAGE_ERROR (the batches before
/// are stored: run it again to go on).
@c(mfa_import)
public func mfa_import(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out: UnsafeMutablePointer<mfa_import_summary>?,
                       _ format: Int32, _ text: UnsafePointer<UInt8>?, _ text_len: UInt,
                       _ options: UnsafePointer<mfa_import_options>?,
                       _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = mfa_import_summary()
    return CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        let importFormat: ImportFormat
        switch format {
        case MFA_IMPORT_OTPAUTH: importFormat = .otpauth
        case MFA_IMPORT_USERS_FILE: importFormat = .oathUsersFile
        case MFA_IMPORT_CSV: importFormat = .csv
        case MFA_IMPORT_YUBIKEY_CSV: importFormat = .yubikeyCSV
        default:
            throw MFAError(.invalidArgument,
                           "format must be MFA_IMPORT_OTPAUTH, MFA_IMPORT_USERS_FILE, MFA_IMPORT_CSV or MFA_IMPORT_YUBIKEY_CSV")
        }
        let body = try importText(text, text_len)
        let host = try CImport(options)
        write(try context.importFactors(body, format: importFormat, options: host.options, report: host.report,
                                        progress: host.progress), to: out)
    }
}

/// Imports one user's google-authenticator-libpam file (`~/.google_authenticator`,
/// `text_len` bytes of `text`) for `uid` (in `options->tenant`): its secret
/// as a factor (TOTP with TOTP_AUTH, else HOTP at its HOTP_COUNTER; a
/// counter-based file without that line is MFA_IMPORT_FAILED), its 8-digit
/// scratch codes as the user's recovery codes (replacing an earlier set),
/// and each option line reported as it maps onto libmfa (MFA_IMPORT_NOTE).
/// Re-running it stores nothing twice. `options->progress` is not called (one file is one
/// transaction).
///
/// On MFA_OK, `*out` holds the totals (zeroed on failure). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (uid, options, text) or MFA_ERR_STORAGE_ERROR.
@c(mfa_import_google_authenticator)
public func mfa_import_google_authenticator(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                            _ out: UnsafeMutablePointer<mfa_import_summary>?,
                                            _ uid: UnsafePointer<CChar>?, _ text: UnsafePointer<UInt8>?,
                                            _ text_len: UInt, _ options: UnsafePointer<mfa_import_options>?,
                                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = mfa_import_summary()
    return CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        let user = try CArguments.string(uid, "uid")
        let body = try importText(text, text_len)
        let host = try CImport(options)
        write(try context.importGoogleAuthenticator(body, uid: user, options: host.options, report: host.report),
              to: out)
    }
}

/// Imports the keys of a PSKC 1.0 file (RFC 6030), as token vendors deliver
/// their seeds (`file_len` bytes of UTF-8 XML at `file`, at most 64 MiB):
/// HOTP, TOTP and Yubico OTP keys, each stored as the factor of its
/// `UserId`, or unassigned under its serial number (without a UserId, or
/// with MFA_PSKC_IGNORE_USERS in `flags`), to be assigned with
/// mfa_admin_token_assign() or claimed by its user with a code. An
/// administrative call: no session, no code.
///
/// The XML is read as hostile: a file that declares a DTD or uses an
/// entity (an external entity, a billion laughs) is refused unread, as
/// MFA_ERR_INVALID_PSKC. Encrypted values need the file's pre-shared key
/// (`key`, `key_len` 16, 24 or 32 bytes) or its password (`password`, for
/// PBKDF2), never both; each value is checked against its MAC. Each key
/// package gets one report (`options->report`), on the line of its Key
/// element, with its serial (mfa_import_line.serial); a bad package does not
/// stop the import, and no report holds a secret. `options->batch_size` key
/// packages are stored per transaction. Re-running it stores nothing twice.
///
/// On MFA_OK, `*out` holds the totals (`lines` counts the key packages;
/// zeroed on failure). Returns MFA_OK, MFA_ERR_INVALID_PSKC,
/// MFA_ERR_PSKC_KEY_MISMATCH (encrypted and no key or password given, or the
/// one given opens none of its values), MFA_ERR_INVALID_ARGUMENT (options,
/// flags, a key of another size, a key and a password both, a password over
/// 1024 bytes) or MFA_ERR_STORAGE_ERROR.
@c(mfa_import_pskc)
public func mfa_import_pskc(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out: UnsafeMutablePointer<mfa_import_summary>?,
                            _ file: UnsafePointer<UInt8>?, _ file_len: UInt, _ key: UnsafePointer<UInt8>?,
                            _ key_len: UInt, _ password: UnsafePointer<CChar>?, _ flags: Int32,
                            _ options: UnsafePointer<mfa_import_options>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = mfa_import_summary()
    return CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        guard flags & ~MFA_PSKC_IGNORE_USERS == 0 else {
            throw MFAError(.invalidArgument, "flags must be 0 or MFA_PSKC_IGNORE_USERS")
        }
        let bytes = Array(try CArguments.bytes(file, file_len, allowed: 0...Int(MFA_IMPORT_MAX_BYTES), "file"))
        let secret: PSKCKey?
        switch (key, try CArguments.optionalString(password, "password")) {
        case (nil, nil):
            guard key_len == 0 else { throw MFAError(.invalidArgument, "key is NULL") }
            secret = nil
        case (nil, let word?):
            secret = .password(word)
        case (.some, nil):
            secret = .preShared(Array(try CArguments.bytes(key, key_len, allowed: 16...32, "key")))
        case (.some, .some):
            throw MFAError(.invalidArgument, "give the file's key or its password, not both")
        }
        let host = try CImport(options)
        write(try context.importPSKC(bytes, key: secret, ignoringUsers: flags & MFA_PSKC_IGNORE_USERS != 0,
                                     options: host.options, report: host.report, progress: host.progress), to: out)
    }
}
